"""How the shipped regional decks read: their scans printed and seen by a camera.

Each of the 40 scans of a deck is "printed" (a printer's tone curve and colour shift, a little
paper grain), laid on a table background under a camera's perspective, rotation and scale,
lit, blurred, noised and JPEG-compressed as a webcam frame is (`vision.cards.scenes`), and read
from its true corners by the deck's own templates (`CardReader.identify`, as the table reads a
detected card once its corners are known). A read is right, wrong (with its confidence) or
`unknown`. The same photos read by the rendered `italian` deck give the figure without the
scans, and by the other regional decks the cross-deck figure (another printing's cards should
not be named sure and wrong).

`scripts/eval_regional_decks.py` prints the table; tests/cards/test_regional_decks.py holds the
floors.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import cv2
import numpy as np

from vision.cards.detections import CardDetections
from vision.cards.reader import CardReader
from vision.cards.reading_eval import up_or_down
from vision.cards.scenes import available_backgrounds, background, photometric
from vision.cards.templates import Deck, load_deck

FRAME = (720, 1280)  # h, w of the camera frame


def printed(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """A scan as a home printer puts it on card: a tone curve, a colour shift, paper grain."""
    img = face.astype(np.float32) / 255.0
    img = img ** rng.uniform(0.85, 1.25)  # the printer's tone curve
    img = img * rng.uniform(0.9, 1.05, 3).astype(np.float32)  # its colour balance
    img = img * (1 - rng.uniform(0.0, 0.15)) + rng.uniform(0.0, 0.08)  # ink never black, paper never white
    img = img + rng.normal(0, 0.015, img.shape).astype(np.float32)
    return np.clip(img * 255, 0, 255).astype(np.uint8)


def camera_photo(
    rng: np.random.Generator, face: np.ndarray, backgrounds: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """The printed face on a table in a camera frame: (frame, the card's corners TL TR BR BL)."""
    h, w = FRAME
    fh, fw = face.shape[:2]
    height = rng.uniform(110, 220)  # the card's height in the frame, in pixels
    scale = height / fh
    angle = math.radians(rng.uniform(-180, 180))
    cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    centred = (src - np.array([fw / 2, fh / 2], np.float32)) * scale
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    dst = centred @ rot.T + [cx, cy]
    tilt = rng.uniform(0, 0.12)  # the far edge a little shorter: a camera looking down at the table
    dst[:, 0] = cx + (dst[:, 0] - cx) * (1 - tilt * (cy + h / 2 - dst[:, 1]) / h)
    dst += rng.normal(0, 1.5, dst.shape)
    dst = dst.astype(np.float32)
    table = background(str(rng.choice(list(backgrounds))), rng, h, w)
    m = cv2.getPerspectiveTransform(src, dst)
    card = cv2.warpPerspective(printed(rng, face), m, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    frame = (table.astype(np.float32) * (1 - alpha) + card.astype(np.float32) * alpha).astype(np.uint8)
    frame = photometric(rng, frame)
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 92))])
    assert ok
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR), dst


def photos(deck: Deck, per_card: int, seed: int) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """(true card id, frame, corners) for `per_card` camera photos of every face of `deck`."""
    rng = np.random.default_rng(seed)
    kinds = available_backgrounds("test")
    identifier = deck.faces
    for label, face in zip(identifier.labels, identifier.images):
        for _ in range(per_card):
            frame, corners = camera_photo(rng, face, kinds)
            yield identifier.card_ids[label][0], frame, corners


def read_counts(reader: CardReader, shots: Sequence[tuple[str, np.ndarray, np.ndarray]], sure: float) -> dict:
    """right / wrong / unknown of the reads, and how many wrong reads were sure."""
    n = right = unknown = wrong = wrong_sure = sure_reads = 0
    for truth, frame, corners in shots:
        det = reader.identify(frame, CardDetections.from_corners(up_or_down(corners)), snap=False)
        label, conf = det.label[0], float(det.confidence[0])
        n += 1
        if label is None:
            unknown += 1
            continue
        sure_reads += conf >= sure
        if label == truth:
            right += 1
        else:
            wrong += 1
            wrong_sure += conf >= sure
    return {
        "cards": n,
        "right": right,
        "unknown": unknown,
        "wrong": wrong,
        "wrong_sure": wrong_sure,
        "sure_reads": sure_reads,
        "right_rate": round(right / n, 4) if n else None,
        "wrong_sure_per_100_sure": round(100 * wrong_sure / sure_reads, 2) if sure_reads else 0.0,
    }


def evaluate(decks: Sequence[str], per_card: int = 3, seed: int = 7, sure: float | None = None) -> dict:
    """For each deck: its photos read by itself, by the rendered `italian` deck, and by the others."""
    from vision.cards.identify import SURE  # deferred: keeps the module's import light for scripts

    sure = SURE if sure is None else sure
    loaded = {name: load_deck(name) for name in decks}
    readers = {name: CardReader(None, d, snap=False) for name, d in loaded.items()}
    readers["italian (rendered)"] = CardReader(None, load_deck("italian"), snap=False)
    out: dict = {"per_card": per_card, "seed": seed, "sure": sure, "decks": {}}
    for name, deck in loaded.items():
        shots = list(photos(deck, per_card, seed))
        rows = {"own templates": read_counts(readers[name], shots, sure)}
        rows["italian (rendered)"] = read_counts(readers["italian (rendered)"], shots, sure)
        for other in decks:
            if other != name:
                rows[f"{other} templates"] = read_counts(readers[other], shots, sure)
        out["decks"][name] = rows
    return out
