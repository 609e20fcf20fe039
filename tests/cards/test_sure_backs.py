"""A French back the detector calls face down stays a back, and a reading held below sure stays
below the table's sure bar once rounded (`vision.observe`)."""

import dataclasses
import inspect

import cv2
import numpy as np
import pytest

from referee.table import stabilize
from tests.cards.helpers import cloth, quad
from vision.cards import real_eval
from vision.cards.decks import card
from vision.cards.detections import CardDetections
from vision.cards.identify import SURE
from vision.cards.reader import NOT_SURE, CardReader
from vision.cards.render import DESIGNS, _hsv_bgr, card_mask, render_card
from vision.observe import cards_seen


def _back(design, border_mm: int = 3) -> np.ndarray:
    img = render_card(card("french52", "back:french"), design).copy()
    m = border_mm * 8
    img[:m] = 255
    img[-m:] = 255
    img[:, :m] = 255
    img[:, -m:] = 255
    return img


def _put(image: np.ndarray, face: np.ndarray, corners: np.ndarray) -> np.ndarray:
    h, w = face.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    size = (image.shape[1], image.shape[0])
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    wmask = cv2.warpPerspective(card_mask(face.shape[:2], 8.0), m, size)
    return np.where(wmask[..., None] > 127, warped, image)


BACKS = {
    "pale plain": dataclasses.replace(DESIGNS["classic"], back_colour=_hsv_bgr(110, 50, 210), back_pattern="plain"),
    "red lattice": DESIGNS["classic"],
}


@pytest.mark.parametrize("face_up", [False, True])
@pytest.mark.parametrize("name", list(BACKS))
def test_a_bordered_back_is_never_a_sure_face(name, face_up):
    corners = quad(480, 360, 300, 10)
    image = _put(cloth(720, 960), _back(BACKS[name]), corners)
    dets = CardDetections.from_corners(corners[None], face_up=[face_up])
    out = CardReader(lambda img: dets.copy(), real_eval.load_deck("french52")).read(image)
    assert len(out) == 1
    if not face_up:
        assert not out.face_up[0]  # called face down, it stays a back
    else:
        # called face up, the index may name a card, never surely (no face matches a back)
        assert out.label[0] is None or round(float(out.label_confidence[0]), 3) < SURE


def test_the_cap_stays_below_sure_once_rounded():
    dets = CardDetections.from_corners(quad(480, 360, 300, 10)[None], face_up=[True])
    dets.label[0] = "JS"
    dets.label_confidence[0] = NOT_SURE
    reading = cards_seen(0.0, "top", dets).cards[0]
    sure_at_the_table = inspect.signature(stabilize.ZoneStabilizer.__init__).parameters["sure_confidence"].default
    assert reading.confidence < sure_at_the_table
    assert reading.confidence < SURE
