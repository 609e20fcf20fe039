"""Fusion rules over recorded observation streams: what becomes an action, what is asked,
what is flagged, and what only stays evidence."""

from __future__ import annotations

import pytest

from referee.observations import SignalEvent
from referee.sessionlog import read_log, replay
from referee.table import CameraStatus, KeyboardLine, TableSession
from referee.table.stabilize import ZoneStabilizer
from tests.live.streams import SETUP, beccato_zones, frames, trick_zones

ORIGIN = 1_800_000_000.0


@pytest.fixture
def table(tmp_path):
    session = TableSession.start("beccato", SETUP, tmp_path / "game.db", beccato_zones(), clock_origin=ORIGIN)
    yield session
    session.close()


def eggs_on_henhouses():
    return (
        frames(0, 1, {"eggs": ["egg:star-3"]})
        + frames(1, 2, {"eggs": ["egg:star-3", "egg:dollar-1"]})
        + frames(2, 3, {"eggs": ["egg:star-3", "egg:dollar-1", "egg:moon-2"]})
    )


def kinds(decisions):
    return [d.kind for d in decisions if d.kind != "cards"]


def test_eggs_turned_up_fill_the_henhouses(table):
    out = table.feed_all(eggs_on_henhouses())
    assert kinds(out) == ["action"] * 3
    assert table.state.waiting_for() == {"step": "play", "holder": "Anna"}
    assert [e.source for e in table.log.entries if e.kind == "action"] == ["camera"] * 3


