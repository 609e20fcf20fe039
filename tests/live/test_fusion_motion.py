"""Volo and Striscio from the card camera: a Beccaccino lead slid into the trick is Striscio,
tossed is Volo, set down is a plain lead; only at a lead, only where the game announces, asked
when unsure, and the same log again when a replay reuses the stored observations."""

from __future__ import annotations

import tempfile
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.observations import HandsSeen, SignalEvent
from referee.sessionlog import Entry, read_log, replay
from referee.table import CameraStatus, CardsSeen, KeyboardLine, TableSession
from referee.table.lead_motion import MotionThresholds
from tablereferee.recording.clip import _describe
from tablereferee.run import Perception, TableConfig, TableConfigError, stored_observations
from tests.live.motion_streams import RENDER_TABLE, Pose, Table, placed, rendered_frames, slide, stream, toss
from vision.capture.sources import CameraFrame
from vision.capture.stages import CardStage
from vision.landmarks.types import FrameLandmarks, Hand, Person

ORIGIN = 1_800_000_000.0
PLAYERS = ["Anna", "Ben", "Carla", "Dan"]
SETUP = {"players": PLAYERS, "options": {"dealer": "Anna"}}  # Dan, after the dealer, leads
DEFAULT_TABLE = Table()  # the motion streams' default picture: not turned, 100 px a card-length


def start(path: Path, game: str = "beccaccino", table: Table = DEFAULT_TABLE, setup=SETUP) -> TableSession:
    s = TableSession.start(game, setup, path, table.zones(), clock_origin=ORIGIN)
    if game == "beccaccino":
        s.feed(KeyboardLine(0.0, "declare Dan spade"))
    return s


@pytest.fixture
def table(tmp_path):
    s = start(tmp_path / "b.db")
    yield s
    s.close()


def actions(out):
    return [d.data["action"] for d in out if d.kind == "action"]


def motions(session):
    return [e for e in session.log.entries if e.kind == "observation" and e.payload.get("type") == "motion"]


def test_a_lead_slid_into_the_trick_is_striscio(table):
    out = table.feed_all(stream(slide(), "AS", fps=10, hands=True))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": "striscio"}]
    why = next(d for d in out if d.kind == "action").data["why"]
    assert "Dan's card was slid along the table" in why and "Striscio" in why
    # The motion is logged, then the zone content, then the decision resting on both.
    entries = table.log.entries
    (m,) = motions(table)
    cards = entries[m.seq]  # the entry right after it (seq is 1-based)
    assert cards.payload["type"] == "cards" and cards.payload["zone"] == "trick"
    decision = next(e for e in entries if e.payload.get("type") == "decision")
    assert decision.payload["entries"] == [m.seq, cards.seq]
    assert decision.payload["evidence"]["motion"] == {
        "kind": "slide",
        "confidence": m.payload["confidence"],
        "entry": m.seq,
    }
    assert m.payload["features"]["travelled"] > 3 and m.source == "camera"
    assert replay(read_log(table.log.path)).state.snapshot() == table.state.snapshot()


def test_a_lead_tossed_with_no_hand_on_it_is_volo(table):
    out = table.feed_all(stream(toss(), "AS", fps=10, hands=True))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": "volo"}]
    assert table.state.calls["Dan"]["call"] == "volo"


def test_a_lead_set_down_is_a_plain_lead(table):
    out = table.feed_all(stream(placed(), "AS", fps=10, hands=True))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": None}]
    assert [m.payload["kind"] for m in motions(table)] == ["placed"]


def test_an_unsure_toss_asks_and_no_records_the_plain_lead(table):
    out = table.feed_all(stream(toss(), "AS", fps=10, hands=False))  # no hands seen: a doubtful toss
    asks = [d for d in out if d.kind == "ask"]
    assert len(asks) == 1 and actions(out) == []
    assert asks[0].data["action"]["call"] == "volo" and asks[0].data["alternative"]["call"] is None
    assert "or no " in asks[0].message and "instead" in asks[0].message
    out = table.feed(KeyboardLine(3.0, f"no {asks[0].entry}"))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": None}]
    assert table.log.entries[-1].source == "keyboard" and table.state.calls == {}


