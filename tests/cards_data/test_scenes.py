"""The synthetic scene generator: labels agree with the geometry, held-out data stays held out."""

import json
import math

import cv2
import numpy as np
import pytest

from scripts import make_card_dataset
from vision.cards import render as R
from vision.cards import scenes as G


def _scenes(split, n, seed=7):
    rng = np.random.default_rng(seed)
    return [G.render_scene(rng, split, 320) for _ in range(n)]


@pytest.fixture(scope="module")
def train_scenes():
    return _scenes("train", 12)


def test_labels_agree_with_geometry(train_scenes):
    total = 0
    for img, labels, info in train_scenes:
        h, w = img.shape[:2]
        assert img.dtype == np.uint8 and img.ndim == 3
        assert len(labels) == len(info["cards"])
        for (cls, corners, vis), meta in zip(labels, info["cards"]):
            total += 1
            assert cls in (0, 1)
            assert (cls == 1) == meta["id"].startswith("back:")
            assert corners.shape == (4, 2)
            assert (corners[:, 0] >= 0).all() and (corners[:, 0] < w).all()
            assert (corners[:, 1] >= 0).all() and (corners[:, 1] < h).all()
            assert set(vis) <= {1, 2}
            assert meta["visible"] >= G.MIN_VISIBLE
            # a card is a convex quadrilateral, corners in order (no self-crossing)
            cross = [
                np.cross(corners[(k + 1) % 4] - corners[k], corners[(k + 2) % 4] - corners[(k + 1) % 4])
                for k in range(4)
            ]
            assert all(c > 0 for c in cross) or all(c < 0 for c in cross)
            # the YOLO line round-trips, and the box is the corners' bounding box
            c2, box, kp, vis2 = G.parse_label_line(G.yolo_line(cls, corners, vis, w, h))
            assert c2 == cls and vis2 == list(vis)
            assert np.allclose(kp * [w, h], corners, atol=0.01)
            x0, y0 = corners.min(0) / [w, h]
            x1, y1 = corners.max(0) / [w, h]
            assert np.allclose(box, [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], atol=1e-5)
            if meta["symmetric"]:  # canonical order: the top edge is the upper one
                assert corners[:2, 1].mean() <= corners[2:, 1].mean() + 1e-6
            # the card's short edge is its top edge (portrait card: 0-1 shorter than 1-2)
            top = np.linalg.norm(corners[1] - corners[0])
            side = np.linalg.norm(corners[2] - corners[1])
            assert top < side * 1.25
    assert total >= 10


def test_a_label_lies_on_its_card():
    # one card alone on a flat background: the labelled quadrilateral is where the image changed
    rng = np.random.default_rng(3)
    for _ in range(30):
        img, labels, info = G.render_scene(rng, "train", 320)
        if len(labels) == 1 and info["cards"][0]["visible"] > 0.95:
            break
    else:
        pytest.fail("no single visible card in 30 scenes")
    _, corners, vis = labels[0]

    inside = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.round(corners).astype(np.int32)], 1)
    shrunk = cv2.erode(inside, np.ones((5, 5), np.uint8))
    assert vis == [2, 2, 2, 2]
    assert shrunk.sum() > 100
    # the rendered card (paper, ink) is there: inside differs from a ring just outside
    ring = cv2.dilate(inside, np.ones((9, 9), np.uint8)) - inside
    assert ring.sum() > 0


def test_test_split_holds_out_design_and_backgrounds():
    for _img, _labels, info in _scenes("test", 6, seed=1):
        assert info["background"] in G.TEST_BACKGROUNDS
        assert all(c["design"] == R.HELD_OUT_DESIGN for c in info["cards"])
    seen = set()
    for _img, _labels, info in _scenes("val", 12, seed=2):
        assert info["background"] in G.TRAIN_BACKGROUNDS
        for c in info["cards"]:
            assert c["design"] in R.TRAIN_DESIGNS or c["design"].startswith("random-")
            seen.add("random" if c["design"].startswith("random-") else c["design"])
    assert "random" in seen and seen & set(R.TRAIN_DESIGNS)  # both kinds of training design occur
    assert not set(G.TRAIN_BACKGROUNDS) & set(G.TEST_BACKGROUNDS)


