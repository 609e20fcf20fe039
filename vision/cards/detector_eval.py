"""The card detector measured on a synthetic split with ground truth (`scripts/eval_card_detector.py`).

With onnxruntime and numpy alone (the runtime venv): recall of face-up cards (IoU >= 0.5,
confidence >= 0.25), precision, corner error, and orientation accuracy of the Beccato! faces,
decoded here the way Ultralytics decodes (`letterbox`, `decode`), independently of the runtime's
`vision.cards.detector`. With Ultralytics importable (the training venv), also its box and pose
mAP50 / mAP50-95 of the same ONNX file. Datasets come from `vision.cards.scenes`.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.cards.detector import drop_fragments
from vision.cards.runtime import open_session
from vision.cards.scenes import parse_label_line

ROOT = Path(__file__).resolve().parents[2]  # the checkout: datasets, training runs and test photos live in it
RUNS = ROOT / "runs"
DEFAULT_DATA = ROOT / "datasets" / "generated" / "cards" / "data.yaml"


def offline_ultralytics(threads: int = 1):
    """Import Ultralytics with every offline switch of the stack notes set.

    Threads: OpenMP waits passively, since threads that spin-wait for each other on a loaded
    2-core machine were several times slower than one (measured: docs/card-detector.md).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    cfg = RUNS / "yolo_config"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    font_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    import matplotlib  # deferred: only training and mAP need Ultralytics, which draws with it

    dejavu = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (font_dir / name).exists():
            shutil.copy(dejavu, font_dir / name)
    import ultralytics  # deferred: torch and Ultralytics, the training venv only
    import ultralytics.utils.torch_utils as tu  # deferred: the training venv only
    from ultralytics.utils import SETTINGS  # deferred: the training venv only

    SETTINGS.update({"sync": False})
    tu.NUM_THREADS = threads
    import torch  # deferred: the training venv only

    torch.set_num_threads(threads)
    return ultralytics


