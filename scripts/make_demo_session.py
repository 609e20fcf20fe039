"""Compose the bundled demo session `datasets/demo/` (a recorded session folder, without its log).

Two cameras on one session clock and a table microphone:

* `cards`: a top-down view of a Beccato! table, 1280x720 at 10 fps, RENDERED here with
  `vision.cards.render` (our own card faces on a synthetic green cloth): eggs turned up onto
  the henhouses, a reveal laid face up after a Coccode, refills and an award. Nothing in it was
  filmed.
* `people`: a REAL clip, `mps_gesture_recognizer_test_video.mp4` from google-ai-edge/mediapipe-samples
  (Apache-2.0, Copyright Google LLC), scaled to 640x360 at 12.5 fps: the player in Bruno's seat
  raises his right fist (~1.5-2.2 s). The clip is 7.8 s long; after it the camera is gone, and
  the table goes on (the referee reports the camera lost).
* `audio.wav`: 16 kHz room noise with a hum (from `vision.audio.synth`, made here).

The keyboard lines the scorekeeper types (`inputs.jsonl`): the calls, with who called and whom.
`expected.json`: the refereed game the perception should reproduce, computed by feeding the
ground truth of the composition (which card lies where, read with confidence 1) through the
same table session.

    .venv/bin/python scripts/make_demo_session.py [--out datasets/demo] [--people PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.table import CardReading, CardsSeen, KeyboardLine, TableSession, TableZones, rect_zone  # noqa: E402
from tablereferee.recording.folder import AUDIO, INPUTS, SessionFolder  # noqa: E402
from vision.audio.sources import SAMPLE_RATE, AudioClip, save_wav  # noqa: E402
from vision.audio.synth import hum, room_noise  # noqa: E402
from vision.cards.decks import card  # noqa: E402
from vision.cards.render import card_mask, render_card  # noqa: E402
from vision.landmarks.extract import propose_calibration  # noqa: E402

W, H = 1280, 720
FPS = 10.0
DURATION = 14.0
CARD_H = 160  # pixels: about 22% of the picture's height
PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
PEOPLE_SOURCE = Path("/work/shared/testdata/people/mps_gesture_recognizer_test_video.mp4")

# Where cards lie: (x, y) centre and rotation in degrees (the way the card's top points).
SLOTS = {
    **{f"egg{i}": ((440 + 137 * i, 360), 0) for i in range(4)},
    **{f"Carla{i}": ((445 + 130 * i, 100), 180) for i in range(4)},
    **{f"Anna{i}": ((445 + 130 * i, 620), 0) for i in range(4)},
    **{f"Bruno{i}": ((95 + 180 * (i % 2), 280 + 150 * (i // 2)), 90) for i in range(4)},
    **{f"Dario{i}": ((1005 + 180 * (i % 2), 280 + 150 * (i // 2)), -90) for i in range(4)},
}

# The composition: (from, to, slot, card id of vision.cards.decks).
TIMELINE = [
    (1.0, 6.0, "egg0", "egg:star-3"),  # turned up onto the Orloff henhouse
    (2.0, 99, "egg1", "egg:dollar-1"),  # Padovana henhouse
    (3.0, 99, "egg2", "egg:moon-2"),  # Brahma henhouse
    # 4.0: Anna calls Coccode; her teammate Carla lays her hand face up
    (4.6, 7.2, "Carla0", "chicken:orloff:1"),
    (4.6, 7.2, "Carla1", "chicken:orloff:2"),
    (4.6, 7.2, "Carla2", "chicken:orloff:3"),
    (4.6, 7.2, "Carla3", "chicken:brahma:1"),
    # the Orloff egg goes to Anna and Carla; a new egg refills the Orloff henhouse
    (6.6, 99, "egg0", "egg:sun-4"),
    # 8.0: Dario calls Coccode; his teammate Bruno has no triple
    (8.6, 11.4, "Bruno0", "chicken:padovana:1"),
    (8.6, 11.4, "Bruno1", "chicken:brahma:2"),
    (8.6, 11.4, "Bruno2", "chicken:serama:1"),
    (8.6, 11.4, "Bruno3", "chicken:orloff:1"),
    # a wrong call: the other team draws the top egg of the deck
    (10.0, 12.0, "egg3", "egg:moon-5"),
]
INPUT_LINES = [(4.0, "coccode Anna"), (8.0, "coccode Dario")]
HUM = (9.0, 12.0)
PEOPLE_FPS = 12.5
# How the demo finds its cards (see README.md): the trained card detector
# (models/card_detector/) finds them, their outlines on the plain cloth give exact corners.
# The bare "detector" misses one card of the sideways 2x2 reveal; "contour" needs no model.
FINDER = "detector+outline"
# The egg faces of one deck differ only by number and symbol: identification reads them at
# 0.83-0.98 here (chickens at 0.99+). Under this table's threshold the referee would ask.
THRESHOLD = 0.7


def zones() -> TableZones:
    cam = "cards"
    return TableZones(
        [
            rect_zone("seat:Carla", cam, 370, 0, 910, 200, "seat", "Carla"),
            rect_zone("seat:Anna", cam, 370, 520, 910, 720, "seat", "Anna"),
            rect_zone("seat:Bruno", cam, 0, 160, 370, 560, "seat", "Bruno"),
            rect_zone("seat:Dario", cam, 910, 160, 1280, 560, "seat", "Dario"),
            rect_zone("eggs", cam, 370, 200, 910, 520, "eggs"),
        ]
    )


def felt(rng: np.random.Generator) -> np.ndarray:
    noise = rng.normal(0, 1, (H // 4, W // 4)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 2), (W, H), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 0.8)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    light = 1.0 - 0.25 * (((xx - W * 0.45) / W) ** 2 + ((yy - H * 0.4) / H) ** 2) * 2
    base = np.array([38, 92, 34], np.float32)  # BGR: a green card-table cloth
    img = base[None, None, :] * light[..., None] * (1 + 0.06 * noise[..., None] + 0.04 * fine[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def card_image(card_id: str) -> tuple[np.ndarray, np.ndarray]:
    ppm = 4.0
    img = render_card(card("beccato", card_id), "classic", px_per_mm=ppm)
    mask = card_mask(img.shape[:2], ppm)
    scale = CARD_H / img.shape[0]
    size = (int(round(img.shape[1] * scale)), CARD_H)
    return (cv2.resize(img, size, interpolation=cv2.INTER_AREA), cv2.resize(mask, size, interpolation=cv2.INTER_AREA))


def place(canvas: np.ndarray, card_id: str, centre, rotation: float, jitter) -> np.ndarray:
    img, mask = card_image(card_id)
    h, w = img.shape[:2]
    angle = rotation + jitter[2]
    cx, cy = centre[0] + jitter[0], centre[1] + jitter[1]
    # the card's own corners (top-left first) rotated about its centre, clockwise for +angle
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    m[0, 2] += cx - w / 2
    m[1, 2] += cy - h / 2
    warped = cv2.warpAffine(img, m, (W, H), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(mask, m, (W, H), flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    shadow = cv2.GaussianBlur(np.roll(np.roll(alpha, 4, 0), 4, 1), (0, 0), 4)
    out = canvas.astype(np.float32) * (1 - 0.35 * shadow[..., None])
    out = out * (1 - alpha[..., None]) + warped.astype(np.float32) * alpha[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def scene(t: float, background: np.ndarray, jitters: dict) -> tuple[np.ndarray, list[tuple[str, str]]]:
    img = background.copy()
    lying = []
    for i, (a, b, slot, card_id) in enumerate(TIMELINE):
        if a <= t < b:
            centre, rot = SLOTS[slot]
            img = place(img, card_id, centre, rot, jitters[i])
            lying.append((slot, card_id))
    return img, lying


def zone_of_slot(slot: str) -> str:
    return "eggs" if slot.startswith("egg") else f"seat:{slot.rstrip('0123456789')}"


def face_key(card_id: str) -> str:
    return card("beccato", card_id).face_key


def ground_truth(setup: dict, origin: float) -> dict:
    """The refereed game from the composition's ground truth (every card read, confidence 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        session = TableSession.start("beccato", setup, Path(tmp) / "truth.db", zones(), clock_origin=origin)
        observations = []
        n = int(DURATION * 5)
        for k in range(n):  # the card stage's 5 frames per second
            t = round(k / 5, 3)
            cards = tuple(
                CardReading(face_key(cid), 1.0, True, zone_of_slot(slot)) for a, b, slot, cid in TIMELINE if a <= t < b
            )
            observations.append((t, 1, CardsSeen(t, "cards", cards)))
        observations += [(t, 0, KeyboardLine(t, text)) for t, text in INPUT_LINES]
        for _, _, obs in sorted(observations, key=lambda o: (o[0], o[1])):
            session.feed(obs)
        result = expected_of(session)
        session.close()
    return result


