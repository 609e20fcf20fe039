"""Real photos in the detector's training data (`scripts/make_card_real_mix.py`).

* `real_box_lines`: a real photo's LabelImg VOC boxes as YOLO pose labels whose four corners are
  unknown unless given (visibility 0: Ultralytics then trains the box and class on them, not the corners);
* `corner_labels`: the corners of those boxes where the card's own outline is clear (GrabCut
  in the box, checked against it), so a fine-tune on real photos trains the
  corners on real cards instead of letting them drift;
* `real_faces`: those cards rectified upright, for `scenes.use_real_faces` (real faces laid over
  each other in synthetic scenes, with exact corners);
* `surface_crops`: crops of real photos away from their labelled cards (patterned cloth,
  newspaper, carpet, wood, stone), for `scenes.use_real_backgrounds`;
* `write_mix`: a dataset of the real training photos, synthetic scenes drawn on those real
  surfaces and plain synthetic scenes, validated on the real photos of the *tune* split and
  measured on the linked held-out synthetic split. The held-out real photos (first number a
  multiple of 3, `detector_real.split_of`) are never written.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.cards import scenes
from vision.cards.detections import CardDetections
from vision.cards.detector import box_iou
from vision.cards.detector_real import SHARED_TEST, split_of, voc_boxes
from vision.cards.geometry import order_corners

SHARED_TRAIN = SHARED_TEST.parent / "train"


def real_box_lines(boxes: np.ndarray, w: int, h: int, cls: int = 0, corners: np.ndarray | None = None) -> list[str]:
    """YOLO pose label lines for axis-aligned boxes (K, 4) xyxy. Their corners (K, 4, 2), where
    given, are visible (v=2) where known and unknown (v=0) where NaN; without `corners` all
    are unknown (Ultralytics then trains the box and class on them, not the corners)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if corners is None:
        corners = np.full((len(boxes), 4, 2), np.nan, np.float32)
    lines = []
    for (x0, y0, x1, y1), quad in zip(boxes, corners):
        x0, x1 = np.clip([x0, x1], 0, w)
        y0, y1 = np.clip([y0, y1], 0, h)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        vals = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h]
        if np.isnan(quad).any():
            kp = " 0 0 0" * 4
        else:
            q = np.clip(quad, 0, [w - 1, h - 1])
            kp = "".join(f" {x / w:.6f} {y / h:.6f} 2" for x, y in q)
        lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in vals) + kp)
    return lines


CORNER_LABEL_IOU = 0.85  # the box around the card's outline against the labelled box
CORNER_LABEL_FILL = 0.9  # the card's region against the quadrilateral around it
CARD_SHAPE = (0.55, 0.85)  # short side over long side, a card seen from above or a little aslant