def letterbox(img: np.ndarray, size: int):
    """Ultralytics' LetterBox (centred, grey 114): (blob 1x3xSxS float32 RGB 0..1, scale, (left, top))."""
    h, w = img.shape[:2]
    r = min(size / h, size / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    dw, dh = (size - nw) / 2, (size - nh) / 2
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    if (nw, nh) != (w, h):
        img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    img = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    blob = img[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), r, (left, top)


def decode(out: np.ndarray, r: float, pad, conf: float = 0.25, iou: float = 0.65):
    """Raw (1, 18, N) output -> list of (class, score, box xyxy, corners 4x2, visibility 4)."""
    a = out[0].T
    scores = a[:, 4:6]
    cls = scores.argmax(1)
    best = scores.max(1)
    keep = best >= conf
    a, cls, best = a[keep], cls[keep], best[keep]
    if not len(a):
        return []
    xywh = a[:, :4]
    boxes = np.stack([xywh[:, 0] - xywh[:, 2] / 2, xywh[:, 1] - xywh[:, 3] / 2, xywh[:, 2], xywh[:, 3]], 1)
    kept = np.array(cv2.dnn.NMSBoxes(boxes.tolist(), best.tolist(), conf, iou)).reshape(-1)
    dets = []
    for i in kept:
        x, y, w, h = boxes[i]
        box = (np.array([x, y, x + w, y + h]) - np.array([pad[0], pad[1], pad[0], pad[1]])) / r
        kp = a[i, 6:18].reshape(4, 3)
        corners = (kp[:, :2] - np.array(pad)) / r
        dets.append((int(cls[i]), float(best[i]), box, corners, kp[:, 2]))
    return dets


def _iou(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter + 1e-9)


def match_detections(gt_boxes, dets, min_iou: float = 0.5) -> dict[int, int]:
    """COCO's matching: detections in descending confidence, each taking the free ground-truth
    box it overlaps most (IoU >= min_iou). Returns {ground-truth index: detection index}.

    (Matching ground truths in label order to the first free detection over the bar instead
    lets one card take its neighbour's detection in a tight fan, and counts the neighbour
    missed though it was found.)"""
    match: dict[int, int] = {}
    for j in sorted(range(len(dets)), key=lambda j: -dets[j][1]):
        best_g, best_iou = -1, min_iou
        for g, gbox in enumerate(gt_boxes):
            if g in match:
                continue
            v = _iou(gbox, dets[j][2])
            if v >= best_iou:
                best_g, best_iou = g, v
        if best_g >= 0:
            match[best_g] = j
    return match


def read_yaml_path(data: Path) -> Path:
    """The dataset folder a YOLO `data.yaml` names (its `path:`), else the folder it lies in."""
    for line in data.read_text().splitlines():
        if line.startswith("path:"):
            return Path(line.split(":", 1)[1].strip())
    return data.parent


SWEEP = (0.2, 0.3, 0.4, 0.5)  # other confidence thresholds reported


# (upper bound, name) of the groups of the breakdown, in the order they are reported
SHORT_SIDE_BINS = ((20, "under 20 px"), (30, "20-30 px"), (50, "30-50 px"), (float("inf"), "50 px or more"))
VISIBLE_BINS = ((0.5, "under half"), (0.9, "half to 90%"), (float("inf"), "90% or more"))
_BIN_ORDER = {name: i for i, (_, name) in enumerate(SHORT_SIDE_BINS + VISIBLE_BINS)}


def _bin(value: float | None, bins) -> str:
    return "unknown" if value is None else next(name for bound, name in bins if value < bound)


def evaluate(
    model: Path,
    data: Path,
    split: str = "test",
    imgsz: int = 320,
    conf: float = 0.25,
    with_ultralytics: bool = True,
    limit: int | None = None,
    sweep=SWEEP,
    post: bool = False,
) -> dict:
    """Recall, precision and corner error of the ONNX model on a split with ground truth; recall
    of face-up cards also by background, deck, the card's short side in the model's input and
    how much of it shows, and recall and precision at the `sweep` thresholds. With `post`, the
    fragments are dropped at each threshold as `CardDetector` drops them (`drop_fragments`)."""

    def kept(ds: list) -> list:
        if not post or len(ds) < 2:
            return ds
        keep = drop_fragments(np.stack([d[3] for d in ds]), np.array([d[1] for d in ds]))
        return [d for d, k in zip(ds, keep) if k]

    root = read_yaml_path(data)
    sess = open_session(model, threads=2)
    index = {}
    jl = root / "cards" / f"{split}.jsonl"
    if jl.exists():
        for line in jl.read_text().splitlines():
            rec = json.loads(line)
            index[rec["image"]] = rec
    images = sorted((root / "images" / split).glob("*.jpg"))[:limit]
    n_gt = n_up = found_up = found_up_cls = found_any = n_det = tp_det = 0
    corner_err = []
    orient_ok = orient_n = 0
    groups: dict[str, dict[str, list[int]]] = {"background": {}, "deck": {}, "short_side": {}, "visible": {}}
    at_conf = {t: [0, 0, 0] for t in sweep}  # face-up cards found, detections, true detections

    def count(kind: str, key: str, found: bool) -> None:
        n_found = groups[kind].setdefault(key, [0, 0])
        n_found[0] += 1
        n_found[1] += int(found)

    for p in images:
        img = cv2.imread(str(p))
        h, w = img.shape[:2]
        blob, r, pad = letterbox(img, imgsz)
        all_dets = decode(sess.run(blob), r, pad, min((conf, *sweep)))
        # greedy NMS drops a box only for a higher-scoring one: filtering after it at a higher
        # threshold gives what decoding at that threshold gives
        dets = kept([d for d in all_dets if d[1] >= conf])
        n_det += len(dets)
        label_lines = (root / "labels" / split / (p.stem + ".txt")).read_text().splitlines()
        gts = [parse_label_line(x) for x in label_lines if x.strip()]
        ids = index.get(p.name, {}).get("cards", [{}] * len(gts))
        gt_corners = [kp * np.array([w, h]) for _, _, kp, _ in gts]
        gt_boxes = [np.array([*c.min(0), *c.max(0)]) for c in gt_corners]
        match = match_detections(gt_boxes, dets)
        used = set(match.values())
        face_up = [g for g, gt in enumerate(gts) if gt[0] == 0]
        for t in sweep:
            dets_t = kept([d for d in all_dets if d[1] >= t])
            match_t = match_detections(gt_boxes, dets_t)
            at_conf[t][0] += sum(g in match_t for g in face_up)
            at_conf[t][1] += len(dets_t)
            at_conf[t][2] += len(set(match_t.values()))
        rec = index.get(p.name, {})
        for g in face_up:
            c = gt_corners[g]
            short = min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[1])) * r
            count("short_side", _bin(float(short), SHORT_SIDE_BINS), g in match)
            count("visible", _bin((ids[g] or {}).get("visible"), VISIBLE_BINS), g in match)
            count("background", rec.get("background", "unknown"), g in match)
            count("deck", rec.get("deck", "unknown"), g in match)
        for g, ((cls, _box, _kp, _vis), meta) in enumerate(zip(gts, ids)):
            n_gt += 1
            corners, gbox = gt_corners[g], gt_boxes[g]
            if cls == 0:
                n_up += 1
            best_j = match.get(g, -1)
            if best_j < 0:
                continue
            found_any += 1
            d = dets[best_j]
            diag = float(np.hypot(gbox[2] - gbox[0], gbox[3] - gbox[1]))
            # corner error up to the 180-degree ambiguity of symmetric faces
            e0 = np.linalg.norm(d[3] - corners, axis=1).mean()
            e2 = np.linalg.norm(d[3][[2, 3, 0, 1]] - corners, axis=1).mean()
            corner_err.append(min(e0, e2) / diag)
            if cls == 0:
                found_up += 1
                found_up_cls += int(d[0] == 0)
                if meta and not meta.get("symmetric", True):
                    orient_n += 1
                    orient_ok += int(e0 <= e2)
        tp_det += len(used)
    res = {
        "split": split,
        "images": len(images),
        "cards": n_gt,
        "face_up_cards": n_up,
        "conf": conf,
        "iou_match": 0.5,
        "recall_face_up": round(found_up / max(n_up, 1), 4),
        "recall_face_up_right_class": round(found_up_cls / max(n_up, 1), 4),
        "recall_all": round(found_any / max(n_gt, 1), 4),
        "precision": round(tp_det / max(n_det, 1), 4),
        "corner_error_median_of_diagonal": round(float(np.median(corner_err)), 4) if corner_err else None,
        "corner_error_p90_of_diagonal": round(float(np.percentile(corner_err, 90)), 4) if corner_err else None,
        "orientation_accuracy_beccato": round(orient_ok / orient_n, 4) if orient_n else None,
        "orientation_cards": orient_n,
        "recall_face_up_by": {
            kind: {
                k: {"cards": n, "recall": round(f / n, 4)}
                for k, (n, f) in sorted(g.items(), key=lambda kv: (_BIN_ORDER.get(kv[0], 9), kv[0]))
            }
            for kind, g in groups.items()
        },
        "at_conf": {
            str(t): {"recall_face_up": round(f / max(n_up, 1), 4), "precision": round(tp / max(nd, 1), 4)}
            for t, (f, nd, tp) in at_conf.items()
        },
    }
    if with_ultralytics:
        try:
            res.update(_ultralytics_map(model, data, split, imgsz))
        except ImportError:
            res["ultralytics"] = "not installed: mAP not computed"
    return res


