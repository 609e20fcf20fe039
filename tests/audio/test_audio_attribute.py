"""Attribution of a sound to the seat whose mouth is moving."""

import pytest

from referee.observations import SignalEvent
from vision.audio.attribute import attribute, overlaps


def mouth(player, start, end):
    return SignalEvent(player, "mouth_moving", start, end, 0.9)


HUM = SignalEvent("unknown", "hum", 10.0, 14.0, 0.8, {"features": {}})


def test_one_mouth_moving():
    (ev,) = attribute([HUM], [mouth("anna", 9.5, 13.0), mouth("bruno", 20, 22)])
    assert ev.player == "anna"
    assert ev.evidence["who"]["attribution"] == "mouth moving"
    assert ev.evidence["features"] == {}  # earlier evidence is kept


def test_nobody():
    (ev,) = attribute([HUM], [mouth("bruno", 20, 22)])
    assert ev.player == "unknown"
    assert ev.evidence["who"] == {"candidates": {}, "mouth_overlap_s": {}, "attribution": "nobody's mouth moving"}


def test_several():
    (ev,) = attribute([HUM], [mouth("anna", 10, 13), mouth("bruno", 11, 14)])
    assert ev.player == "unknown"
    assert ev.evidence["who"]["attribution"] == "several mouths moving"
    assert ev.evidence["who"]["candidates"] == {"anna": 3.0, "bruno": 3.0}


def test_one_clearly_more_than_another():
    (ev,) = attribute([HUM], [mouth("anna", 10, 14), mouth("bruno", 13, 14)])
    assert ev.player == "anna" and ev.evidence["who"]["attribution"] == "mouth moving most"


def test_a_brief_twitch_is_not_a_candidate():
    (ev,) = attribute([HUM], [mouth("anna", 13.9, 14.1)])
    assert ev.player == "unknown"
    assert ev.evidence["who"]["mouth_overlap_s"] == {"anna": pytest.approx(0.1)}


def test_intervals_of_one_seat_add_up_and_other_signals_are_ignored():
    ms = [
        mouth("anna", 10, 10.5),
        mouth("anna", 11, 11.5),
        mouth("anna", 12, 12.5),
        SignalEvent("bruno", "touch_nose_left", 10, 14, 0.9),
    ]
    assert overlaps(HUM, ms) == {"anna": pytest.approx(1.5)}
    assert attribute([HUM], ms)[0].player == "anna"
    # short moves that add up to under a quarter of the hum do not make a candidate
    assert attribute([HUM], ms[:1] + ms[3:])[0].player == "unknown"
