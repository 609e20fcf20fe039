"""The body signals on real people: every real photo and clip, what should fire, what did.

    from vision.signals.real_eval import evaluate
    report = evaluate()            # {"rows": [...], "totals": {...}}, per file and in total

Each file of `MEDIA` says what a person watching it would call (a signal and, for a clip, when;
or nothing) and whether thresholds may be tuned on it (`tune`) or not (`held-out`). A file is
looked for in the project's `tests/fixtures/people` first, then in `../shared/testdata/people`.
Landmarks are extracted once with MediaPipe (`landmarks_from_media`, 10 frames a second, crops
at most 640 px) and cached beside the fixtures (`tests/fixtures/people/landmarks/`), so the
detectors can be measured again in a second; `fresh=True` extracts again from the media.

Scoring, per file: an expected signal is a **hit** when an event of that signal overlaps its
window (a still: any event of it), a **miss** otherwise; every other event is a **false event**
(an unsure one counts too, and is shown as such).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from referee.observations import SignalEvent
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks
from vision.signals.catalogue import Catalogue
from vision.signals.engine import detect_signals, landmarks_from_media

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "people"
SHARED = ROOT.parent / "shared" / "testdata" / "people"
CACHE = FIXTURES / "landmarks"
CACHE_FORMAT = "real-landmarks/1"
FPS = 10.0
SLACK = 0.3  # seconds either side of an expected window that an event may start or end in


@dataclasses.dataclass(frozen=True)
class Expected:
    signal: str
    start: float | None = None  # seconds; None for a still picture
    end: float | None = None

    def text(self) -> str:
        if self.start is None:
            return self.signal
        return f"{self.signal} {self.start:.1f}-{self.end:.1f} s"


@dataclasses.dataclass(frozen=True)
class RealMedia:
    stem: str  # file name without its extension (a copy may be re-encoded)
    expected: tuple[Expected, ...]
    split: str  # "tune" or "held-out"
    what: str


TUNE, HELD_OUT = "tune", "held-out"

# What each real file shows (sides are the person's own). The held-out files are those no test
# or threshold had seen before this table was made: five of ../shared/testdata/people and three
# real photos shipped inside scikit-image and matplotlib.
MEDIA: tuple[RealMedia, ...] = (
    RealMedia(
        "mps_gesture_recognizer_test_video",
        (Expected("raise_hand_right", 1.5, 2.3),),
        TUNE,
        "clip: right fist beside the cheek (~1 s), raised above the head (~1.5-2.2 s), thumbs-up before the face",
    ),
    RealMedia("mptasks_pointing_up", (Expected("raise_hand_left"),), TUNE, "left hand raised to head height, index up"),
    RealMedia("mps_image_classification_test_video", (), TUNE, "clip: seated at a table, hand on a trackpad"),
    RealMedia("mptasks_face", (), TUNE, "frontal face, eyes open, no hands"),
    RealMedia("mp_sergey", (), TUNE, "frontal face, eyes open, no hands"),
    RealMedia("mps_face_detector_testImg", (), TUNE, "two children, eyes open, a hand on a shoulder"),
    RealMedia("mptasks_thumbs_up", (), TUNE, "thumbs-up at the chest, near the face"),
    RealMedia("mptasks_thumbs_down", (), TUNE, "thumbs-down held in front of the face"),
    RealMedia("mptasks_victory", (), TUNE, "victory sign held towards the camera, masked face"),
    RealMedia("mps_pose_landmarker_test_image", (), TUNE, "laughing with both eyes nearly closed (not a wink)"),
    RealMedia(
        "mptasks_google_sample_woman_hands",
        (),
        HELD_OUT,
        "right forearm across the forehead, the other hand held out at chin height (not a raise, not a touch)",
    ),
    RealMedia("mps_business-person", (), HELD_OUT, "one hand at chest height holding glasses"),
    RealMedia("mps_hand_landmarker_test_video", (), HELD_OUT, "clip: one hand opening and turning, no face"),
    RealMedia("mps_hand_landmarker_test_image", (), HELD_OUT, "two thumbs-up, hands only"),
    RealMedia("mps_hand_thumb_up", (), HELD_OUT, "a thumbs-up, hand only"),
    RealMedia("skimage_astronaut", (), HELD_OUT, "portrait, smiling, a hand low on a helmet"),
    RealMedia("skimage_camera", (), HELD_OUT, "a man looking through a camera held at his eye (grey)"),
    RealMedia("mpl_grace_hopper", (), HELD_OUT, "portrait with glasses, no hands"),
)
BY_STEM = {m.stem: m for m in MEDIA}
SUFFIXES = (".mp4", ".jpg", ".jpeg", ".png")


def find_media(stem: str, dirs: Sequence[Path] = (FIXTURES, SHARED)) -> Path | None:
    for d in dirs:
        for suffix in SUFFIXES:
            p = d / f"{stem}{suffix}"
            if p.is_file():
                return p
    return None


def _cache_path(stem: str, cache_dir: Path) -> Path:
    return cache_dir / f"{stem}.json.gz"


def save_landmarks(path: Path, frames: Sequence[FrameLandmarks], calibration: TableCalibration) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": CACHE_FORMAT,
        "fps": FPS,
        "calibration": calibration.to_dict(),
        "frames": [f.to_dict(ndigits=1) for f in frames],
    }
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as fh:
        json.dump(data, fh, separators=(",", ":"))


def load_landmarks(path: Path) -> tuple[list[FrameLandmarks], TableCalibration]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    if data.get("format") != CACHE_FORMAT:
        raise ValueError(f"{path.name} is not a real-landmarks cache ({CACHE_FORMAT})")
    return [FrameLandmarks.from_dict(f) for f in data["frames"]], TableCalibration.from_dict(data["calibration"])


def landmarks_for(
    path: Path, cache_dir: Path | None = CACHE, fresh: bool = False
) -> tuple[list[FrameLandmarks], TableCalibration]:
    """A file's landmarks and proposed calibration: from the cache unless `fresh` (or missing),
    then written to the cache."""
    stem = path.stem
    cached = _cache_path(stem, cache_dir) if cache_dir is not None else None
    if cached is not None and cached.is_file() and not fresh:
        return load_landmarks(cached)
    frames, calibration = landmarks_from_media(path, fps=FPS)
    if cached is not None:
        save_landmarks(cached, frames, calibration)
    return frames, calibration


def drop_hands(frame: FrameLandmarks) -> FrameLandmarks:
    """The frame as if MediaPipe Hands had found no hand."""
    return dataclasses.replace(frame, persons=tuple(p.replace(hands={}) for p in frame.persons), unassigned_hands=())


def _overlaps(e: SignalEvent, x: Expected) -> bool:
    if x.start is None or x.end is None:
        return True
    return e.start <= x.end + SLACK and e.end >= x.start - SLACK


def score(media: RealMedia, events: Sequence[SignalEvent], still: bool = False) -> dict[str, Any]:
    """One file's row: expected, fired, hits, misses, false events."""
    matched: set[int] = set()
    hits, misses = [], []
    for x in media.expected:
        found = [i for i, e in enumerate(events) if e.signal == x.signal and _overlaps(e, x)]
        if found:
            hits.append(x.text())
            matched.update(found)
        else:
            misses.append(x.text())
    false = [e for i, e in enumerate(events) if i not in matched]
    return {
        "file": media.stem,
        "split": media.split,
        "what": media.what,
        "expected": [x.text() for x in media.expected] or ["none"],
        "fired": [_event_text(e, still) for e in events] or ["none"],
        "confidence": [round(e.confidence, 2) for e in events],
        "hits": len(hits),
        "misses": len(misses),
        "false_events": len(false),
        "false_sure": sum(not e.unsure for e in false),
        "missed": misses,
        "false": [_event_text(e, still) for e in false],
    }


