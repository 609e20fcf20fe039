"""The card detector is not run again while nothing on the table moves (`StillFrames`): a frame
whose view is the same as at the detector's last settled run takes that run's cards; any change
(a card put down, replaced, pushed, a fingertip) runs it at once, and it runs at least every
`refresh` seconds anyway."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.cards.helpers import cloth, degrade, place, quad
from vision.capture.sources import CameraFrame
from vision.capture.stages import CardStage
from vision.cards.decks import card
from vision.cards.track import StillFrames
from vision.still import still_thumbnail, thumbnail_change

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "cards_real" / "edje"
CAM = ["cam_image2.jpg", "cam_image4.jpg", "cam_image5.jpg", "cam_image6.jpg", "cam_image7.jpg", "cam_image8.jpg"]


def camera(image: np.ndarray, rng: np.random.Generator, sigma: float = 4.0) -> np.ndarray:
    """Another frame of a still camera: its sensor noise, a 3% exposure drift, MJPEG."""
    out = image.astype(np.float32) * rng.uniform(0.97, 1.03) + rng.normal(0, sigma, image.shape)
    ok, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def test_a_real_webcam_view_ignores_noise_and_sees_a_card_replaced_or_touched():
    """Real webcam frames of cards on a wooden table (the edje set's `cam_image*`), at
    1280x720: camera noise stays far under the threshold; a card replaced by the card another
    frame has in its place, or a fingertip on a card's corner, far over it."""
    labels = json.loads((REAL / "labels.json").read_text())
    frames = {n: cv2.resize(cv2.imread(str(REAL / n)), (1280, 720)) for n in CAM}
    side, changed = StillFrames().side, StillFrames().changed
    rng = np.random.default_rng(0)
    noise, swapped, touched = [], [], []
    for name, img in frames.items():
        ref = still_thumbnail(camera(img, rng), side)
        noise += [thumbnail_change(still_thumbnail(camera(img, rng, s), side), ref) for s in (2, 4, 6)]
        for entry in labels[name]:
            x0, y0, x1, y1 = (round(v * 1.6) for v in entry["box"])  # 800x450 -> 1280x720
            for other in CAM:
                if other != name:
                    swap = img.copy()
                    swap[y0:y1, x0:x1] = frames[other][y0:y1, x0:x1]
                    swapped.append(thumbnail_change(still_thumbnail(camera(swap, rng), side), ref))
            tip = img.copy()
            cv2.ellipse(tip, (x0 + 10, y0 + 10), (14, 20), 30, 0, 360, (120, 150, 210), -1)
            touched.append(thumbnail_change(still_thumbnail(camera(tip, rng), side), ref))
    assert max(noise) < 0.5 * changed, max(noise)
    assert len(swapped) == 120 and min(swapped) > 5 * changed, min(swapped)
    assert min(touched) > 2 * changed, min(touched)


LYING = [("chicken:orloff:1", 300, 330, 10), ("henhouse:sussex", 980, 380, -20)]


def table(middle: str = "egg:moon-3", deck: str = "beccato") -> np.ndarray:
    img = cloth(720, 1280, seed=0)
    for cid, x, y, a in LYING:
        img = place(img, card("beccato", cid), quad(x, y, 220, a, skew=0.06))
    img = place(img, card(deck, middle), quad(640, 360, 220, 0, skew=0.06))
    return degrade(img, seed=0)


@pytest.fixture(scope="module")
def stages():
    gated = CardStage("cards", deck="beccato", fps=None, threads=1)
    every = CardStage("cards", deck="beccato", fps=None, threads=1, still_frames=False)
    return gated, every


def readings(stage: CardStage, image: np.ndarray, i: int, t: float) -> list[tuple[str | None, float, int, int]]:
    seen = stage(CameraFrame("cards", i, t, image))
    rows = [(r.card, round(r.confidence, 3), *np.round(np.mean(r.corners, axis=0)).astype(int)) for r in seen.cards]
    return sorted(rows, key=lambda r: (r[0] or "", *r[1:]))


def test_a_still_table_is_detected_again_only_on_a_change_or_its_refresh(stages):
    gated, every = stages
    gated.frames.reset()
    gated.still.reset()
    rng = np.random.default_rng(1)
    still, replaced = table(), table("egg:moon-5")
    frames = [camera(still, rng) for _ in range(8)] + [camera(replaced, rng) for _ in range(3)]
    times = [i / 10 for i in range(len(frames))]
    skipped0, detected0 = gated.frames.skipped, gated.frames.detected
    runs = []
    got, want = [], []
    for i, (f, t) in enumerate(zip(frames, times)):
        before = gated.frames.detected
        got.append(readings(gated, f, i, t))
        runs.append(gated.frames.detected > before)
        want.append(readings(every, f, i, t))
    assert got == want  # the same cards, named the same, where the detector would have put them
    assert {r[0] for r in got[0]} == {"chicken:orloff", "henhouse:sussex", "egg:moon-3"}
    assert "egg:moon-5" in {r[0] for r in got[8]}
    # run on frames 0 and 1 (the second finds the same cards: settled), not again until the
    # refresh half a second after frame 1, and at once when the middle card is replaced (read
    # sure where a card lay: settled again)
    assert runs == [True, True, False, False, False, False, True, False, True, False, False]
    assert gated.frames.skipped - skipped0 == 7 and gated.frames.detected - detected0 == 4
    # the clock going back (another recording) is no reason to trust the last run
    before = gated.frames.detected
    readings(gated, camera(replaced, rng), 0, 0.0)
    assert gated.frames.detected == before + 1


def test_a_stranger_is_looked_at_again_a_few_times_then_kept(stages):
    """A card that is not of the deck reads `unknown`. It is read again on each of the next
    frames (new sensor noise: a borderline card may read sure on a second look) until the same
    view has read unsure `patience` times in a row; then that reading is kept like a sure one,
    `retry` times, and the table settles: the detector runs again only at its refresh. The
    readings are those of reading every frame."""
    gated, every = stages
    gated.frames.reset()
    gated.still.reset()
    assert (gated.still.patience, gated.still.retry) == (5, 3)
    rng = np.random.default_rng(2)
    foreign = table("AC", deck="italian")
    read, runs = gated.still.read, []
    for i in range(20):  # 2 s at 10 frames a second
        f, t = camera(foreign, rng), 10 + i / 10
        before = gated.frames.detected
        got, want = readings(gated, f, i, t), readings(every, f, i, t)
        runs.append(gated.frames.detected > before)
        assert [r[0] for r in got] == [r[0] for r in want]
        assert None in [r[0] for r in got]  # the stranger is never named
    # frames 0-4: the stranger read five times; frame 5: kept, settled; then the refreshes
    assert [i for i, r in enumerate(runs) if r] == [0, 1, 2, 3, 4, 5, 10, 15]
    assert gated.still.read - read == 3 + 4  # the three cards, then the stranger four more times