def test_reveal_after_a_coccode_becomes_the_reveal_and_the_award(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    out = table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff"] * 3 + ["chicken:brahma"]}))
    actions = [d for d in out if d.kind == "action"]
    assert len(actions) == 1 and actions[0].data["action"] == {
        "kind": "reveal",
        "player": "Carla",
        "cards": ["brahma", "orloff", "orloff", "orloff"],
    }
    events = [e["kind"] for e in actions[0].data["events"]]
    assert "call_resolved" in events and "egg_awarded" in events
    # The reasoning is logged before the action, with the rule and its confidence.
    entries = table.log.entries
    decision = entries[actions[0].entry - 2]
    assert decision.kind == "observation" and decision.payload["type"] == "decision"
    assert decision.payload["rule"] == "reveal" and decision.payload["confidence"] == pytest.approx(0.97)
    # The refill egg taken and read becomes the draw.
    out = table.feed_all(frames(4.2, 5.2, {"eggs": ["egg:sun-4"]}))
    assert [d.data["action"] for d in out if d.kind == "action"] == [{"kind": "draw_egg", "egg": "sun-4"}]
    assert table.state.scores()["dollar"]["eggs"] == 1


def test_cards_laid_before_the_call_are_read_once_it_is_typed(table):
    table.feed_all(eggs_on_henhouses())
    assert kinds(table.feed_all(frames(3.0, 4.0, {"seat:Carla": ["chicken:orloff"] * 3}))) == []
    out = table.feed(KeyboardLine(4.1, "coccode Anna"))
    assert [d.kind for d in out] == ["action", "action"]
    assert out[1].data["action"]["kind"] == "reveal"


def test_low_confidence_asks_and_a_yes_applies(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    low = [("chicken:orloff", 0.95), ("chicken:orloff", 0.55), ("chicken:orloff", 0.9)]
    out = table.feed_all(frames(3.2, 4.2, {"seat:Carla": low}))
    asks = [d for d in out if d.kind == "ask"]
    assert len(asks) == 1 and table.state.waiting_for()["step"] == "reveal"  # nothing guessed
    assert asks[0].data["confidence"] == pytest.approx(0.55)
    assert table.open_asks() == [asks[0].entry]
    out = table.feed(KeyboardLine(4.5, f"yes {asks[0].entry}"))
    assert [d.kind for d in out] == ["action"]
    assert table.log.entries[-1].source == "keyboard"
    assert table.state.waiting_for()["step"] == "draw"


def test_a_no_leaves_the_game_waiting(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    table.feed_all(frames(3.2, 4.2, {"seat:Carla": [("chicken:orloff", 0.5)] * 3}))
    out = table.feed(KeyboardLine(4.5, "no"))
    assert [d.kind for d in out] == ["answer"]
    assert table.state.waiting_for() == {"step": "reveal", "players": ["Carla"]}
    assert table.feed(KeyboardLine(4.6, "yes"))[0].kind == "rejected"  # nothing open any more
    assert table.feed(KeyboardLine(4.7, "yes please"))[0].kind == "rejected"
    assert table.feed(KeyboardLine(4.8, "no 3"))[0].kind == "rejected"  # entry 3 is no question


def test_an_unread_card_asks_the_scorekeeper_to_type_the_reveal(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    out = table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff", None, "chicken:orloff"]}))
    asks = [d for d in out if d.kind == "ask"]
    assert len(asks) == 1 and "type the reveal" in asks[0].message
    assert table.open_asks() == []  # nothing to confirm: a line must be typed
    out = table.feed(KeyboardLine(4.5, "reveal Carla orloff orloff orloff"))
    assert out[0].kind == "action" and table.state.waiting_for()["step"] == "draw"


def test_a_card_already_seen_elsewhere_is_a_contradictory_reveal(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    # Carla reveals three Orloff; then a wrong call makes Bruno reveal in the same round with
    # an Orloff too: there are only three Orloff chickens.
    table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff"] * 3}))
    table.feed_all(frames(4.2, 5.2, {"seat:Carla": ["chicken:orloff"] * 3, "eggs": ["egg:sun-4"]}))
    assert table.state.waiting_for()["step"] == "play"
    table.feed(KeyboardLine(5.3, "caught Anna Bruno"))
    before = table.state.snapshot()
    out = table.feed_all(
        frames(
            5.4,
            6.4,
            {
                "seat:Carla": ["chicken:orloff"] * 3,
                "seat:Bruno": ["chicken:orloff", "chicken:brahma", "chicken:brahma"],
            },
        )
    )
    flags = [d for d in out if d.kind == "flag"]
    assert len(flags) == 1 and "contradictory reveal by Bruno" in flags[0].message
    assert flags[0].data["violation"] == "CardSeenElsewhere"
    assert table.state.snapshot() == before
    assert any(e.payload.get("type") == "flag" for e in table.log.entries[-3:])


def test_a_card_the_engine_saw_earlier_this_round_is_a_contradictory_reveal(table):
    table.feed_all(eggs_on_henhouses())
    # During play the scorekeeper saw two Orloff in Bruno's hand.
    table.feed(KeyboardLine(3.0, "seen Bruno orloff orloff"))
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    before = table.state.snapshot()
    out = table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff", "chicken:orloff", "chicken:brahma"]}))
    flags = [d for d in out if d.kind == "flag"]
    assert len(flags) == 1 and flags[0].data["violation"] in ("CardAlreadySeen", "TooManyOfBreed")
    assert "contradictory reveal by Carla" in flags[0].message
    assert table.state.snapshot() == before


def test_four_of_a_three_copy_breed_in_one_zone_is_refused(table):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    out = table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff"] * 4}))
    flags = [d for d in out if d.kind == "flag"]
    assert len(flags) == 1 and flags[0].data["violation"] == "TooManyOfBreed"


def test_an_egg_already_seen_is_flagged_not_drawn(table):
    # The scorekeeper typed Star 3 onto the first henhouse; the camera then reads Star 3 turned
    # up again as the next egg: a card already seen.
    table.feed(KeyboardLine(0.1, "egg star-3"))
    out = table.feed_all(frames(0.2, 1.2, {"eggs": ["egg:star-3"]}))
    assert kinds(out) == ["flag"]
    assert out[-1].data["violation"] == "EggNotInDeck" and "egg already seen" in out[-1].message
    assert table.state.waiting_for() == {"step": "draw", "to": "henhouse", "breed": "padovana"}


def test_a_camera_dropout_is_survived_from_the_keyboard(table):
    table.feed_all(frames(0, 1, {"eggs": ["egg:star-3"]}))
    out = table.feed(CameraStatus(1.0, "cards", False, "no frame for 2 s"))
    assert out[0].kind == "camera" and "lost" in out[0].message
    # Frames still arriving from a camera reported lost are ignored.
    assert table.feed_all(frames(1.0, 1.6, {"eggs": ["egg:moon-1"]})) == []
    assert table.feed(KeyboardLine(1.5, "egg dollar-1"))[0].kind == "action"
    assert table.feed(CameraStatus(2.0, "cards", True))[0].kind == "camera"
    # Back: the zones are read afresh (the egg already drawn is not drawn twice).
    out = table.feed_all(frames(2.0, 3.0, {"eggs": ["egg:star-3", "egg:dollar-1", "egg:moon-2"]}))
    assert [d.data["action"]["egg"] for d in out if d.kind == "action"] == ["moon-2"]
    assert table.state.waiting_for()["step"] == "play"
    camera_entries = [e.payload for e in table.log.entries if e.payload.get("type") == "camera"]
    assert [p["ok"] for p in camera_entries] == [False, True]


def test_signals_are_evidence_and_never_change_the_state(table):
    table.feed_all(eggs_on_henhouses())
    before = table.state.snapshot()
    ev = SignalEvent("Bruno", "raise_hand_right", 3.5, 4.1, 0.9, {"frames": [1, 2]})
    out = table.feed(ev)
    assert [d.kind for d in out] == ["signal"]
    assert table.feed(ev) == []  # the same event reported twice is logged once
    assert table.state.snapshot() == before
    entry = table.log.entries[-1]
    assert entry.kind == "observation" and entry.payload["player"] == "Bruno"
    assert entry.time == pytest.approx(ORIGIN + 4.1)
    assert entry.source == "camera"


def test_heard_signals_are_logged_from_the_microphone(table):
    table.feed(SignalEvent("unknown", "hum", 5.0, 7.5, 0.8, {"pitch_hz": 180}))
    table.feed(SignalEvent("Bruno", "talking", 8.0, 9.0, 0.7, {}))
    assert [e.source for e in table.log.entries[-2:]] == ["microphone", "microphone"]


def test_a_shaky_zone_is_not_read_until_it_is_stable(table):
    flicker = []
    for i in range(10):
        cards = ["egg:star-3"] if i % 2 else []
        flicker += frames(i * 0.2, i * 0.2 + 0.2, {"eggs": cards})
    assert kinds(table.feed_all(flicker)) == []


def test_the_log_replays_to_the_same_state(table, tmp_path):
    table.feed_all(eggs_on_henhouses())
    table.feed(KeyboardLine(3.1, "coccode Anna"))
    table.feed_all(frames(3.2, 4.2, {"seat:Carla": ["chicken:orloff"] * 3}))
    result = replay(read_log(table.log.path))
    assert result.legal and result.state.snapshot() == table.state.snapshot()


# -- trick-taking games -------------------------------------------------------------------


@pytest.fixture
def beccaccino(tmp_path):
    setup = {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"dealer": "Anna"}}
    session = TableSession.start(
        "beccaccino", setup, tmp_path / "b.db", trick_zones(), clock_origin=ORIGIN, stabilizer=None
    )
    session.feed(KeyboardLine(0.1, "declare Dan spade"))
    yield session
    session.close()


def test_cards_laid_in_the_trick_zone_become_plays(beccaccino):
    out = beccaccino.feed_all(frames(0.2, 1.2, {"trick": ["3S"]}) + frames(1.2, 2.2, {"trick": ["3S", "RS"]}))
    plays = [d.data["action"] for d in out if d.kind == "action"]
    assert plays == [
        {"kind": "play", "player": "Dan", "card": "3S", "call": None},
        {"kind": "play", "player": "Anna", "card": "RS", "call": None},
    ]


def test_an_illegal_play_raises_an_alert_at_once(beccaccino):
    beccaccino.feed_all(frames(0.2, 1.2, {"trick": ["3S"]}))
    before = beccaccino.state.snapshot()
    # Anna lays a second 3 of spade: there is only one.
    out = beccaccino.feed_all(frames(1.2, 2.2, {"trick": ["3S", "3S"]}))
    alerts = [d for d in out if d.kind == "alert"]
    assert len(alerts) == 1 and "illegal play by Anna" in alerts[0].message
    assert beccaccino.state.snapshot() == before


def test_a_knock_before_the_lead_is_busso(beccaccino):
    beccaccino.feed(SignalEvent("Dan", "tap_table_right", 0.3, 0.5, 0.95, {}))
    out = beccaccino.feed_all(frames(0.6, 1.6, {"trick": ["AS"]}))
    plays = [d for d in out if d.kind == "action"]
    assert plays[0].data["action"]["call"] == "busso"
    assert "knocked" in plays[0].data["why"]


def test_a_knock_by_someone_else_is_not_busso(beccaccino):
    beccaccino.feed(SignalEvent("Ben", "tap_table_right", 0.3, 0.5, 0.95, {}))
    out = beccaccino.feed_all(frames(0.6, 1.6, {"trick": ["AS"]}))
    assert [d for d in out if d.kind == "action"][0].data["action"]["call"] is None


def test_stabilizer_needs_frames_and_dwell():
    zones = beccato_zones()
    st = ZoneStabilizer(zones, min_frames=3, min_dwell=0.4)
    out = []
    for seen in frames(0, 1, {"eggs": ["egg:star-3"]}):
        out += st.feed(seen)
    eggs = [c for c in out if c.zone == "eggs"]
    assert len(eggs) == 1 and eggs[0].t == pytest.approx(0.4) and eggs[0].since == 0.0


def test_eggs_turned_up_together_are_drawn_one_after_the_other(table):
    out = table.feed_all(
        frames(0, 1, {"eggs": ["egg:star-3", "egg:dollar-1"]})
        + frames(1, 2, {"eggs": ["egg:star-3", "egg:dollar-1", "egg:moon-2"]})
    )
    assert [d.data["action"]["egg"] for d in out if d.kind == "action"] == ["dollar-1", "star-3", "moon-2"]
    assert table.state.waiting_for()["step"] == "play"


def test_a_low_confidence_egg_holds_the_next_one_until_answered(table):
    # Read in order (dollar-1 before star-3): the doubtful first one is asked, the second waits.
    out = table.feed_all(frames(0, 1, {"eggs": [("egg:dollar-1", 0.5), ("egg:star-3", 0.95)]}))
    assert kinds(out) == ["ask"]
    out = table.feed(KeyboardLine(1.0, "yes"))
    assert [d.data["action"]["egg"] for d in out if d.kind == "action"] == ["dollar-1", "star-3"]


def test_bestia_cards_in_the_trick_zone_are_plays_and_a_revoke_is_an_alert(tmp_path):
    session = TableSession.start(
        "bestia", {"players": ["Anna", "Ben", "Carla"]}, tmp_path / "b.db", trick_zones(), clock_origin=ORIGIN
    )
    for i, line in enumerate(["trump 5H", "knock Ben", "knock Carla", "knock Anna"]):
        session.feed(KeyboardLine(0.1 * i, line))
    out = session.feed_all(frames(1, 2, {"trick": ["KS"]}) + frames(2, 3, {"trick": ["KS", "AS"]}))
    assert [d.data["action"] for d in out if d.kind == "action"] == [
        {"kind": "play", "player": "Ben", "card": "KS"},
        {"kind": "play", "player": "Carla", "card": "AS"},
    ]
    # Anna lays the king of spades again: a card already played is refused at once.
    out = session.feed_all(frames(3, 4, {"trick": ["KS", "AS", "KS"]}))
    alerts = [d for d in out if d.kind == "alert"]
    assert len(alerts) == 1 and "illegal play by Anna" in alerts[0].message
    session.close()


def test_cards_a_hand_hid_and_uncovered_are_not_played_again(beccaccino):
    beccaccino.feed_all(frames(0.2, 1.2, {"trick": ["3S"]}) + frames(1.2, 2.2, {"trick": ["3S", "RS"]}))
    before = beccaccino.state.snapshot()
    # A hand rests over the trick for a second (nothing seen), then lifts.
    out = beccaccino.feed_all(frames(2.2, 3.2, {"trick": []}) + frames(3.2, 4.2, {"trick": ["3S", "RS"]}))
    assert kinds(out) == []
    assert beccaccino.state.snapshot() == before
    # The next card is still read.
    out = beccaccino.feed_all(frames(4.2, 5.2, {"trick": ["3S", "RS", "6S"]}))
    assert [d.data["action"]["card"] for d in out if d.kind == "action"] == ["6S"]


def test_eggs_a_hand_hid_and_uncovered_are_not_drawn_again(table):
    table.feed_all(frames(0, 1, {"eggs": ["egg:star-3"]}))
    out = table.feed_all(frames(1, 2, {"eggs": []}) + frames(2, 3, {"eggs": ["egg:star-3"]}))
    assert kinds(out) == []