def outline_in_box(image: np.ndarray, box: np.ndarray, grow: float = 0.15) -> tuple[np.ndarray, float, float] | None:
    """The card inside a hand-drawn box: (quad (4, 2), fill, IoU of the box around the quad
    with `box`), or None. GrabCut, started from the box (inside: maybe the card; a margin of
    `grow` around it: the surface), separates the card from the surface it lies on, patterned or
    not; its largest region's hull is simplified to four corners (the rotated rectangle around
    it where that fails). `fill`: the region's share of that quad, low for a card partly under
    another or with a hand on it."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    mx, my = (x1 - x0) * grow, (y1 - y0) * grow
    rx0, ry0 = int(max(0, x0 - mx)), int(max(0, y0 - my))
    rx1, ry1 = int(min(w, x1 + mx)), int(min(h, y1 + my))
    if rx1 - rx0 < 16 or ry1 - ry0 < 16 or x1 - x0 < 8 or y1 - y0 < 8:
        return None
    region = np.ascontiguousarray(image[ry0:ry1, rx0:rx1])
    mask = np.zeros(region.shape[:2], np.uint8)
    rect = (int(x0 - rx0), int(y0 - ry0), max(1, int(x1 - x0)), max(1, int(y1 - y0)))
    cv2.grabCut(region, mask, rect, np.zeros((1, 65)), np.zeros((1, 65)), 4, cv2.GC_INIT_WITH_RECT)
    fg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    opened = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(c)
    hull = cv2.convexHull(c)
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
    quad = np.asarray(approx if len(approx) == 4 else cv2.boxPoints(cv2.minAreaRect(c)), np.float32).reshape(4, 2)
    fill = area / max(cv2.contourArea(quad), 1.0)
    quad = quad + np.array([rx0, ry0], np.float32)
    around = np.concatenate([quad.min(axis=0), quad.max(axis=0)])[None].astype(np.float64)
    iou = float(box_iou(np.asarray(box, np.float64).reshape(1, 4), around)[0, 0])
    return quad, float(fill), iou


def corner_labels(
    image: np.ndarray,
    boxes: np.ndarray,
    detect: Callable[[np.ndarray], CardDetections] | None = None,
    min_iou: float = CORNER_LABEL_IOU,
) -> np.ndarray:
    """(K, 4, 2) corners for each labelled box (K, 4) xyxy, NaN where none is sure.

    The card's own outline in its hand-drawn box (`outline_in_box`), kept only when it is card
    shaped (`CARD_SHAPE`), fills its quadrilateral (`CORNER_LABEL_FILL`) and the box around it
    has IoU >= `min_iou` with the labelled box: a card in a fan or under another is left unknown.
    Corners in the synthetic labels' convention (`order_corners`: clockwise, a short edge
    first), the start nearest the first corner of `detect`'s matching detection where there is
    one (the model's own guess of the top-left of a face that reads the same both ways up),
    else the one whose top edge faces up. The shipped detector's corners are no label
    themselves: on the real photos they overshoot the card (the box around them has IoU
    0.55-0.88 with the labelled one on the single-card photos)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.full((len(boxes), 4, 2), np.nan, np.float32)
    if not len(boxes):
        return out
    hints = detect(image).corners if detect is not None else np.zeros((0, 4, 2), np.float32)
    around_hints = np.concatenate([hints.min(axis=1), hints.max(axis=1)], axis=1).astype(np.float64)
    for c, box in enumerate(boxes):
        found = outline_in_box(image, box)
        if found is None:
            continue
        quad, fill, iou = found
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        short, long_ = sorted([(sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2])
        if iou < min_iou or fill < CORNER_LABEL_FILL or not CARD_SHAPE[0] <= short / max(long_, 1e-6) <= CARD_SHAPE[1]:
            continue
        hint = None
        if len(hints):
            near = box_iou(boxes[c : c + 1], around_hints)[0]
            if near.max() >= 0.5:
                hint = hints[int(np.argmax(near))][None]
        out[c] = order_corners(quad[None], hint=hint)[0]
    return out


def real_faces(image: np.ndarray, quads: np.ndarray, size: tuple[int, int]) -> list[np.ndarray]:
    """The cards of `image` whose corners are known (`corner_labels`' quads, (K, 4, 2), NaN where
    unknown) rectified upright to `size` (width, height): real faces, with the real print, wear,
    light and blur, for `scenes.use_real_faces`, whose scenes lay them over each other with
    exact corners (a real photo's overlapping cards have none)."""
    w, h = size
    target = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    faces = []
    for quad in np.asarray(quads, np.float32).reshape(-1, 4, 2):
        if np.isnan(quad).any():
            continue
        M = cv2.getPerspectiveTransform(quad, target)
        faces.append(cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE))
    return faces


def surface_crops(
    image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator, count: int = 3, margin: float = 0.12
) -> list[np.ndarray]:
    """Up to `count` rectangles of `image` that touch no labelled card (its box grown by
    `margin` of its size), each at least a quarter of the photo's shorter side."""
    h, w = image.shape[:2]
    blocked = np.zeros((h, w), bool)
    for x0, y0, x1, y1 in np.asarray(boxes, np.float64).reshape(-1, 4):
        mx, my = (x1 - x0) * margin, (y1 - y0) * margin
        blocked[max(0, int(y0 - my)) : int(y1 + my) + 1, max(0, int(x0 - mx)) : int(x1 + mx) + 1] = True
    integral = np.pad(blocked.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    side = min(h, w)
    crops: list[np.ndarray] = []
    taken: list[tuple[int, int, int, int]] = []
    for _ in range(200):
        if len(crops) >= count:
            break
        cw = int(rng.uniform(0.25, 0.9) * side)
        ch = int(cw * rng.uniform(0.6, 1.6))
        if cw >= w or ch >= h:
            continue
        x, y = int(rng.integers(0, w - cw)), int(rng.integers(0, h - ch))
        inside = integral[y + ch, x + cw] - integral[y, x + cw] - integral[y + ch, x] + integral[y, x]
        if inside:
            continue
        if any(
            min(x + cw, a + c) - max(x, a) > 0.5 * cw and min(y + ch, b + d) - max(y, b) > 0.5 * ch
            for a, b, c, d in taken
        ):
            continue
        taken.append((x, y, cw, ch))
        crops.append(image[y : y + ch, x : x + cw].copy())
    return crops


def _photos(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.with_suffix(".xml").is_file()
    )


def write_mix(
    out: Path,
    seed: int = 11,
    real_repeat: int = 2,
    scenes_real: int = 500,
    scenes_plain: int = 500,
    val_scenes: int = 40,
    test_from: Path | None = None,
    plain_from: Path | None = None,
    train_folder: Path = SHARED_TRAIN,
    tune_folder: Path = SHARED_TEST,
    width: int = 640,
    corners_from: Callable[[np.ndarray], CardDetections] | None = None,
    scenes_faces: int = 0,
    face_share: float = 0.8,
) -> dict:
    """Write the mixed dataset to `out` (images/, labels/, data.yaml, meta.json). `plain_from`:
    also copy that synthetic dataset's training scenes (`scripts/make_card_dataset.py`, which can
    write them on both cores) in as plain scenes. `corners_from`: label the real training photos'
    cards' corners by their outlines (`corner_labels`, this detector giving the corner order);
    without it their corners are unknown. `scenes_faces`: scenes on the real surfaces whose
    face-up cards are, `face_share` of them, the real training cards themselves (`real_faces`:
    those whose outline `corner_labels` finds sure), laid in rows, piles, fans and tricks."""
    out = out.resolve()
    if plain_from is not None and not any((plain_from / "images" / "train").glob("*.jpg")):
        raise FileNotFoundError(f"{plain_from}: no training scenes in images/train to copy in")
    rng = np.random.default_rng(seed)
    for split in ("train", "val"):
        for sub in ("images", "labels"):
            d = out / sub / split
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
    stats: dict = {"seed": seed, "train": {}, "val": {}}
    crops: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    face_size = scenes.R.card_size_px(scenes.REAL_FACE_DECK, scenes.PX_PER_MM)
    n_real = n_cards = n_cornered = 0
    for path in _photos(train_folder):
        img = cv2.imread(str(path))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes = voc_boxes(path.with_suffix(".xml"))
        corners = corner_labels(img, boxes, corners_from) if corners_from is not None else None
        lines = real_box_lines(boxes, w, h, corners=corners)
        if corners is not None:
            n_cards += len(boxes)
            n_cornered += int((~np.isnan(corners).any(axis=(1, 2))).sum())
        crops += surface_crops(img, boxes, rng)
        if scenes_faces:
            quads = corners if corners is not None else corner_labels(img, boxes)
            faces += real_faces(img, quads, face_size)
        for k in range(real_repeat):  # the real photos weigh as much as the synthetic scenes beside them
            name = f"real_{path.stem}_{k}"
            shutil.copyfile(path, out / "images" / "train" / f"{name}.jpg")
            (out / "labels" / "train" / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
        n_real += 1
    stats["train"] |= {"real_photos": n_real, "real_repeat": real_repeat, "surface_crops": len(crops)}
    if corners_from is not None:
        stats["train"]["real_cards_with_corners"] = f"{n_cornered} of {n_cards}"
    crop_dir = out / "surfaces"
    crop_dir.mkdir(exist_ok=True)
    for i, c in enumerate(crops[::10]):  # a sample, to look at
        cv2.imwrite(str(crop_dir / f"surface_{i:03d}.jpg"), c)

    if scenes_faces:
        stats["train"]["real_faces"] = len(faces)
        face_dir = out / "faces"
        face_dir.mkdir(exist_ok=True)
        for i, f in enumerate(faces[::10]):  # a sample, to look at
            cv2.imwrite(str(face_dir / f"face_{i:03d}.jpg"), f)

    def synth(split: str, n: int, prefix: str, real_share: float, s: int, with_faces: bool = False) -> int:
        scenes.use_real_backgrounds(crops, share=real_share) if real_share else scenes.use_real_backgrounds([])
        scenes.use_real_faces(faces if with_faces else [], share=face_share)
        g = np.random.default_rng([seed, s])
        cards = 0
        for i in range(n):
            img, labels, _ = scenes.render_scene(g, split, width, varied=True)
            hh, ww = img.shape[:2]
            name = f"{prefix}_{i:05d}"
            cv2.imwrite(
                str(out / "images" / split / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, int(g.integers(40, 96))]
            )
            (out / "labels" / split / f"{name}.txt").write_text(
                "".join(scenes.yolo_line(c, k, v, ww, hh) + "\n" for c, k, v in labels)
            )
            cards += len(labels)
        return cards

    stats["train"]["scenes_real_surface"] = scenes_real
    stats["train"]["scenes_real_surface_cards"] = synth("train", scenes_real, "surf", 1.0, 1)
    if scenes_faces:
        stats["train"]["scenes_real_faces"] = scenes_faces
        stats["train"]["scenes_real_faces_cards"] = synth("train", scenes_faces, "face", 1.0, 4, with_faces=True)
    stats["train"]["scenes_plain"] = scenes_plain
    stats["train"]["scenes_plain_cards"] = synth("train", scenes_plain, "plain", 0.0, 2)
    if plain_from is not None:
        copied = 0
        for image in sorted((plain_from / "images" / "train").glob("*.jpg")):
            label = plain_from / "labels" / "train" / f"{image.stem}.txt"
            if not label.is_file():
                continue
            shutil.copyfile(image, out / "images" / "train" / f"plain_{image.name}")
            shutil.copyfile(label, out / "labels" / "train" / f"plain_{image.stem}.txt")
            copied += 1
        stats["train"]["scenes_plain_from"] = {"dataset": str(plain_from), "scenes": copied}
    stats["val"]["scenes"] = val_scenes
    stats["val"]["scenes_cards"] = synth("val", val_scenes, "val", 0.5, 3)
    scenes.use_real_backgrounds([])
    scenes.use_real_faces([])
    tune = 0
    for path in _photos(tune_folder):
        if split_of(path.name) != "tune":  # the held-out real photos are never written
            continue
        img = cv2.imread(str(path))
        if img is None:
            continue
        h, w = img.shape[:2]
        shutil.copyfile(path, out / "images" / "val" / f"tune_{path.stem}.jpg")
        boxes = voc_boxes(path.with_suffix(".xml"))
        corners = corner_labels(img, boxes, corners_from) if corners_from is not None else None
        lines = real_box_lines(boxes, w, h, corners=corners)
        (out / "labels" / "val" / f"tune_{path.stem}.txt").write_text("".join(line + "\n" for line in lines))
        tune += 1
    stats["val"]["real_tune_photos"] = tune
    if test_from is not None:
        scenes.link_test_split(out, test_from)
    yaml = (
        f"path: {out}\ntrain: images/train\nval: images/val\n"
        + ("test: images/test\n" if test_from is not None else "")
        + "kpt_shape: [4, 3]\nflip_idx: [1, 0, 3, 2]\nnames:\n"
        + "".join(f"  {i}: {n}\n" for i, n in enumerate(scenes.CLASSES))
    )
    (out / "data.yaml").write_text(yaml)
    (out / "meta.json").write_text(json.dumps(stats, indent=1))
    return stats
