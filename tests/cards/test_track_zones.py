"""Tracking across frames (a card keeps its id and its name under a passing hand) and zones."""

import json

import numpy as np
import pytest

from tests.cards.helpers import quad
from vision.cards.detections import CardDetections
from vision.cards.track import CardTracker
from vision.cards.zones import CENTRE, HENHOUSES, BadLayout, TableLayout


def frame(cards):
    """cards: [(cx, cy, label or None, confidence)]"""
    if not cards:
        return CardDetections.empty()
    d = CardDetections.from_corners([quad(cx, cy, 120) for cx, cy, _, _ in cards], confidence=[0.9] * len(cards))
    for i, (_, _, label, conf) in enumerate(cards):
        d.label[i] = label
        d.label_confidence[i] = conf if label else 0.0
    return d


def test_a_card_keeps_its_track_and_name_under_a_passing_hand():
    tracker = CardTracker(frame_rate=10)
    ids_a, ids_b, labels_a = [], [], []
    for t in range(40):
        a = (300, 300, "7C", 0.9)
        b = (600 + t * 2, 300, "RB", 0.9)  # a card slid slowly across the table
        if 10 <= t < 18:
            cards = [b]  # the hand hides card a entirely for 0.8 s
        elif 18 <= t < 22:
            cards = [(300, 300, None, 0.0), b]  # half covered: seen, not read
        else:
            cards = [a, b]
        out = tracker.update(frame(cards))
        for i in range(len(out)):
            if out.centers[i][0] < 450:
                ids_a.append(int(out.track_id[i]))
                labels_a.append(out.label[i])
            else:
                ids_b.append(int(out.track_id[i]))
    assert len(set(ids_a)) == 1 and ids_a[0] >= 1
    assert len(set(ids_b)) == 1 and ids_b[0] != ids_a[0]
    assert labels_a == ["7C"] * len(labels_a)  # the covered frames report the remembered name
    assert tracker.summary()[ids_a[0]]["label"] == "7C"


def test_empty_frames_are_fine():
    tracker = CardTracker()
    assert len(tracker.update(CardDetections.empty())) == 0


def test_default_layout_places_cards():
    layout = TableLayout.default(["Anna", "Bruno", "Carla", "Dario"])
    size = (1000, 1000)
    d = frame(
        [
            (500, 440, None, 0),
            (500, 600, None, 0),
            (500, 950, None, 0),
            (50, 500, None, 0),
            (500, 50, None, 0),
            (950, 500, None, 0),
        ]
    )
    out = layout.assign(d, size)
    assert out.zone.tolist() == [HENHOUSES, CENTRE, "Anna", "Bruno", "Carla", "Dario"]


def test_layout_from_json_with_table_corners(tmp_path):
    doc = {
        "table_corners": [[100, 100], [900, 100], [900, 700], [100, 700]],
        "zones": [{"name": "pile", "polygon": [[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5]]}],
    }
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    layout = TableLayout.load(p)
    out = layout.assign(frame([(200, 200, None, 0), (800, 600, None, 0)]), (1000, 800))
    assert out.zone.tolist() == ["pile", None]
    assert layout.to_table(np.array([[500, 400]]), (1000, 800))[0] == pytest.approx([0.5, 0.5])
    with pytest.raises(BadLayout):
        TableLayout.from_dict({"zones": [{"name": "x", "polygon": [[0, 0], [1, 1]]}]})
    with pytest.raises(BadLayout):
        TableLayout.load(tmp_path / "missing.json")


def test_a_card_that_first_appears_after_the_first_frame_gets_a_track():
    """supervision answers an empty result, without our index column, while a new card is not
    yet a track (its first sighting after frame 1): the tracker used to die with KeyError."""
    tracker = CardTracker(frame_rate=10)
    assert len(tracker.update(frame([]))) == 0
    first = tracker.update(frame([(300, 300, "7C", 0.9)]))
    assert list(first.track_id) == [-1]  # seen once: not a track yet, but no crash
    ids = [int(tracker.update(frame([(300, 300, "7C", 0.9)])).track_id[0]) for _ in range(3)]
    assert ids[0] >= 1 and len(set(ids)) == 1
