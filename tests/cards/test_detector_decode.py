"""Decoding of the Ultralytics pose layout on made-up outputs, and the shipped model's layout."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.cards.helpers import assert_runs_without_torch, quad
from vision.cards import detector as D

REAL_WEBCAM_FRAME = Path(__file__).resolve().parents[1] / "fixtures" / "cards_real" / "edje" / "cam_image2.jpg"

NC, NK = 2, 4


def raw_output(cands, n_anchors=50):
    """(1, 4 + 2 + 12, N): cands = [(corners 4x2, class, score)] in input pixels."""
    out = np.zeros((1, 4 + NC + NK * 3, n_anchors), np.float32)
    out[0, 4:6] = 0.01
    for i, (corners, cls, score) in enumerate(cands):
        x0, y0 = corners.min(0)
        x1, y1 = corners.max(0)
        out[0, :4, i] = [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0]
        out[0, 4 + cls, i] = score
        out[0, 6:, i] = np.concatenate([corners, np.full((4, 1), 0.9)], axis=1).ravel()
    return out


def test_decode_keeps_best_of_overlapping_and_both_of_separate():
    a = quad(100, 100, 80)
    b = quad(220, 120, 80, 30)
    raw = raw_output([(a, 0, 0.9), (a + 2, 0, 0.6), (b, 1, 0.8), (b + 50, 0, 0.1)])
    boxes, scores, cls, kpts = D.decode_pose(raw, NC, (NK, 3), conf=0.25, iou=0.6)
    assert scores.tolist() == pytest.approx([0.9, 0.8])
    assert cls.tolist() == [0, 1]
    assert kpts.shape == (2, 4, 3)
    np.testing.assert_allclose(kpts[0, :, :2], a, atol=1e-4)
    np.testing.assert_allclose(boxes[1], [*b.min(0), *b.max(0)], atol=1e-3)


def test_decode_nothing_above_threshold():
    boxes, scores, cls, kpts = D.decode_pose(raw_output([]), NC, (NK, 3), conf=0.25)
    assert len(boxes) == len(scores) == len(cls) == 0 and kpts.shape == (0, 4, 3)


def test_decode_rejects_a_foreign_layout():
    with pytest.raises(D.ModelMismatch):
        D.decode_pose(np.zeros((1, 84, 100), np.float32), NC, (NK, 3))


def test_end_to_end_layout():
    raw = np.zeros((1, 300, 6 + 12), np.float32)
    raw[0, 0, :6] = [10, 20, 50, 90, 0.8, 1]
    raw[0, 0, 6:] = np.arange(12)
    boxes, scores, cls, kpts = D.decode_end2end(raw, (4, 3), conf=0.25)
    assert scores.tolist() == pytest.approx([0.8]) and cls.tolist() == [1] and kpts[0, 1, 0] == 3


def test_letterbox_matches_ultralytics_and_maps_back():
    img = np.zeros((720, 1280, 3), np.uint8)
    padded, r, (px, py) = D.letterbox(img, (320, 320))
    assert padded.shape == (320, 320, 3)
    assert r == pytest.approx(0.25) and px == 0 and py == 70
    assert padded[0, 0].tolist() == [114, 114, 114] and padded[160, 160].tolist() == [0, 0, 0]
    t = D.to_tensor(padded)
    assert t.shape == (1, 3, 320, 320) and t.dtype == np.float32 and t.max() <= 1.0


def test_nms_and_iou():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], np.float32)
    assert D.box_iou(boxes[:1], boxes[:1])[0, 0] == pytest.approx(1.0)
    assert D.nms(boxes, np.array([0.5, 0.9, 0.7]), 0.5).tolist() == [1, 2]


def test_order_corners_short_edge_first_and_clockwise():
    q = quad(100, 100, 80)
    shuffled = q[[2, 0, 3, 1]]
    out = D.order_corners(shuffled)[0]
    np.testing.assert_allclose(out, q, atol=1e-4)  # no hint: top edge faces up
    hinted = D.order_corners(shuffled, hint=np.roll(q, -2, axis=0)[None])[0]
    np.testing.assert_allclose(hinted, np.roll(q, -2, axis=0), atol=1e-4)
    lying = quad(100, 100, 80, 90)  # a card turned a quarter: its short edge is vertical
    out = D.order_corners(lying[[1, 2, 3, 0]])[0]
    sides = np.linalg.norm(out - np.roll(out, -1, axis=0), axis=1)
    assert sides[0] < sides[1]


def test_face_up_from_class_names():
    assert D.face_up_classes({0: "card_face_up", 1: "card_face_down"}).tolist() == [True, False]
    assert D.face_up_classes({0: "back", 1: "card"}).tolist() == [False, True]


def test_missing_model_is_a_named_error(tmp_path):
    with pytest.raises(D.ModelNotFound):
        D.CardDetector(tmp_path / "nope.onnx")


def test_shipped_model_layout_and_no_torch():
    """The shipped model loads with onnxruntime alone: its metadata gives two classes and four
    corner keypoints, a frame decodes, and torch is never imported (fresh interpreter)."""
    code = (
        "import sys, numpy as np\n"
        "from vision.cards.detector import CardDetector\n"
        "d = CardDetector()\n"
        "assert d.names == {0: 'card_face_up', 1: 'card_face_down'}, d.names\n"
        "assert d.kpt_shape == (4, 3) and not d.end2end\n"
        "r = d(np.full((720, 1280, 3), 90, np.uint8))\n"
        "assert r.corners.shape[1:] == (4, 2)\n"
    )
    assert_runs_without_torch(code)


def test_collapsed_keypoints_give_way_to_the_box():
    """Keypoints gathered on a picture inside the card (their quad a sliver of the box, seen on
    a real photo) are replaced by the box's corners; sound keypoints are kept."""
    det = D.CardDetector()
    boxes = np.array([[100, 100, 200, 250], [300, 100, 400, 250]], np.float32)
    kpts = np.zeros((2, 4, 3), np.float32)
    kpts[0, :, :2] = [[148, 170], [152, 170], [152, 176], [148, 176]]  # collapsed
    kpts[1, :, :2] = [[310, 110], [390, 112], [392, 240], [308, 238]]  # a card
    out = det.to_detections(boxes, np.array([0.8, 0.9], np.float32), np.array([0, 0]), kpts, 1.0, (0, 0), (480, 640))
    assert np.allclose(
        np.sort(out.corners[0].reshape(-1)),
        np.sort(np.array([[100, 100], [200, 100], [200, 250], [100, 250]], np.float32).reshape(-1)),
    )
    assert np.allclose(out.corners[1].mean(axis=0), kpts[1, :, :2].mean(axis=0))


