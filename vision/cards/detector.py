"""The card detector at run time: the exported YOLO pose model on onnxruntime, no torch.

The model (see docs/card-detector.md and models/card_detector/) finds every card, face up or
face down, and its four corners as keypoints. Ultralytics exports a pose model's raw output as
(1, 4 + nc + nk * nd, N): per candidate the box centre, width and height in input pixels,
nc class scores (already sigmoid), then nk keypoints of nd values (x, y[, visibility]). An
end-to-end export (YOLO26 with its own NMS) gives (1, N, 6 + nk * nd) instead: x1 y1 x2 y2
score class, keypoints. Both are decoded here; letterboxing and NMS follow Ultralytics
(centred padding with grey 114, greedy IoU suppression), in numpy.

Importing this module loads neither onnxruntime nor torch; `CardDetector` loads onnxruntime.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from vision.cards.detections import CardDetections
from vision.cards.geometry import order_corners
from vision.cards.runtime import ModelFileError, open_session

REPO_ROOT = Path(__file__).resolve().parents[2]
# The shipped models: models/ in the repository, vision/models/ in an installed wheel (setup.py)
_PACKAGED_MODELS = Path(__file__).resolve().parents[1] / "models"
MODELS_DIR = _PACKAGED_MODELS if _PACKAGED_MODELS.is_dir() else REPO_ROOT / "models"
DEFAULT_MODEL = MODELS_DIR / "card_detector" / "card_detector.onnx"
MODEL_ENV = "TABLE_REFEREE_CARD_MODEL"
# A frame at least this many times as wide as it is high (a camera's 16:9 or 5:3) is predicted
# at the wide input of a model with dynamic height and width (1280x720: 480x288, 40% less than
# the square 480x480, the same cards found on the held-out split); a narrower one (a phone's 4:3
# photo, portrait) keeps the square input, where its fragments were fewer (docs/card-detector.md,
# "Speed")
WIDE_FRAME = 5 / 3
COLLAPSED_SHARE = 0.2  # a keypoint quad under this share of its box has collapsed (see to_detections)
# A fragment (see drop_fragments): a detection at least FRAGMENT_INSIDE inside the quad of one
# at least FRAGMENT_LARGER times its area and at least FRAGMENT_SCORE of its score (chosen on the
# tune split of the real photos, scripts/eval_detector_real.py)
FRAGMENT_INSIDE = 0.7
FRAGMENT_LARGER = 1.25
FRAGMENT_SCORE = 0.8


class ModelNotFound(RefereeError):
    """No model file (the card detector's, the card embedder's) where one was expected."""


class UnreadableModel(RefereeError):
    """A model file that onnxruntime cannot load (not ONNX, truncated, another format)."""


class ModelMismatch(RefereeError):
    """A model whose output layout is not a card pose model's."""


def default_model_path() -> Path:
    return Path(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)


# --- geometry helpers ---------------------------------------------------------------------
def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio and pad to `size` (height, width) as Ultralytics does.

    Returns the padded BGR image, the scale ratio and the (left, top) padding in pixels.
    """
    h, w = image.shape[:2]
    new_h, new_w = size
    r = min(new_h / h, new_w / w)
    unpad_w, unpad_h = int(round(w * r)), int(round(h * r))
    dw, dh = (new_w - unpad_w) / 2, (new_h - unpad_h) / 2
    if (w, h) != (unpad_w, unpad_h):
        image = cv2.resize(image, (unpad_w, unpad_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return image, r, (float(left), float(top))


def to_tensor(image_bgr: np.ndarray) -> np.ndarray:
    """(1, 3, H, W) float32 RGB in 0..1."""
    rgb = image_bgr[:, :, ::-1].transpose(2, 0, 1)
    return (np.ascontiguousarray(rgb, dtype=np.float32) / 255.0)[None]


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of each xyxy box of `a` (N, 4) with each of `b` (M, 4)."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy non-maximum suppression; indices kept, best first."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        i = order[0]
        keep.append(int(i))
        if order.size == 1:
            break
        ious = box_iou(boxes[i : i + 1], boxes[order[1:]])[0]
        order = order[1:][ious <= iou_threshold]
    return np.asarray(keep, dtype=np.int64)


# --- decoding -----------------------------------------------------------------------------
def drop_fragments(
    quads: np.ndarray,
    scores: np.ndarray | None = None,
    inside: float = FRAGMENT_INSIDE,
    larger: float = FRAGMENT_LARGER,
    score_share: float = FRAGMENT_SCORE,
) -> np.ndarray:
    """Which of the corner quads (N, 4, 2) to keep: not one lying at least `inside` of its area
    within another quad at least `larger` times its area (on patterned cloth or a card's own
    picture the detector reports a part of a card as a card of its own beside the whole card;
    two cards of a fan or a pile are the same size, so neither is a fragment of the other). With
    `scores`, only a quad scored at least `score_share` of the smaller one's counts as the whole."""
    n = len(quads)
    keep = np.ones(n, bool)
    if n < 2:
        return keep
    hulls = [cv2.convexHull(q.astype(np.float32)) for q in quads]
    areas = np.array([cv2.contourArea(h) for h in hulls])
    for i in range(n):
        if areas[i] <= 0:
            continue
        for j in range(n):
            if j == i or areas[j] < larger * areas[i]:
                continue
            if scores is not None and scores[j] < score_share * scores[i]:
                continue
            inter, _ = cv2.intersectConvexConvex(hulls[i], hulls[j])
            if inter >= inside * areas[i]:
                keep[i] = False
                break
    return keep