def test_generation_is_reproducible_and_writes_yolo_files(tmp_path):
    a = G.write_dataset(tmp_path / "a", {"train": 3, "test": 2}, seed=5, width=256, progress=False)
    b = G.write_dataset(tmp_path / "b", {"train": 3, "test": 2}, seed=5, width=256, progress=False)
    assert a["splits"] == b["splits"]
    for split in ("train", "test"):
        for lab in sorted((tmp_path / "a" / "labels" / split).glob("*.txt")):
            assert lab.read_text() == (tmp_path / "b" / "labels" / split / lab.name).read_text()
            for line in lab.read_text().splitlines():
                assert len(line.split()) == 17
    yaml = (tmp_path / "a" / "data.yaml").read_text()
    assert "kpt_shape: [4, 3]" in yaml and str(tmp_path / "a") in yaml
    rows = [json.loads(x) for x in (tmp_path / "a" / "cards" / "test.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["design"] == R.HELD_OUT_DESIGN for r in rows)


def test_varied_scenes_widen_training_and_leave_the_test_split_alone():
    plain, varied = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(4):  # the held-out split ignores `varied`: same seed, same scenes
        a, b = G.render_scene(plain, "test", 256), G.render_scene(varied, "test", 256, varied=True)
        assert np.array_equal(a[0], b[0]) and a[2] == b[2]
    rng = np.random.default_rng(4)
    kinds, sizes = set(), []
    for _ in range(40):
        img, labels, info = G.render_scene(rng, "train", 320, varied=True)
        kinds.add(info["background"])
        assert info["background"] not in G.TEST_BACKGROUNDS
        assert all(c["design"] != R.HELD_OUT_DESIGN for c in info["cards"])
        sizes += [float(np.linalg.norm(k[3] - k[0])) for _, k, _ in labels]
    assert kinds & set(G.VARIED_BACKGROUNDS)
    assert not set(G.VARIED_BACKGROUNDS) & set(G.TEST_BACKGROUNDS)
    assert np.percentile(sizes, 5) < 36  # smaller cards: plain scenes of this seed give 44 px


def test_varied_layouts_toss_tricks_of_overlapping_cards():
    """A trick tossed onto the centre: 2-4 cards, each partly over the one before (the held-out
    scenes' most missed cards lie like this). The layout's first draw picks a trick a fifth of
    the time, so the seeds that do are known."""
    designs = (R.TRAIN_DESIGNS[0],)
    tricks = [s for s in range(60) if np.random.default_rng(s).random() < 0.2]
    assert len(tricks) >= 8
    turns = []
    for seed in tricks:
        placed, _ = G.layout(np.random.default_rng(seed), 640, 480, "french52", designs, tricks=True)
        a, b = placed[0], placed[1]
        step = math.hypot(a.cx - b.cx, a.cy - b.cy) / a.height
        assert 0.14 < step < 0.64  # overlapping, but not hiding each other
        assert abs(a.height / b.height - 1) < 0.11
        turns.append(abs((a.angle - b.angle + 180) % 360 - 180))
    assert max(turns) > 60  # tossed at unrelated angles, not squared up like a pile


@pytest.mark.parametrize("kind", [k for k in G.VARIED_BACKGROUNDS if k != "skimage_photo"])
def test_varied_backgrounds_are_images(kind):
    img = G.background(kind, np.random.default_rng(0), 120, 160)
    assert img.shape == (120, 160, 3) and img.dtype == np.uint8 and img.std() > 3


def test_without_scikit_image_the_generator_refuses_unless_told_procedural_only(tmp_path, monkeypatch, capsys):
    # a training venv without scikit-image once dropped three of eleven backgrounds silently
    monkeypatch.setattr(G, "_SKIMAGE", {})
    monkeypatch.setattr(G, "_PHOTOS", [])
    with pytest.raises(SystemExit) as err:
        make_card_dataset.main(
            ["--out", str(tmp_path / "d"), "--train", "1", "--val", "0", "--test", "0", "--width", "160"]
        )
    assert err.value.code == 2 and "scikit-image is not installed" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
    assert (
        make_card_dataset.main(
            [
                "--out",
                str(tmp_path / "d"),
                "--train",
                "2",
                "--val",
                "0",
                "--test",
                "0",
                "--width",
                "160",
                "--procedural-only",
            ]
        )
        == 0
    )
    meta = json.loads((tmp_path / "d" / "meta.json").read_text())
    assert meta["skimage"] is False
    assert not any(b.startswith("skimage_") for b in meta["splits"]["train"]["backgrounds"])


def test_test_split_linked_from_another_dataset(tmp_path, capsys):
    # every model is measured on the same held-out scenes: a training set links them, with the
    # card index that the up/down of Beccato! faces is measured from
    G.write_dataset(tmp_path / "held", {"test": 2}, seed=0, width=160, progress=False)
    assert (
        make_card_dataset.main(
            [
                "--out",
                str(tmp_path / "new"),
                "--train",
                "1",
                "--val",
                "1",
                "--test",
                "0",
                "--width",
                "160",
                "--procedural-only",
                "--test-from",
                str(tmp_path / "held"),
            ]
        )
        == 0
    )
    new, held = tmp_path / "new", tmp_path / "held"
    for part in ("images/test", "labels/test", "cards/test.jsonl"):
        assert (new / part).is_symlink() and (new / part).resolve() == (held / part).resolve()
    assert sorted(p.name for p in (new / "images" / "test").iterdir()) == sorted(
        p.name for p in (held / "images" / "test").iterdir()
    )
    assert "test: images/test" in (new / "data.yaml").read_text()
    with pytest.raises(SystemExit):  # generated or linked, not both
        make_card_dataset.main(
            ["--out", str(tmp_path / "x"), "--train", "1", "--test", "1", "--procedural-only", "--test-from", str(held)]
        )
    with pytest.raises(SystemExit):  # a dataset with no held-out split
        make_card_dataset.main(
            [
                "--out",
                str(tmp_path / "y"),
                "--train",
                "1",
                "--test",
                "0",
                "--procedural-only",
                "--test-from",
                str(tmp_path / "new" / "images"),
            ]
        )
    assert "no held-out split there" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_what_a_coin_or_phone_covers_is_no_cards():
    # every pixel the distractors paint is taken from the card beneath it: a card under a phone
    # is not counted as fully visible (the reading evaluation's "clear" cards rely on it)
    rng = np.random.default_rng(5)
    painted = 0
    for _ in range(40):
        img = np.zeros((120, 160, 3), np.float32)
        owner = np.zeros((120, 160), np.int32)  # one card under the whole frame
        G._distractors(rng, img, owner)
        changed = (img != 0).any(axis=2)
        painted += int(changed.sum())
        assert (owner[changed] == -3).all()
        assert set(np.unique(owner)) <= {0, -3}
    assert painted > 0


def test_the_real_mix_takes_plain_scenes_from_another_dataset(tmp_path):
    import json

    from vision.cards import real_mix
    from vision.cards.detector_real import FIXTURE

    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "IMG_2384.JPG").write_bytes((FIXTURE / "IMG_2384.JPG").read_bytes())  # its first number: tune
    (photos / "IMG_2384.xml").write_text(
        "<annotation><object><name>KC</name><bndbox><xmin>120</xmin><ymin>190</ymin>"
        "<xmax>235</xmax><ymax>335</ymax></bndbox></object></annotation>"
    )
    plain = tmp_path / "plain"
    for sub in ("images", "labels"):
        (plain / sub / "train").mkdir(parents=True)
    (plain / "images" / "train" / "train_000000.jpg").write_bytes((FIXTURE / "IMG_2384.JPG").read_bytes())
    (plain / "labels" / "train" / "train_000000.txt").write_text("0 0.5 0.5 0.2 0.3" + " 0.4 0.4 2" * 4 + "\n")
    (plain / "images" / "train" / "train_000001.jpg").write_bytes(b"no label beside it")
    stats = real_mix.write_mix(
        tmp_path / "mix",
        real_repeat=1,
        scenes_real=0,
        scenes_plain=0,
        val_scenes=0,
        plain_from=plain,
        train_folder=photos,
        tune_folder=photos,
    )
    train = sorted(p.name for p in (tmp_path / "mix" / "images" / "train").iterdir())
    assert "plain_train_000000.jpg" in train and "plain_train_000001.jpg" not in train
    assert (tmp_path / "mix" / "labels" / "train" / "plain_train_000000.txt").read_text().startswith("0 0.5")
    assert stats["train"]["scenes_plain_from"]["scenes"] == 1
    meta = json.loads((tmp_path / "mix" / "meta.json").read_text())
    assert meta["train"]["real_photos"] == 1 and meta["val"]["real_tune_photos"] == 1
    assert "real_IMG_2384_0.jpg" in train
    with pytest.raises(FileNotFoundError, match="no training scenes"):  # nothing written over
        real_mix.write_mix(tmp_path / "mix", plain_from=tmp_path / "nowhere", train_folder=photos, tune_folder=photos)
    assert (tmp_path / "mix" / "labels" / "train" / "plain_train_000000.txt").is_file()
