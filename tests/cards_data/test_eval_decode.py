"""The evaluation's letterbox and decoding (the layout of docs/card-detector.md)."""

import numpy as np

import eval_card_detector as E


def test_letterbox_matches_the_documented_layout():
    img = np.full((360, 640, 3), 200, np.uint8)
    img[:, :, 0] = 10  # blue in BGR
    blob, r, pad = E.letterbox(img, 320)
    assert blob.shape == (1, 3, 320, 320) and blob.dtype == np.float32
    assert r == 0.5 and pad == (0, 70)
    assert np.isclose(blob[0, 2, 160, 160], 10 / 255)  # RGB order: blue is the last plane
    assert np.isclose(blob[0, 0, 10, 160], 114 / 255)  # grey padding above the picture


def test_decode_maps_boxes_and_corners_back_to_the_frame():
    out = np.zeros((1, 18, 2100), np.float32)
    # one confident face-down card at centre (160, 160) of the input, 40 x 60
    out[0, :4, 5] = [160, 160, 40, 60]
    out[0, 5, 5] = 0.9
    out[0, 6:18, 5] = [140, 130, 0.9, 180, 130, 0.9, 180, 190, 0.2, 140, 190, 0.9]
    out[0, :4, 6] = [161, 160, 40, 60]  # a duplicate that NMS removes
    out[0, 5, 6] = 0.8
    out[0, 4, 7] = 0.1  # below the threshold
    dets = E.decode(out, 0.5, (0, 70), conf=0.25)
    assert len(dets) == 1
    cls, score, box, corners, vis = dets[0]
    assert cls == 1 and np.isclose(score, 0.9)
    assert np.allclose(box, [280, 120, 360, 240])
    assert np.allclose(corners, [[280, 120], [360, 120], [360, 240], [280, 240]])
    assert np.allclose(vis, [0.9, 0.9, 0.2, 0.9])


def _det(score, box):
    return (0, score, np.array(box, float), np.zeros((4, 2)), np.ones(4))


def test_matching_gives_each_detection_to_the_card_it_overlaps_most():
    # two cards of a tight fan; the first card's box also overlaps the second card's detection
    gt = [np.array([0, 0, 100, 150.0]), np.array([20, 0, 120, 150.0])]
    dets = [_det(0.9, [20, 0, 120, 150]), _det(0.8, [0, 0, 100, 150])]
    assert E.match_detections(gt, dets) == {1: 0, 0: 1}
    # a detection counts once: the weaker duplicate finds no free card
    assert E.match_detections(gt[:1], [_det(0.9, [0, 0, 100, 150]), _det(0.5, [2, 0, 100, 150])]) == {0: 0}
    assert E.match_detections(gt, [_det(0.9, [300, 300, 350, 350])]) == {}
