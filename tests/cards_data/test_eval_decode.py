"""The evaluation's letterbox and decoding (the layout of docs/card-detector.md)."""

import numpy as np

from vision.cards import detector_eval as E
from vision.cards import scenes as G
from vision.cards.detector import DEFAULT_MODEL


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


def test_breakdown_and_thresholds_account_for_every_face_up_card(tmp_path):
    # the shipped model on a few held-out scenes: every face-up card lands in one group of each
    # kind, and the sweep at the evaluation's own threshold repeats its headline numbers
    G.write_dataset(tmp_path / "d", {"test": 4}, seed=3, width=640, progress=False)
    res = E.evaluate(
        DEFAULT_MODEL,
        tmp_path / "d" / "data.yaml",
        imgsz=E.model_input_size(DEFAULT_MODEL),
        with_ultralytics=False,
        sweep=(0.25, 0.5, 0.9),
    )
    assert res["face_up_cards"] > 0
    for kind in ("background", "deck", "short_side", "visible"):
        groups = res["recall_face_up_by"][kind]
        assert sum(g["cards"] for g in groups.values()) == res["face_up_cards"], kind
        found = sum(round(g["recall"] * g["cards"]) for g in groups.values())
        assert found == round(res["recall_face_up"] * res["face_up_cards"]), kind
    assert set(res["recall_face_up_by"]["background"]) <= set(G.TEST_BACKGROUNDS)
    assert res["at_conf"]["0.25"] == {"recall_face_up": res["recall_face_up"], "precision": res["precision"]}
    recalls = [res["at_conf"][t]["recall_face_up"] for t in ("0.25", "0.5", "0.9")]
    assert recalls == sorted(recalls, reverse=True)


def test_filtering_after_nms_equals_decoding_at_the_higher_threshold():
    rng = np.random.default_rng(0)
    out = np.zeros((1, 18, 400), np.float32)
    centres = rng.uniform(40, 280, (400, 2))
    out[0, 0:2] = centres.T
    out[0, 2:4] = rng.uniform(20, 80, (2, 400))  # many overlapping boxes
    out[0, 4] = rng.uniform(0, 1, 400)
    out[0, 6:18] = rng.uniform(0, 320, (12, 400))
    low = E.decode(out, 1.0, (0, 0), conf=0.2)
    high = E.decode(out, 1.0, (0, 0), conf=0.5)
    kept = [d for d in low if d[1] >= 0.5]
    assert len(high) > 5
    assert sorted(d[1] for d in kept) == sorted(d[1] for d in high)