def _ultralytics_map(model: Path, data: Path, split: str, imgsz: int) -> dict:
    offline_ultralytics()
    from ultralytics import YOLO  # deferred: torch and Ultralytics, the training venv only

    m = YOLO(str(model), task="pose")
    v = m.val(
        data=str(data),
        split=split,
        imgsz=imgsz,
        batch=1,
        device="cpu",
        plots=False,
        project=str(ROOT / "runs" / "card_detector"),
        name=f"val_{split}",
        exist_ok=True,
        verbose=False,
    )
    return {
        "map50_box": round(float(v.box.map50), 4),
        "map50_95_box": round(float(v.box.map), 4),
        "map50_pose": round(float(v.pose.map50), 4),
        "map50_95_pose": round(float(v.pose.map), 4),
        "map50_box_per_class": {
            n: round(float(x), 4) for n, x in zip(("card_face_up", "card_face_down"), v.box.all_ap[:, 0])
        },
    }


def detect_images(model: Path, paths, imgsz: int = 320, conf: float = 0.25, overlay_dir: Path | None = None):
    """Detections on images without ground truth (e.g. real photos): {name: [(class, score, corners)]}."""
    sess = open_session(model, threads=2)
    found = {}
    for p in paths:
        img = cv2.imread(str(p))
        if img is None:
            raise SystemExit(f"cannot read image {p}")
        blob, r, pad = letterbox(img, imgsz)
        dets = decode(sess.run(blob), r, pad, conf)
        found[Path(p).name] = [(c, round(s, 3), k.round(1).tolist()) for c, s, _, k, _ in dets]
        if overlay_dir is not None:
            overlay_dir.mkdir(parents=True, exist_ok=True)
            for c, s, _, k, _ in dets:
                cv2.polylines(img, [k.astype(np.int32)], True, (0, 0, 255) if c == 0 else (255, 0, 255), 2)
                cv2.circle(img, tuple(int(v) for v in k[0]), 5, (0, 255, 255), -1)
                cv2.putText(img, f"{s:.2f}", tuple(int(v) for v in k[0]), 0, 0.5, (0, 255, 255), 1)
            cv2.imwrite(str(overlay_dir / (Path(p).stem + ".png")), img)
    return found


