"""Every signal on landmark streams built from real MediaPipe landmarks (see signal_streams):
positives for each side and three body sizes/positions, near misses, the other hand or eye."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from signal_streams import (
    Body,
    _tap_case,
    builders,
    card_quad,
    free_demonstrations,
    free_stream,
    match_events,
    score,
    seat_calibration,
    suite,
)

from referee.signal_cards import SIGNAL_CARDS
from vision.signals.catalogue import MOUTH_MOVING, CatalogueError, default_catalogue, load_catalogue
from vision.signals.detectors import runs
from vision.signals.engine import detect_signals, seat_series
from vision.signals.free import FreeSignal, FreeSignalError

BUILDERS = builders()


@pytest.mark.parametrize("build", [b for _, b in BUILDERS], ids=[n for n, _ in BUILDERS])
def test_stream_case(build):
    case = build()
    events = detect_signals(case.frames, case.calibration, card_frames=case.card_frames)
    tps, fps, misses = match_events(case, events)
    assert not misses, f"{case.name}: missed {misses}; got {[(e.signal, e.start, e.end) for e in events]}"
    assert not fps, f"{case.name}: false events {[(e.signal, e.start, e.end) for e in fps]}"
    for exp, ev in tps:
        assert abs(ev.start - exp[2]) <= 0.35 and abs(ev.end - exp[3]) <= 0.35, (exp, ev)
        if case.unsure:  # found, and honestly flagged: only Pose's coarse hand points saw it
            assert ev.unsure and 0.4 <= ev.confidence < 0.8 and ev.evidence["hand_frames"] == 0, ev
        else:
            assert not ev.unsure and ev.confidence >= 0.6, ev
        assert ev.player == "ana" and ev.evidence["frames"][0] <= ev.evidence["frames"][1]
    # nothing else fires either: a touch is not also a raise, a wink not also a mouth movement
    expected = {e[1] for e in case.expected}
    assert [e.signal for e in events if e.signal not in expected] == []


def test_precision_recall_and_delay_on_the_whole_suite():
    stats = score(suite())
    body = {c.id for c in SIGNAL_CARDS if c.cue != "audio"} | {MOUTH_MOVING}
    assert body <= set(stats), f"signals without a case: {body - set(stats)}"
    for sig, s in stats.items():
        assert s["precision"] == 1.0 and s["recall"] == 1.0, (sig, s)
        assert s["median_delay_s"] is not None and -0.5 < s["median_delay_s"] < 1.0, (sig, s)


def test_a_touch_between_chin_and_mouth_is_unsure():
    from signal_streams import _touch_case

    b = Body.make()
    tg = b.targets()
    # the index tip near the lips, the curled fingers on the chin: both nearly as close
    mid = (tg["chin"] * 0.3 + tg["mouth"] * 0.7 - tg["chin"]) / b.iod
    case = _touch_case("base", "right", "chin", offset=tuple(mid), expected=[])
    events = [e for e in detect_signals(case.frames, case.calibration) if e.signal.startswith("touch")]
    assert events and all(e.unsure and e.evidence["ambiguous_with_next"] for e in events)


def test_one_tap_is_reported_as_unsure():
    case = _tap_case("base", "right", taps=(1.5,))
    events = [e for e in detect_signals(case.frames, case.calibration) if e.signal == "tap_table_right"]
    assert len(events) == 1 and events[0].unsure and events[0].evidence["taps"] == 1


def test_no_table_line_means_no_elbow_or_tap_signal():
    case = _tap_case("base", "left")
    import dataclasses

    seat = dataclasses.replace(case.calibration.seats[0], table_line=None)
    calib = dataclasses.replace(case.calibration, seats=(seat,))
    assert [e for e in detect_signals(case.frames, calib) if e.signal.startswith(("tap", "rest"))] == []
    assert any("no table line" in p for p in calib.status())


def test_two_players_each_get_their_own_events():
    a, b = Body.make(scale=0.8, origin=(480.0, 300.0)), Body.make(scale=0.8, origin=(1440.0, 300.0))
    from signal_streams import lerp, ramp, stream

    def make(t):
        k = ramp(t, 1.0, 2.4)
        hands_a = {
            "left": lerp(a.rest_hand("left"), a.hand_at("left", 8, a.targets()["nose"]), k),
            "right": a.rest_hand("right"),
        }
        hands_b = {"left": b.rest_hand("left"), "right": b.rest_hand("right")}
        return [a.person("ana", hands_a, t=t), b.person("bruno", hands_b, t=t)]

    frames = stream(3.4, make)
    events = detect_signals(frames, seat_calibration({"ana": a, "bruno": b}))
    assert [(e.player, e.signal) for e in events] == [("ana", "touch_nose_left")]


def test_catalogue_covers_every_visual_signal_card():
    cat = default_catalogue()
    visual = {c.id for c in SIGNAL_CARDS if c.cue != "audio"}
    assert visual | {MOUTH_MOVING} == set(cat.ids)
    for spec in cat.signals:
        assert spec.cue and spec.evidence and spec.min_dwell >= 0


def test_bad_catalogue_is_a_named_error(tmp_path):
    bad = tmp_path / "cat.json"
    bad.write_text(
        '{"format": "signal-catalogue/1", "face_contact_radius": {}, "signals": '
        '[{"id": "touch_nose_left", "cue": "x", "detector": "telepathy", "params": {}, '
        '"min_dwell": 0, "max_gap": 0}]}'
    )
    with pytest.raises(CatalogueError, match="unknown detector"):
        load_catalogue(bad)
    with pytest.raises(CatalogueError, match="unknown signal ids"):
        default_catalogue().only(["touch_toes"])


def test_cards_from_the_card_readers_type():
    import vision.cards.detections as cards_mod

    build = dict(BUILDERS)["cards-middle-flipped"]
    case = build()
    converted = {}
    for seat, frames in case.card_frames.items():
        out = []
        for t, sightings in frames:
            if sightings:
                det = cards_mod.CardDetections.from_corners(np.stack([s.corners for s in sightings]))
                det.orientation[:] = [s.orientation for s in sightings]
            else:
                det = cards_mod.CardDetections.empty()
            out.append((t, det))
        converted[seat] = out
    events = detect_signals(case.frames, case.calibration, card_frames=converted)
    assert [e.signal for e in events] == ["cards_middle_upside_down"]


def test_card_quads_modulo_180_cannot_show_an_upside_down_middle():
    from vision.signals.cards import CardSighting, middle_flipped

    cards = [CardSighting(card_quad((100 * k, 0), 0, 50, 80), True, o) for k, o in enumerate((0.0, -89.0, 0.0))]
    assert not middle_flipped(cards, 135)
    cards = [CardSighting(card_quad((100 * k, 0), 0, 50, 80), True, o) for k, o in enumerate((0.0, 180.0, 0.0))]
    assert middle_flipped(cards, 135)


# -- Free Signal ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def learnt() -> FreeSignal:
    calib = seat_calibration({"ana": Body.make()})
    return FreeSignal.learn([seat_series(d, calib, "ana") for d in free_demonstrations(3)], name="salute")


def test_free_signal_found_where_performed(learnt):
    frames, calib = free_stream(with_salute=True)
    events = [e for e in detect_signals(frames, calib, free=learnt) if e.signal == "free"]
    assert len(events) == 1
    assert 3.0 <= events[0].start <= 3.8 and 4.4 <= events[0].end <= 5.2, events[0]
    assert events[0].evidence["dtw_cost"] < events[0].evidence["threshold"]


def test_free_signal_rejects_another_gesture(learnt):
    frames, calib = free_stream(with_salute=False)
    assert [e for e in detect_signals(frames, calib, free=learnt) if e.signal == "free"] == []


def test_free_signal_save_load_and_demonstration_count(learnt, tmp_path):
    path = tmp_path / "salute.json"
    learnt.save(path)
    again = FreeSignal.load(path)
    assert again.threshold == pytest.approx(learnt.threshold) and len(again.templates) == 3
    calib = seat_calibration({"ana": Body.make()})
    demos = [seat_series(d, calib, "ana") for d in free_demonstrations(2)]
    with pytest.raises(FreeSignalError, match="3 to 5"):
        FreeSignal.learn(demos)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(FreeSignalError):
        FreeSignal.load(tmp_path / "bad.json")


# -- the interval machine -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80), st.floats(0.0, 1.0), st.floats(0.0, 0.5))
def test_runs_are_ordered_disjoint_and_long_enough(on, dwell, gap):
    t = np.arange(len(on)) / 10.0
    rs = runs(t, np.array(on), dwell, gap)
    prev_end = -1
    for r in rs:
        assert prev_end < r.i0 <= r.i1 <= r.decided < len(on)
        assert on[r.i0] and on[r.i1]
        if len(on) > 1:
            assert t[r.i1] - t[r.i0] + 0.1 >= dwell - 1e-9
        prev_end = r.i1
    # every on frame lies in a run, unless its run was too short
    if dwell == 0.0:
        covered = set()
        for r in rs:
            covered.update(range(r.i0, r.i1 + 1))
        assert {i for i, v in enumerate(on) if v} <= covered


def test_speaking_seats_rank_by_overlap():
    from referee.observations import SignalEvent
    from vision.signals.engine import speaking_seats

    events = [
        SignalEvent("ana", "mouth_moving", 1.0, 3.0, 0.9),
        SignalEvent("bruno", "mouth_moving", 2.5, 6.0, 0.9),
        SignalEvent("carla", "touch_nose_left", 0.0, 9.0, 0.9),
    ]
    assert speaking_seats(events, 2.0, 4.0) == [("bruno", 1.5), ("ana", 1.0)]
    assert speaking_seats(events, 7.0, 8.0) == []
    assert speaking_seats(events, 2.0, 2.0) == [("ana", 0.0)]
