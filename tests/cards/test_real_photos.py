"""Real photos of real cards (tests/fixtures/cards, MIT, see ATTRIBUTION.md): every card is found.

The truth is each card's centre, read off the pictures by eye; a card is found when a face-up
detection's corner quadrilateral contains its centre. The feliksh screenshots carry that
project's green overlay boxes and a grid of card names at the bottom: distractors, not cards.
"""

import json

import cv2
import numpy as np
import pytest

from vision.cards.detector import CardDetector
from tests.cards.helpers import FIXTURES

CARDS = {  # file: [(name, centre x, centre y)], from fixtures/cards/cards.json
    name: [(c["card"], c["x"], c["y"]) for c in cards]
    for name, cards in json.loads((FIXTURES / "cards.json").read_text())["cards"].items()
}



@pytest.fixture(scope="module")
def detector():
    return CardDetector()


def misses(detector, name):
    image = cv2.imread(str(FIXTURES / name))
    assert image is not None
    found = detector(image)
    up = found[found.face_up]
    out = []
    for card, x, y in CARDS[name]:
        inside = [cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(x), float(y)), False) >= 0 for q in up.corners]
        if not any(inside):
            out.append(card)
    return out, found


@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_real_card_is_found(detector, name):
    missed, found = misses(detector, name)
    assert not missed, f"{name}: missed {missed}; found {len(found)} cards at {np.round(found.centers).tolist()}"