def face_up_classes(names: Mapping[int, str]) -> np.ndarray:
    """For each class id, whether it is a face-up card (a name with "down" or "back" is not)."""
    n = max(names) + 1 if names else 0
    up = np.ones(n, bool)
    for i, name in names.items():
        low = name.lower()
        up[i] = not ("down" in low or "back" in low)
    return up


def decode_pose(
    raw: np.ndarray,
    nc: int,
    kpt_shape: tuple[int, int],
    conf: float = 0.25,
    iou: float = 0.7,
    max_det: int = 300,
    agnostic: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Decode a raw pose output in model-input pixels.

    Returns boxes (K, 4) xyxy, scores (K,), class ids (K,), keypoints (K, nk, nd), after NMS.
    """
    nk, nd = kpt_shape
    raw = np.asarray(raw, np.float32)
    if raw.ndim == 3:
        raw = raw[0]
    width = 4 + nc + nk * nd
    if raw.shape[0] != width:
        if raw.shape[1] == width:
            raw = raw.T
        else:
            raise ModelMismatch(f"raw output {raw.shape} does not fit 4 + {nc} classes + {nk}x{nd} keypoints")
    cls_scores = raw[4 : 4 + nc]
    class_id = np.argmax(cls_scores, axis=0)
    scores = cls_scores[class_id, np.arange(raw.shape[1])]
    mask = scores > conf
    if not mask.any():
        return (
            np.zeros((0, 4), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
            np.zeros((0, nk, nd), np.float32),
        )
    sel = raw[:, mask]
    scores, class_id = scores[mask], class_id[mask]
    cx, cy, w, h = sel[0], sel[1], sel[2], sel[3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    kpts = sel[4 + nc :].T.reshape(-1, nk, nd)
    if agnostic:
        keep = nms(boxes, scores, iou)
    else:  # offset boxes per class, as Ultralytics does
        offset = class_id[:, None].astype(np.float32) * 7680.0
        keep = nms(boxes + offset, scores, iou)
    keep = keep[:max_det]
    return boxes[keep], scores[keep], class_id[keep].astype(np.int64), kpts[keep]


def decode_end2end(
    raw: np.ndarray, kpt_shape: tuple[int, int], conf: float = 0.25, max_det: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Decode an end-to-end output (1, N, 6 + nk * nd): NMS already applied in the model."""
    nk, nd = kpt_shape
    raw = np.asarray(raw, np.float32)[0]
    raw = raw[raw[:, 4] > conf][:max_det]
    return raw[:, :4], raw[:, 4], raw[:, 5].astype(np.int64), raw[:, 6:].reshape(-1, nk, nd)


def _meta(value: str | None, default: Any) -> Any:
    if value is None:
        return default
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return default


class CardDetector:
    """Finds cards in a BGR frame: `detector(image) -> CardDetections`.

    conf: the minimum class score; iou: the NMS threshold; threads: onnxruntime's intra-op
    threads (None: its default, one per core), never spinning while idle (`vision.cards.runtime`).
    The model's metadata (written by Ultralytics' export) gives the class names, the keypoint
    shape and the input size.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        conf: float = 0.25,
        iou: float = 0.7,
        threads: int | None = None,
        max_det: int = 300,
    ) -> None:
        path = Path(model) if model is not None else default_model_path()
        if not path.is_file():
            raise ModelNotFound(f"no card detector model at {path}", path=str(path))
        try:
            self.session = open_session(path, threads=threads)
        except ModelFileError as exc:
            raise UnreadableModel(
                f"{path.name} is not an ONNX model onnxruntime can load: {exc}", path=str(path)
            ) from None
        self.path = path
        self.conf, self.iou, self.max_det = conf, iou, max_det
        # drop fragments (`drop_fragments`): off until the card reading is measured with it (on the
        # held-out real photos it cuts fragments 27 -> 17, but synthetic recall 0.972 -> 0.962)
        self.post = False
        try:
            self._read_layout()
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelMismatch(f"{path.name} is not a card pose model: {exc}", path=str(path)) from None

    def _read_layout(self) -> None:
        """Class names, keypoints and input size from the model's metadata and shapes."""
        meta = self.session.metadata
        self.metadata = dict(meta)
        names = _meta(meta.get("names"), {0: "card_face_up", 1: "card_face_down"})
        self.names: dict[int, str] = {int(k): str(v) for k, v in names.items()}
        self.kpt_shape: tuple[int, int] = tuple(_meta(meta.get("kpt_shape"), [4, 3]))
        in_shape = self.session.input_shape
        imgsz = _meta(meta.get("imgsz"), None)
        if imgsz is None:
            imgsz = [d if isinstance(d, int) else 640 for d in in_shape[2:4]]
        if isinstance(imgsz, int):
            imgsz = [imgsz, imgsz]
        self.imgsz: tuple[int, int] = (int(imgsz[0]), int(imgsz[1]))
        # A model exported with dynamic height and width takes a wide frame at the smallest input
        # that holds it at the size `imgsz` gives it, padded to the stride (Ultralytics' own
        # predict: a 1280x720 frame becomes 480x288 rather than 480x480): see `input_size`
        self.dynamic = any(not isinstance(d, int) for d in in_shape[2:4])
        self.stride = int(_meta(meta.get("stride"), 32))
        self.face_up_of_class = face_up_classes(self.names)
        out_shape = self.session.output_shape
        nk, nd = self.kpt_shape
        self.end2end = (
            len(out_shape) == 3 and out_shape[-1] == 6 + nk * nd and out_shape[1] != 4 + len(self.names) + nk * nd
        )

    def input_size(self, shape: tuple[int, int]) -> tuple[int, int]:
        """The model input (height, width) for a frame of `shape`: `imgsz`, or for a model with
        dynamic height and width and a frame at least WIDE_FRAME wide (a camera's 16:9), the
        frame scaled into `imgsz` and padded to the stride: the same scale, less grey padding."""
        h, w = shape
        if not self.dynamic or w < WIDE_FRAME * h:
            return self.imgsz
        r = min(self.imgsz[0] / h, self.imgsz[1] / w)
        s = self.stride
        return (
            int(np.ceil(round(h * r) / s) * s),
            int(np.ceil(round(w * r) / s) * s),
        )

    def raw(self, image: np.ndarray) -> tuple[np.ndarray, float, tuple[float, float]]:
        """The model's raw output for a BGR image, with the letterbox ratio and padding."""
        padded, ratio, pad = letterbox(image, self.input_size((image.shape[0], image.shape[1])))
        out = self.session.run(to_tensor(padded))
        return out, ratio, pad

    def __call__(self, image: np.ndarray) -> CardDetections:
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("the detector takes a BGR image (H, W, 3)")
        out, ratio, (px, py) = self.raw(image)
        if self.end2end:
            boxes, scores, cls, kpts = decode_end2end(out, self.kpt_shape, self.conf, self.max_det)
        else:
            boxes, scores, cls, kpts = decode_pose(
                out, len(self.names), self.kpt_shape, self.conf, self.iou, self.max_det
            )
        return self.to_detections(boxes, scores, cls, kpts, ratio, (px, py), image.shape[:2])

    def to_detections(self, boxes, scores, cls, kpts, ratio, pad, shape) -> CardDetections:
        """Map model-input coordinates back to the frame and build `CardDetections`."""
        if len(scores) == 0:
            return CardDetections.empty()
        px, py = pad
        corners = kpts[:, :4, :2].copy()
        # keypoints that collapsed onto a picture inside the card (their quad under
        # COLLAPSED_SHARE of the box, which a card fills at least 40% of whichever way it lies;
        # seen on a real photo): the box's own corners instead, which refinement snaps to the card
        box_area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-6)
        collapsed = np.array([cv2.contourArea(q.astype(np.float32)) for q in corners]) < COLLAPSED_SHARE * box_area
        x0, y0, x1, y1 = (boxes[collapsed, k] for k in range(4))
        corners[collapsed] = np.stack(
            [np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1), np.stack([x0, y1], 1)], axis=1
        )
        corners[..., 0] = (corners[..., 0] - px) / ratio
        corners[..., 1] = (corners[..., 1] - py) / ratio
        h, w = shape
        corners[..., 0] = np.clip(corners[..., 0], 0, w - 1)
        corners[..., 1] = np.clip(corners[..., 1], 0, h - 1)
        corners = order_corners(corners, hint=corners)
        cls = np.clip(cls, 0, len(self.face_up_of_class) - 1)
        if self.post:
            keep = drop_fragments(corners, scores)
            corners, scores, cls = corners[keep], scores[keep], cls[keep]
        return CardDetections.from_corners(corners, confidence=scores, face_up=self.face_up_of_class[cls], class_id=cls)