def test_a_dynamic_model_takes_a_wide_frame_at_a_wide_input_and_others_square():
    det = object.__new__(D.CardDetector)
    det.imgsz, det.stride, det.dynamic = (480, 480), 32, True
    assert det.input_size((720, 1280)) == (288, 480)  # as Ultralytics' predict letterboxes it
    assert det.input_size((540, 960)) == det.input_size((360, 640)) == (288, 480)
    assert det.input_size((600, 1000)) == (288, 480)  # 5:3, the narrowest frame called wide
    assert det.input_size((601, 1000)) == (480, 480)
    assert det.input_size((504, 378)) == (480, 480)  # a phone's portrait photo
    assert det.input_size((480, 640)) == (480, 480)  # 4:3
    assert det.input_size((1280, 720)) == (480, 480)  # a camera turned upright
    det.dynamic = False
    assert det.input_size((720, 1280)) == (480, 480)


def test_the_shipped_model_reads_a_wide_frame_at_the_wide_input_as_it_reads_it_square():
    det = D.CardDetector(threads=1)
    assert det.dynamic and det.imgsz == (480, 480) and det.input_size((720, 1280)) == (288, 480)
    assert det.session.input_shape == (None, 3, None, None)
    # the same weights at either input: a 16:9 real webcam frame of four cards gives the same cards
    frame = cv2.imread(str(REAL_WEBCAM_FRAME))
    assert frame.shape[:2] == (450, 800)  # 16:9
    wide = det(frame)
    det.dynamic = False
    square = det(frame)
    assert len(wide) == len(square) == 4
    iou = D.box_iou(wide.xyxy, square.xyxy)
    assert (iou.max(axis=1) >= 0.75).all() and len(set(iou.argmax(axis=1))) == 4  # one to one
    assert (wide.face_up == square.face_up[iou.argmax(axis=1)]).all()


def square(x, y, side):
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float32)


def test_a_part_of_a_card_inside_the_whole_card_is_dropped():
    whole, part = square(0, 0, 100), square(20, 20, 40)
    keep = D.drop_fragments(np.stack([whole, part]), np.array([0.9, 0.8]))
    assert keep.tolist() == [True, False]


def test_cards_of_a_pile_or_a_fan_are_kept():
    """Two cards of the same size overlapping heavily (a closed fan), a card beside another, and a
    part inside a box scored much lower than it: none is a fragment."""
    fan = np.stack([square(0, 0, 100), square(5, 5, 100)])
    assert D.drop_fragments(fan, np.array([0.9, 0.9])).all()
    apart = np.stack([square(0, 0, 100), square(150, 0, 40)])
    assert D.drop_fragments(apart, np.array([0.9, 0.9])).all()
    weak_whole = np.stack([square(0, 0, 100), square(20, 20, 40)])
    assert D.drop_fragments(weak_whole, np.array([0.3, 0.9])).all()


def test_detector_drops_fragments_only_when_asked():
    det = D.CardDetector(threads=1)
    boxes = np.array([[0, 0, 100, 100], [20, 20, 60, 60]], np.float32)
    kpts = np.zeros((2, 4, 3), np.float32)
    kpts[0, :, :2], kpts[1, :, :2] = square(0, 0, 100), square(20, 20, 40)
    args = (np.array([0.9, 0.8], np.float32), np.array([0, 0]), kpts, 1.0, (0, 0), (480, 640))
    assert len(det.to_detections(boxes, *args)) == 2  # off by default: the model's detections as they are
    det.post = True
    assert len(det.to_detections(boxes, *args)) == 1