def test_an_unsure_toss_confirmed_is_volo(table):
    out = table.feed_all(stream(toss(), "AS", fps=10, hands=False))
    out = table.feed(KeyboardLine(3.0, "yes"))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": "volo"}]


def test_a_doubtful_card_read_offers_no_plain_lead_on_no(table):
    # The card itself is unsure: a `no` must not record a card that may be another.
    out = table.feed_all(stream(slide(), "AS", fps=10, hands=True, confidence=0.6))
    (ask,) = [d for d in out if d.kind == "ask"]
    assert ask.data["action"]["call"] == "striscio" and "alternative" not in ask.data
    out = table.feed(KeyboardLine(3.0, "no"))
    assert [d.kind for d in out] == ["answer"] and table.state.trick == []


def test_a_slide_that_is_not_a_lead_is_no_announcement(table):
    table.feed_all(stream(placed(), "AS", fps=10, hands=True))
    # Anna slides her card next to the lead: it follows, it does not lead.
    out = table.feed_all(
        stream(slide(t_land=3.0, end=(1.2, 0.0)), "2S", fps=10, hands=True, others=[("AS", Pose(0.0, 0.0))])
    )
    assert actions(out) == [{"kind": "play", "player": "Anna", "card": "2S", "call": None}]
    assert len(motions(table)) == 1  # only the lead's motion was judged


def test_a_knock_wins_over_a_slide(table):
    table.feed(SignalEvent("Dan", "tap_table_right", 0.1, 0.2, 0.95, {}))
    out = table.feed_all(stream(slide(), "AS", fps=10, hands=True))
    (act,) = [d for d in out if d.kind == "action"]
    assert act.data["action"]["call"] == "busso"
    assert "knocked" in act.data["why"] and "the knock is the announcement" in act.data["why"]


def test_a_second_announcement_in_a_hand_is_not_read_from_the_motion(table):
    # Dan leads the 3 of spade (the strongest card) sliding it: Striscio; he takes the trick,
    # leads again with a slide: one announcement per hand, so the second lead is plain.
    table.feed_all(stream(slide(), "3S", fps=10, hands=True))
    for i, (who, card) in enumerate([("Anna", "4S"), ("Ben", "5S"), ("Carla", "6S")]):
        table.feed(KeyboardLine(3.0 + i, f"play {who} {card}"))
    assert table.state.turn == "Dan" and table.state.trick == []
    out = table.feed_all(stream(slide(t_land=8.0), "AS", fps=10, hands=True))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": None}]
    why = next(d for d in out if d.kind == "action").data["why"]
    assert "not recorded as Striscio" in why and "already said striscio" in why
    assert table.state.calls["Dan"]["card"] == "3S"


def test_bestia_has_no_toss_or_slide_announcement(tmp_path):
    s = start(tmp_path / "b.db", "bestia", setup={"players": ["Anna", "Ben", "Carla"]})
    for i, line in enumerate(["trump 5H", "knock Ben", "knock Carla", "knock Anna"]):
        s.feed(KeyboardLine(0.1 * i, line))
    out = s.feed_all(stream(slide(t_land=2.0), "KS", fps=10, hands=True))
    assert actions(out) == [{"kind": "play", "player": "Ben", "card": "KS"}]
    assert motions(s) == []  # not even judged
    s.close()


def test_a_replay_reusing_the_log_writes_the_same_log(tmp_path):
    first = start(tmp_path / "a.db")
    first.feed_all(stream(toss(), "AS", fps=10, hands=False))  # an ask...
    first.feed(KeyboardLine(3.0, "no"))  # ...declined: the plain lead
    first.close()
    again = TableSession.start("beccaccino", SETUP, tmp_path / "b.db", Table().zones(), clock_origin=ORIGIN)
    for _, obs in stored_observations(types.SimpleNamespace(log_path=tmp_path / "a.db")):
        again.feed(obs)
    a, b = read_log(tmp_path / "a.db"), read_log(tmp_path / "b.db")
    assert [e.body() for e in a.entries] == [e.body() for e in b.entries]
    assert [e.payload.get("type") for e in b.entries if e.kind == "observation"][:2] == ["motion", "cards"]
    again.close()


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([5.0, 10.0, 15.0, 30.0]), st.floats(0, 0.999), st.sampled_from(["slide", "toss", "placed"]))
def test_the_same_lead_is_announced_the_same_at_any_frame_rate(fps, phase, kind):
    motion = {"slide": slide(), "toss": toss(), "placed": placed()}[kind]
    with tempfile.TemporaryDirectory() as tmp:
        s = start(Path(tmp) / "g.db")
        out = s.feed_all(stream(motion, "AS", fps=fps, phase=phase, hands=True))
        assert actions(out) == [
            {
                "kind": "play",
                "player": "Dan",
                "card": "AS",
                "call": {"slide": "striscio", "toss": "volo", "placed": None}[kind],
            }
        ]
        s.close()