def _event_text(e: SignalEvent, still: bool = False) -> str:
    when = "" if still else f" {e.start:.1f}-{e.end:.1f} s"
    return f"{e.signal}{when} ({e.confidence:.2f}{', unsure' if e.unsure else ''})"


def totals(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    out: dict[str, Any] = {"files": len(rows)}
    for k in ("hits", "misses", "false_events", "false_sure"):
        out[k] = sum(r[k] for r in rows)
    out["expected"] = out["hits"] + out["misses"]
    out["recall"] = round(out["hits"] / out["expected"], 3) if out["expected"] else None
    return out


def evaluate(
    paths: Sequence[str | Path] | None = None,
    *,
    catalogue: Catalogue | None = None,
    cache_dir: Path | None = CACHE,
    fresh: bool = False,
    dirs: Sequence[Path] = (FIXTURES, SHARED),
    without_hands: bool = False,
) -> dict[str, Any]:
    """Every real people file (or those of `paths` that `MEDIA` describes) through the
    detectors. Returns {"rows": [per file], "totals": {"all", "tune", "held-out"}, "absent": [...]}:
    files of the table found in neither folder are listed as absent, not scored.
    `without_hands`: as if MediaPipe Hands had found no hand anywhere (face and pose only)."""
    wanted: list[tuple[RealMedia, Path]] = []
    absent: list[str] = []
    unknown: list[str] = []
    if paths is None:
        for m in MEDIA:
            p = find_media(m.stem, dirs)
            if p is None and cache_dir is not None and _cache_path(m.stem, cache_dir).is_file() and not fresh:
                p = Path(m.stem)  # landmarks cached, media not here: still measurable
            if p is None:
                absent.append(m.stem)
            else:
                wanted.append((m, p))
    else:
        for raw in paths:
            p = Path(raw)
            known = BY_STEM.get(p.stem)
            if known is None:
                unknown.append(str(p))
            else:
                wanted.append((known, p))
    rows = []
    for m, p in wanted:
        frames, calibration = landmarks_for(p, cache_dir, fresh)
        if without_hands:
            frames = [drop_hands(f) for f in frames]
        events = detect_signals(frames, calibration, catalogue)
        row = score(m, events, still=len(frames) == 1)
        row["frames"] = len(frames)
        row["seconds"] = round(frames[-1].t - frames[0].t, 2) if len(frames) > 1 else 0.0
        rows.append(row)
    return {
        "rows": rows,
        "totals": {
            "all": totals(rows),
            TUNE: totals(r for r in rows if r["split"] == TUNE),
            HELD_OUT: totals(r for r in rows if r["split"] == HELD_OUT),
        },
        "absent": absent,
        "unlabelled": unknown,
    }


def markdown_table(report: dict[str, Any], before: dict[str, Any] | None = None) -> str:
    """The per-file table (with a "before" column when an earlier report is given)."""
    prev = {r["file"]: r for r in (before or {}).get("rows", [])}
    head = "| file | split | expected | " + ("fired before | " if before else "") + "fired | hits | misses | false |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in report["rows"]:
        cells = [r["file"], r["split"], ", ".join(r["expected"])]
        if before:
            b = prev.get(r["file"])
            cells.append(", ".join(b["fired"]) if b else "-")
        cells += [", ".join(r["fired"]), str(r["hits"]), str(r["misses"]), str(r["false_events"])]
        lines.append("| " + " | ".join(cells) + " |")
    for name, t in report["totals"].items():
        if not t["files"]:
            continue
        b = (before or {}).get("totals", {}).get(name)
        was = f" (before: {b['hits']} hits, {b['misses']} misses, {b['false_events']} false)" if b else ""
        lines.append(
            f"\n**{name}**: {t['files']} files, {t['hits']} of {t['expected']} expected signals found, "
            f"{t['misses']} missed, {t['false_events']} false events ({t['false_sure']} sure){was}"
        )
    return "\n".join(lines)