def expected_of(session) -> dict:
    actions = [{"source": e.source, **e.payload["action"]} for e in session.log.entries if e.kind == "action"]
    return {"actions": actions, "scores": session.state.scores(), "waiting_for": session.state.waiting_for()}


def people_frames(path: Path) -> list[tuple[float, np.ndarray]]:
    import av  # deferred: PyAV loads FFmpeg; only the video needs it

    out = []
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            t = float(frame.time)
            k = len(out)
            if t + 1e-6 < k / PEOPLE_FPS:
                continue
            img = frame.to_ndarray(format="bgr24")
            out.append((round(k / PEOPLE_FPS, 3), cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)))
    return out


def audio(rng: np.random.Generator) -> np.ndarray:
    n = int(DURATION * SAMPLE_RATE)
    x = room_noise(n, rng) * 0.01
    a, b = (int(v * SAMPLE_RATE) for v in HUM)
    h = hum(HUM[1] - HUM[0], rng)[: b - a]
    x[a : a + len(h)] += 0.25 * h / (np.abs(h).max() + 1e-9)
    return x.astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "datasets" / "demo"))
    ap.add_argument("--people", default=str(PEOPLE_SOURCE))
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    out = Path(args.out)
    rng = np.random.default_rng(args.seed)
    keep = {"README.md"}
    if out.exists():
        for p in out.iterdir():
            if p.name not in keep:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
    origin = 1_796_025_600.0  # 2026-12-01 08:00 UTC: the demo's session clock origin
    setup = {"players": PLAYERS}
    people = people_frames(Path(args.people))

    calib = propose_calibration([img for t, img in people if t <= 2.0 and int(t * 10) % 5 == 0], names=["Bruno"])
    calib_dict = calib.to_dict()
    for s in calib_dict["seats"]:
        s["camera"] = "people"
    manifest = {
        "created": origin,
        "game": "beccato",
        "setup": setup,
        "cameras": {
            "cards": {"source": "rendered table scenes (scripts/make_demo_session.py)", "fps": FPS, "size": [W, H]},
            "people": {
                "source": "mps_gesture_recognizer_test_video.mp4 (Apache-2.0, Google LLC)",
                "fps": PEOPLE_FPS,
                "size": [640, 360],
            },
        },
        "zones": zones().to_list(),
        "calibration": calib_dict,
        "options": {
            "deck": "beccato",
            "threshold": THRESHOLD,
            "card_fps": 5.0,
            "landmark_fps": 10.0,
            "lost_after": 2.0,
            "finder": FINDER,
        },
        "duration": DURATION,
        "composed": "rendered card scenes + a real Apache-2.0 clip + synthetic audio; see README.md",
    }
    folder = SessionFolder.create(out, manifest)
    writer = folder.segment_writer("cards", segment_seconds=10.0, crf=30, preset="medium")
    background = felt(rng)
    jitters = {
        i: (float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)))
        for i in range(len(TIMELINE))
    }
    cache: dict[tuple, np.ndarray] = {}
    for k in range(int(DURATION * FPS)):
        t = round(k / FPS, 3)
        key = tuple(i for i, (a, b, _, _) in enumerate(TIMELINE) if a <= t < b)
        if key not in cache:
            cache[key] = scene(t, background, jitters)[0]
        writer.write(t, cache[key])
    writer.close()
    pw = folder.segment_writer("people", segment_seconds=10.0, crf=30, preset="medium")
    for t, img in people:
        pw.write(t, img)
    pw.close()

    save_wav(AudioClip(audio(rng)), out / AUDIO)
    with open(out / INPUTS, "w", encoding="utf-8") as f:
        for t, text in INPUT_LINES:
            f.write(json.dumps({"t": t, "text": text}) + "\n")
    (out / "expected.json").write_text(json.dumps(ground_truth(setup, origin), indent=1) + "\n")
    cv2.imwrite(str(out / "preview.jpg"), scene(5.0, background, jitters)[0], [cv2.IMWRITE_JPEG_QUALITY, 80])
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"wrote {out} ({size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