def test_where_hands_are_seen_a_lead_waits_until_the_card_has_lain_still(table):
    # At 5 fps the tossed card's flight already fills the stabiliser's dwell: the zone is stable
    # the moment it lands, before any hand could be seen on it. The lead is judged 0.3 s later.
    items = stream(toss(), "AS", fps=5, hands=True)
    out = table.feed_all(items)
    (act,) = [d for d in out if d.kind == "action"]
    (m,) = motions(table)
    assert act.data["action"]["call"] == "volo"
    assert act.t > m.payload["t"] + 0.3 and m.payload["features"]["hand_at_landing"] is False


def test_a_lead_waiting_for_hands_is_judged_when_its_camera_is_lost(table):
    items = stream(toss(), "AS", fps=5, hands=True, t_end=1.15)  # stops as it lands
    out = table.feed_all(items)
    assert [d for d in out if d.kind == "action"] == [] and motions(table) == []
    out = table.feed(CameraStatus(1.2, "cards", False, "unplugged"))
    assert [d.kind for d in out if d.kind != "cards"] == ["action", "camera"]  # judged with what was seen
    assert out[1].data["action"]["call"] == "volo" and out[1].t == 1.2


class _Stage:
    """A stand-in for a perception stage: always due, answers what it is given."""

    def __init__(self, answer, landmarks=None):
        self.answer, self.landmarks = answer, landmarks if landmarks is not None else []

    def due(self, t):
        return True

    def __call__(self, frame):
        return self.answer(frame)


def test_a_card_camera_that_sees_hands_passes_them_to_the_table():
    pts = np.tile(np.array([[600.0, 350.0, 0.0]], np.float32), (21, 1))
    landmarks = [FrameLandmarks(4, 0.4, 1280, 720, (Person("Dan", hands={"right": Hand(pts)}),))]
    p = Perception.__new__(Perception)  # the stages themselves are tested with their models elsewhere
    p.seconds, p.frames = {"cards": 0.0, "signals": 0.0}, {"cards": 0, "signals": 0}
    p.tracks = None
    p.card = {"cards": _Stage(lambda f: CardsSeen(f.t, f.camera, ()))}
    p.signal = {"cards": _Stage(lambda f: [], landmarks), "people": _Stage(lambda f: [], landmarks)}
    out = p(CameraFrame("cards", 4, 0.4, np.zeros((4, 4, 3), np.uint8)))
    assert [type(o).__name__ for o in out] == ["CardsSeen", "HandsSeen"]
    hands = out[1]
    assert isinstance(hands, HandsSeen) and hands.camera == "cards" and hands.hands[0].player == "Dan"
    # A camera without card zones: its hands are for the body signals only.
    assert p(CameraFrame("people", 4, 0.4, np.zeros((4, 4, 3), np.uint8))) == []


def test_a_slide_with_a_frame_lost_in_the_middle_is_still_striscio(table):
    items = stream(slide(), "AS", fps=10, hands=True, drop=[5])
    assert not any(getattr(x, "frame", None) == 5 for x in items)
    out = table.feed_all(items)
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "AS", "call": "striscio"}]
    assert motions(table)[0].payload["features"]["longest_gap_s"] == pytest.approx(0.2, abs=0.01)


def test_a_lead_still_waiting_when_the_recording_ends_is_judged_by_settle(table):
    items = stream(toss(), "AS", fps=5, hands=True, t_end=1.15)  # ends as it lands
    assert [d for d in table.feed_all(items) if d.kind == "action"] == []
    out = table.settle()
    assert [d.data["action"]["call"] for d in out if d.kind == "action"] == ["volo"]
    assert table.settle() == []


