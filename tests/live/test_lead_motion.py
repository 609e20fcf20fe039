"""The lead-motion cue on recorded card-camera streams: slid, tossed, placed, at several frame
rates, with and without hands, with dropped frames, and wherever the table lies in the picture."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.table import CardReading, CardsSeen
from referee.table.lead_motion import LeadMotion, PathPoint, classify_path, lead_motion, trace_card
from tests.live.motion_streams import Pose, Table, appears, cards_only, corners, hands_only, placed, slide, stream, toss
from vision.cards.detections import CardDetections
from vision.cards.track import CardTracker
from vision.landmarks.types import FrameLandmarks, Hand, Person
from vision.observe import cards_seen, hands_seen

THRESHOLD = 0.8  # the table's default confirmation threshold


def judge(items, card: str = "AS", zone: str = "trick", settle: float = 0.5) -> LeadMotion | None:
    """What the table judges when the zone content becomes stable: the frames up to `settle` s
    after the card first lay in the zone."""
    frames = cards_only(items)
    since = next(f.t for f in frames if any(r.zone == zone and r.card == card for r in f.cards))
    upto = [f for f in frames if f.t <= since + settle]
    return lead_motion(upto, zone, card, since, hands_only(items))


@pytest.mark.parametrize("fps", [5.0, 10.0, 12.5, 30.0, 60.0])
@pytest.mark.parametrize("hands", [False, True])
def test_a_slide_reads_as_a_slide_at_any_frame_rate(fps, hands):
    m = judge(stream(slide(), fps=fps, hands=hands))
    assert m.kind == "slide" and m.call == "striscio"
    assert m.confidence >= THRESHOLD
    assert m.features["observations"] >= 2
    assert 3.0 <= m.features["travelled"] <= 4.2  # card-lengths, whatever the frame rate
    assert m.features["size_change"] < 0.05
    if hands:
        assert m.features["hand_on_the_way"] is True


@pytest.mark.parametrize("fps", [5.0, 10.0, 30.0])
def test_a_toss_with_no_hand_on_landing_reads_as_a_toss(fps):
    m = judge(stream(toss(), fps=fps, hands=True))
    assert m.kind == "toss" and m.call == "volo"
    assert m.confidence >= THRESHOLD
    assert m.features["size_growth"] > 0.2 and m.features["hand_at_landing"] is False


def test_a_toss_without_hand_landmarks_is_a_doubtful_toss():
    m = judge(stream(toss(), fps=10, hands=False))
    assert m.kind == "toss"
    assert 0.5 <= m.confidence < THRESHOLD  # the table asks
    assert m.features["hand_at_landing"] is None


def test_a_card_carried_down_with_a_hand_on_it_is_tossed_only_if_no_hand_holds_it():
    # The same path from the air: a hand on it as it lands makes it a placement.
    air = toss()
    held = dataclasses.replace(air, name="held", hand=lambda s: (air.pose(s).x, air.pose(s).y), hand_after=0.4)
    m = judge(stream(held, fps=10, hands=True))
    assert m.features["hand_at_landing"] is True
    assert m.kind == "placed"


@pytest.mark.parametrize("fps", [5.0, 10.0, 30.0])
@pytest.mark.parametrize("hands", [False, True])
def test_a_card_set_down_is_placed(fps, hands):
    m = judge(stream(placed(), fps=fps, hands=hands))
    assert m.kind == "placed" and m.call is None
    assert m.scores["slide"] < 0.5 and m.scores["toss"] < 0.5


def test_a_card_first_seen_in_place_is_placed_but_not_surely():
    m = judge(stream(appears(), fps=10, hands=False))
    assert m.kind == "placed" and m.features["observations"] == 0
    assert m.confidence < THRESHOLD  # a toss from out of view looks the same


def test_a_card_that_appears_with_no_hand_near_is_a_doubtful_toss():
    m = judge(stream(appears(hand_on=False), fps=10, hands=True))
    assert m.kind == "toss" and m.confidence < THRESHOLD
    m = judge(stream(appears(hand_on=True), fps=10, hands=True))
    assert m.kind == "placed"


@pytest.mark.parametrize("drop", [[4], [5], [6], [4, 6]])
def test_a_dropped_frame_in_the_middle_of_a_slide_keeps_it_a_slide(drop):
    # At 10 fps the slide (0.6 s, landing at t = 1.0) covers frames 2..8.
    m = judge(stream(slide(), fps=10, drop=drop))
    assert m.kind == "slide" and m.confidence >= THRESHOLD
    assert m.features["longest_gap_s"] == pytest.approx(0.2, abs=0.01)


def test_a_slide_lost_for_longer_than_the_gap_is_not_followed():
    # Every frame of the motion lost: the card is first seen where it lies.
    m = judge(stream(slide(), fps=10, drop=range(0, 9)))
    assert m.features["observations"] == 0 and m.kind == "placed"


def test_a_slide_behind_a_long_gap_is_in_doubt():
    # Seen at the start of the slide, then not for 0.4 s (4 periods) before it lies still.
    m = judge(stream(slide(duration=0.8), fps=10, drop=[5, 6, 7]))
    assert m.features["longest_gap_s"] == pytest.approx(0.4, abs=0.01)
    assert m.scores["slide"] < judge(stream(slide(duration=0.8), fps=10)).scores["slide"]


def test_another_card_lying_near_the_path_is_not_taken_for_the_slid_one():
    other = [(None, Pose(2.0, -1.3)), ("7C", Pose(1.0, 0.9))]  # an unread card and a known one
    items = stream(slide(), fps=10, others=other)
    m = judge(items)
    assert m.kind == "slide" and m.features["travelled"] == pytest.approx(
        judge(stream(slide(), fps=10)).features["travelled"], abs=1e-6
    )


def test_a_card_of_another_face_is_never_followed():
    items = cards_only(stream(slide(), fps=10))
    # Relabel the sliding card as another face until it lies still: nothing of AS moved.
    relabel = [
        CardsSeen(
            f.t,
            f.camera,
            tuple(
                CardReading("7C" if f.t < 1.0 else r.card, r.confidence, r.face_up, r.zone, r.corners) for r in f.cards
            ),
            f.frame,
        )
        for f in items
    ]
    m = judge(relabel)
    assert m.features["observations"] == 0


def test_track_ids_are_followed_when_there_are_some():
    items = [f for f in cards_only(stream(slide(), fps=10)) if f.cards]

    # An unread card runs one frame ahead of the slid one, exactly along its path: going back in
    # time, it always lies nearer than the slid card itself. Track ids keep them apart.
    def frames(tracked: bool):
        out = []
        for k, f in enumerate(items):
            r = f.cards[0]
            ahead = items[min(k + 1, len(items) - 1)].cards[0].corners
            mine = CardReading(r.card, r.confidence, r.face_up, r.zone, r.corners, 7 if tracked else -1)
            ghost = CardReading(None, 0.5, True, None, ahead, 9 if tracked else -1)
            out.append(CardsSeen(f.t, f.camera, (ghost, mine), f.frame))
        return out

    since = 0.5
    own = {(f.t, PathPoint.of(f.t, f.cards[0].corners).center) for f in items}
    path = trace_card([f for f in frames(True) if f.t <= since + 0.5], "trick", "AS", since - 1.5)
    assert len(path) == 7 and all((p.t, p.center) in own for p in path)  # 0.4 .. 1.0 s
    # Without them the nearest reading is the other card: the test above can fail.
    path = trace_card([f for f in frames(False) if f.t <= since + 0.5], "trick", "AS", since - 1.5)
    assert not all((p.t, p.center) in own for p in path)


def test_no_corners_no_judgement():
    frames = [CardsSeen(0.1 * i, "cards", (CardReading("AS", 0.9, True, "trick"),)) for i in range(6)]
    assert lead_motion(frames, "trick", "AS", 0.0) is None
    assert lead_motion([], "trick", "AS", 0.0) is None
    with pytest.raises(ValueError):
        classify_path([], camera="cards", zone="trick", card="AS")


def test_the_motion_round_trips_through_its_log_payload():
    m = judge(stream(slide(), fps=10, hands=True))
    back = LeadMotion.from_payload(m.to_payload())
    assert (back.kind, back.card, back.zone, back.call) == (m.kind, m.card, m.zone, m.call)
    assert back.confidence == pytest.approx(m.confidence, abs=1e-3)
    assert "slid along the table" in back.reason


def test_hands_of_mediapipe_landmarks_become_fingertips():
    pts = np.zeros((21, 3), np.float32)
    pts[:, 0] = np.arange(21) * 10
    pts[:, 1] = 5
    frame = FrameLandmarks(3, 1.5, 1280, 720, (Person("Dan", hands={"right": Hand(pts)}),), (Hand(pts + 1),))
    seen = hands_seen(frame, "cards")
    assert seen.t == 1.5 and seen.camera == "cards" and len(seen.hands) == 2
    assert seen.hands[0].player == "Dan" and seen.hands[1].player is None
    assert len(seen.hands[0].points) == 10
    assert (80.0, 5.0) in seen.hands[0].points  # index fingertip (landmark 8)
    assert (0.0, 5.0) not in seen.hands[0].points  # not the wrist


# -- properties ---------------------------------------------------------------------------------

tables = st.builds(
    Table,
    scale=st.floats(40, 220),
    angle=st.floats(-180, 180),
    offset=st.tuples(st.floats(-500, 2000), st.floats(-500, 1500)),
)


@settings(max_examples=60, deadline=None)
@given(
    tables,
    st.floats(8, 60),
    st.floats(0, 0.999),
    st.floats(2.5, 4.5),
    st.floats(-180, 180),
    st.floats(0.4, 0.9),
    st.booleans(),
)
def test_any_straight_slide_anywhere_at_any_rate_is_a_slide(table, fps, phase, dist, heading, duration, hands):
    # from the player's side of the trick zone (2.5 card-lengths or more) into its middle
    start = (dist * math.cos(math.radians(heading)), dist * math.sin(math.radians(heading)) * 0.5)
    assume(math.hypot(*start) >= 2.0)
    m = judge(stream(slide(start=start, duration=duration), fps=fps, phase=phase, table=table, hands=hands))
    assert m.kind == "slide" and m.confidence >= THRESHOLD


@settings(max_examples=60, deadline=None)
@given(tables, st.floats(5, 60), st.floats(0, 0.999), st.sampled_from(["slide", "toss", "placed"]))
def test_moving_or_turning_the_whole_table_changes_nothing(table, fps, phase, kind):
    motion = {"slide": slide(), "toss": toss(), "placed": placed()}[kind]
    here = judge(stream(motion, fps=fps, phase=phase, table=table, hands=True))
    ref = judge(stream(motion, fps=fps, phase=phase, hands=True))
    assert here.kind == ref.kind
    if here.features["observations"] == ref.features["observations"]:
        # (a sighting right at the edge of "at rest" may fall either side once the corners are
        # rounded to 0.1 px: then the measures differ by that sighting, the class does not)
        for k in ("slide", "toss"):
            assert here.scores[k] == pytest.approx(ref.scores[k], abs=0.03)
        for k in ("travelled", "net", "size_growth"):
            assert here.features[k] == pytest.approx(ref.features[k], abs=0.03)


@settings(max_examples=30, deadline=None)
@given(st.floats(10, 60), st.floats(0, 0.999), st.sampled_from(["slide", "toss", "placed"]))
def test_the_frame_rate_does_not_change_the_class(fps, phase, kind):
    motion = {"slide": slide(), "toss": toss(), "placed": placed()}[kind]
    m = judge(stream(motion, fps=fps, phase=phase, hands=True))
    assert m.kind == kind
    if kind != "placed":
        assert m.confidence >= THRESHOLD


def test_corners_model_a_card_closer_to_the_camera_as_bigger():
    low, high = PathPoint.of(0, corners(Table(), Pose(0, 0, 0))), PathPoint.of(0, corners(Table(), Pose(0, 0, 2.0)))
    assert high.size / low.size == pytest.approx(10 / 8, rel=1e-3)
    assert low.length == pytest.approx(100.0, rel=1e-3)


def test_one_outline_too_big_does_not_lift_a_slid_card_off_the_table():
    items = cards_only(stream(slide(), fps=30))
    k = next(i for i, f in enumerate(items) if f.t >= 0.7)  # mid-slide

    def grown(r, by):
        cx, cy = np.mean(np.asarray(r.corners), axis=0)
        return CardReading(
            r.card,
            r.confidence,
            r.face_up,
            r.zone,
            tuple((cx + by * (x - cx), cy + by * (y - cy)) for x, y in r.corners),
        )

    one = items[:k] + [CardsSeen(items[k].t, "cards", (grown(items[k].cards[0], 1.3),), k)] + items[k + 1 :]
    m = judge(one)
    assert m.kind == "slide" and m.confidence >= THRESHOLD
    # Bigger on every sighting of its way, it was in the air.
    every = [
        CardsSeen(f.t, "cards", (grown(f.cards[0], 1.3),), f.frame) if f.cards and 0.4 <= f.t < 0.95 else f
        for f in items
    ]
    assert judge(every).kind == "toss"


def test_a_card_that_glided_with_no_hand_on_it_is_a_doubtful_slide():
    # Flat all the way, but the hands seen never touched it: flicked along the cloth? Asked.
    free = dataclasses.replace(slide(), hand=lambda s: (5.0, 2.0), hand_after=0.0)
    m = judge(stream(free, fps=10, hands=True))
    assert m.features["hand_on_the_way"] is False and m.features["hand_at_landing"] is False
    assert m.kind == "slide" and 0.5 <= m.confidence < THRESHOLD


@pytest.mark.parametrize("fps", [10.0, 30.0])
def test_a_slide_tracked_by_bytetrack_reads_the_same(fps):
    """The card reader's typed detections through the project's tracker (supervision's
    ByteTrack), then the cue: the ids it gives (broken or not by the fast start) change nothing."""
    table = Table()
    zones = table.zones()
    tracker = CardTracker(frame_rate=fps)
    frames = []
    for f in cards_only(stream(slide(), fps=fps, others=[("7C", Pose(-2.0, 1.0))])):
        dets = CardDetections.from_corners([r.corners for r in f.cards], confidence=[0.9] * len(f.cards))
        dets.label[:] = [r.card for r in f.cards]
        dets.label_confidence[:] = 0.9
        dets = tracker.update(dets)
        dets.zone[:] = zones.locate("cards", dets.centers) if len(dets) else []
        frames.append(cards_seen(f.t, "cards", dets, f.frame))
    assert all(r.track_id >= 0 for r in frames[-1].cards)  # both tracked once they lie still
    # ...but on its way the slid card moved too far between frames to be matched by overlap
    assert any(r.card == "AS" and r.track_id < 0 for f in frames for r in f.cards)
    since = next(f.t for f in frames if any(r.card == "AS" and r.zone == "trick" for r in f.cards))
    m = lead_motion([f for f in frames if f.t <= since + 0.5], "trick", "AS", since)
    untracked = judge(stream(slide(), fps=fps, others=[("7C", Pose(-2.0, 1.0))]))
    assert m.kind == "slide" and m.confidence >= THRESHOLD
    assert m.features["travelled"] == pytest.approx(untracked.features["travelled"], abs=0.05)
