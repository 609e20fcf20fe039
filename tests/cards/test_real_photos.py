"""Real photos of real cards (tests/fixtures/cards, MIT, see ATTRIBUTION.md): every card is found.

The truth is each card's centre, read off the pictures by eye; a card is found when a face-up
detection's corner quadrilateral contains its centre. The feliksh screenshots carry that
project's green overlay boxes and a grid of card names at the bottom: distractors, not cards.
"""

import cv2
import numpy as np
import pytest

from vision.cards.detector import CardDetector
from tests.cards.helpers import FIXTURES

CARDS = {  # file: [(name, centre x, centre y)]
    "feliksh_screenshot1.png": [("8D under a hand", 165, 155), ("JS", 290, 150), ("5H", 425, 150)],
    "feliksh_screenshot2.png": [("2C", 250, 90), ("10H", 368, 95), ("2H", 480, 160), ("QH", 278, 205)],
    "feliksh_screenshot3.png": [("KC", 318, 135)],
    "feliksh_screenshot4.png": [("AS", 268, 165), ("KC", 425, 170)],
    "geaxgx_scene_2c.png": [("2C", 352, 340)],
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