@pytest.fixture(scope="module")
def card_stage():
    """The live card stage with the shipped detector, reading Italian cards in the trick zone of
    the rendered table."""
    return CardStage(
        "cards", deck="italian", finder="detector", locate=RENDER_TABLE.zones().locate, fps=None, threads=1
    )


@pytest.mark.parametrize(
    "motion,kind,call",
    [
        (slide(start=(3.0, 0.5)), "slide", "striscio"),
        (toss(start=(2.5, 0.8)), "toss", "volo"),
        (placed(), "placed", None),
    ],
    ids=["slide", "toss", "placed"],
)
def test_rendered_leads_read_by_the_card_stage_become_the_announcement(tmp_path, card_stage, motion, kind, call):
    """Pictures of the lead (our Italian 3 of spade on a cloth, blurred in motion), through the
    real card reader (detector, identification, zones), into the table session. No hands are
    drawn: the toss is asked, and a yes records Volo."""
    s = TableSession.start("beccaccino", SETUP, tmp_path / "r.db", RENDER_TABLE.zones(), clock_origin=ORIGIN)
    s.feed(KeyboardLine(0.0, "declare Dan spade"))
    out = []
    for frame in rendered_frames(motion, "3S", fps=10, seed=3):
        out += s.feed(card_stage(frame))
    (m,) = motions(s)
    assert m.payload["kind"] == kind
    if kind == "toss":
        assert actions(out) == [] and [d.data["action"]["call"] for d in out if d.kind == "ask"] == ["volo"]
        out = s.feed(KeyboardLine(3.0, "yes"))
    assert actions(out) == [{"kind": "play", "player": "Dan", "card": "3S", "call": call}]
    s.close()


def test_the_cue_settings_are_table_options_and_bad_ones_are_refused():
    manifest = {
        "game": "beccaccino",
        "setup": SETUP,
        "zones": Table().zones().to_list(),
        "options": {"motion": {"settle": 0.5, "slide_path": [0.8, 1.5]}},
    }
    cfg = TableConfig.from_manifest(manifest)
    th = cfg.motion_thresholds()
    assert th.settle == 0.5 and th.slide_path == (0.8, 1.5) and th.air_size == (0.06, 0.15)
    assert cfg.options()["motion"] == {"settle": 0.5, "slide_path": [0.8, 1.5]}
    assert "motion" not in TableConfig.from_manifest({**manifest, "options": {}}).options()
    for bad in ({"slid": 1.0}, {"slide_path": [1.5, 0.8]}, {"settle": "soon"}, {"slide_path": 3}):
        with pytest.raises(TableConfigError, match="options.motion"):
            TableConfig.from_manifest({**manifest, "options": {"motion": bad}})


def test_a_stricter_table_reads_a_short_slide_as_a_placement(tmp_path):
    short = slide(start=(1.4, 0.2))
    s = TableSession.start(
        "beccaccino",
        SETUP,
        tmp_path / "s.db",
        Table().zones(),
        clock_origin=ORIGIN,
        motion=MotionThresholds(slide_path=(1.5, 2.5)),
    )
    s.feed(KeyboardLine(0.0, "declare Dan spade"))
    assert actions(s.feed_all(stream(short, "AS", fps=10, hands=True)))[0]["call"] is None
    s.close()
    s = start(tmp_path / "d.db")
    assert actions(s.feed_all(stream(short, "AS", fps=10, hands=True)))[0]["call"] == "striscio"
    s.close()


def test_a_dispute_package_describes_a_lead_motion():
    payload = {
        "type": "motion",
        "t": 2.5,
        "camera": "cards",
        "zone": "trick",
        "card": "3S",
        "kind": "slide",
        "confidence": 0.91,
        "scores": {},
        "features": {},
        "reason": "slid 1.4 card-lengths",
    }
    entry = Entry(seq=1, time=2.5, source="camera", confidence=0.91, kind="observation", payload=payload)
    assert _describe(entry) == "3S came into trick slide (confidence 0.91): slid 1.4 card-lengths"
