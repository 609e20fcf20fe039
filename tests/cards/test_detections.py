import numpy as np
import pytest

from tests.cards.helpers import quad
from vision.cards.detections import UNKNOWN, CardDetections
from vision.cards.geometry import fold_orientation, orientation_of


def three():
    d = CardDetections.from_corners(
        [quad(100, 100, 80), quad(300, 100, 80, 90), quad(500, 300, 80, 180)],
        confidence=[0.9, 0.3, 0.6],
        face_up=[True, True, False],
    )
    d.label[0] = "7C"
    d.label_confidence[0] = 0.95
    return d


def test_orientation_convention():
    # 0 upright, 90 top to the right, 180 upside down, 270 top to the left
    assert orientation_of([quad(0, 0, 50, a) for a in (0, 90, 180, 270)]) == pytest.approx([0, 90, 180, 270], abs=1e-3)
    assert fold_orientation([0, 90, 180, 270, 359]) == pytest.approx([0, -90, 0, -90, -1], abs=1e-3)


def test_indexing_and_filters_keep_every_field_aligned():
    d = three()
    assert len(d) == 3
    assert d.face_up.tolist() == [True, True, False]
    assert d.orientation == pytest.approx([0, 90, 180], abs=1e-3)
    confident = d.with_confidence(0.5)
    assert len(confident) == 2 and confident.label.tolist() == ["7C", None]
    assert d.known().label.tolist() == ["7C"]
    assert len(d.labelled("7C")) == 1 and len(d.labelled("3D")) == 0
    one = d[2]
    assert len(one) == 1 and not one.face_up[0] and one.orientation[0] == pytest.approx(180, abs=1e-3)
    assert len(d[d.face_up]) == 2 and len(d[1:]) == 2 and len(d[np.array([2, 0])]) == 2
    assert len(CardDetections.merge([d, d[0]])) == 4
    assert [len(x) for x in d] == [1, 1, 1]


def test_geometry_and_output():
    d = three()
    box = d.xyxy[0]
    assert box[0] < 100 < box[2] and box[1] == pytest.approx(60) and box[3] == pytest.approx(140)
    assert d.centers[1] == pytest.approx([300, 100], abs=1e-3)
    assert d.area[0] == pytest.approx(80 * 80 * 63 / 88, rel=1e-3)
    out = d.to_dicts()
    assert out[0]["label"] == "7C" and out[1]["label"] == UNKNOWN
    assert out[0]["track_id"] is None and out[2]["face_up"] is False
    assert len(out[0]["corners"]) == 4
    empty = CardDetections.empty()
    assert len(empty) == 0 and empty.xyxy.shape == (0, 4) and empty.to_dicts() == []


def test_copy_is_independent():
    d = three()
    c = d.copy()
    c.label[0] = "1D"
    c.corners[0, 0, 0] = -5
    assert d.label[0] == "7C" and d.corners[0, 0, 0] != -5