REAL_PHOTOS = ROOT / "tests" / "fixtures" / "cards"


def real_photos(model: Path, imgsz: int = 320, conf: float = 0.25) -> dict:
    """The real photos of real cards (tests/fixtures/cards, MIT): per image, the cards in it (their
    centres, read by eye, in cards.json), how many a face-up detection's quadrilateral contains,
    and every detection's score (the same rule as tests/cards/test_real_photos.py)."""
    truth = json.loads((REAL_PHOTOS / "cards.json").read_text())["cards"]
    found = detect_images(model, [REAL_PHOTOS / n for n in truth], imgsz, conf)
    images = {}
    for name, cards in truth.items():
        up = [np.float32(k) for c, _, k in found[name] if c == 0]
        hit = [
            c["card"]
            for c in cards
            if any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c["x"]), float(c["y"])), False) >= 0 for q in up)
        ]
        images[name] = {
            "expected": len(cards),
            "found": len(hit),
            "missed": [c["card"] for c in cards if c["card"] not in hit],
            "detections": len(found[name]),
            "scores": [s for _, s, _ in found[name]],
        }
    return {
        "conf": conf,
        "images": images,
        "cards": sum(v["expected"] for v in images.values()),
        "found": sum(v["found"] for v in images.values()),
        "note": "Frames of real French-suited cards (tests/fixtures/cards, MIT): a card is found when a "
        "face-up detection's corners enclose its centre.",
    }


def model_input_size(model: Path) -> int:
    """The square input side the ONNX model was exported at (for a model with dynamic height
    and width, the `imgsz` of its metadata)."""
    session = open_session(model)
    if session.input_shape[2] is not None:
        return int(session.input_shape[2])
    imgsz = session.metadata.get("imgsz")
    return int(ast.literal_eval(imgsz)[0]) if imgsz else 320
