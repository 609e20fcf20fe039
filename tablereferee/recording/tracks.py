"""What perception saw, frame by frame, kept beside the video of a session (`tracks/CAMERA/`).

A dispute clip, a review or a question ("did Anna touch her nose between 4 and 7 s?") needs the
cards read and the landmarks of every processed frame. Running the models again over the video
costs as long as the run did (most of `referee demo`'s clip), and could answer differently
from what the table decided on. So the run keeps them as it goes:

    tracks/CAMERA/cards.jsonl          one line a processed frame: {"t", "frame", "cards": [...]}
                                       (each card: its corners, name, confidence, face up, zone)
    tracks/CAMERA/landmarks.jsonl.gz   one line a processed frame: FrameLandmarks.to_dict()
                                       (every seat's face, hands and pose, in frame pixels)

Lines are flushed frame by frame (the gzip stream with a sync flush), so a killed run leaves
every frame it finished; a reader stops at a cut or damaged end and says how many lines it
kept (`Track.problem`), it never fails a clip for it.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import zlib
from pathlib import Path
from typing import IO, Any

from referee.observations import CardsSeen
from vision.landmarks.types import FrameLandmarks

TRACKS = "tracks"
CARDS_FILE = "cards.jsonl"
LANDMARKS_FILE = "landmarks.jsonl.gz"


class TrackWriter:
    """Appends each processed frame's cards and landmarks to the session folder's tracks."""

    def __init__(self, session_dir: str | Path) -> None:
        self.root = Path(session_dir) / TRACKS
        self._cards: dict[str, IO[str]] = {}
        self._landmarks: dict[str, gzip.GzipFile] = {}

    def _dir(self, camera: str) -> Path:
        folder = self.root / camera
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def cards(self, seen: CardsSeen) -> None:
        out = self._cards.get(seen.camera)
        if out is None:
            out = self._cards[seen.camera] = open(self._dir(seen.camera) / CARDS_FILE, "a", encoding="utf-8")
        line = {
            "t": round(seen.t, 4),
            "frame": seen.frame,
            "cards": [
                {
                    "card": c.card,
                    "confidence": round(c.confidence, 4),
                    "face_up": c.face_up,
                    "zone": c.zone,
                    "corners": [[round(x, 1), round(y, 1)] for x, y in c.corners],
                }
                for c in seen.cards
            ],
        }
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
        out.flush()

    def landmarks(self, camera: str, frame: FrameLandmarks) -> None:
        out = self._landmarks.get(camera)
        if out is None:
            out = self._landmarks[camera] = gzip.GzipFile(self._dir(camera) / LANDMARKS_FILE, "ab", compresslevel=4)
        out.write(json.dumps(frame.to_dict(), separators=(",", ":")).encode() + b"\n")
        out.flush(zlib.Z_SYNC_FLUSH)

    def close(self) -> None:
        for f in self._cards.values():
            f.close()
        for g in self._landmarks.values():
            g.close()
        self._cards.clear()
        self._landmarks.clear()


@dataclasses.dataclass
class Track:
    """One camera's stored frames, in time order; `problem` says why the end was not read."""

    camera: str
    frames: list[Any]
    problem: str | None = None

    def between(self, t0: float, t1: float) -> list[Any]:
        return [f for f in self.frames if t0 - 1e-6 <= _t(f) <= t1 + 1e-6]

    def at(self, t: float) -> Any | None:
        """The latest frame at or before `t` (None: none yet)."""
        best = None
        for f in self.frames:
            if _t(f) > t + 1e-6:
                break
            best = f
        return best


def _t(frame: Any) -> float:
    return float(frame["t"] if isinstance(frame, dict) else frame.t)


def read_cards(session_dir: str | Path, camera: str) -> Track | None:
    """The stored card reads of `camera` (None: the run kept none)."""
    path = Path(session_dir) / TRACKS / camera / CARDS_FILE
    if not path.is_file():
        return None
    frames: list[dict[str, Any]] = []
    problem = None
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                frames.append(json.loads(raw))
            except (ValueError, UnicodeDecodeError):
                problem = f"{path.name} line {number} is cut or damaged: {len(frames)} frames kept"
                break
    return Track(camera, frames, problem)


def landmarks_stored(session_dir: str | Path, camera: str) -> bool:
    return (Path(session_dir) / TRACKS / camera / LANDMARKS_FILE).is_file()


def read_landmarks(session_dir: str | Path, camera: str) -> Track | None:
    """The stored landmarks of `camera`, as FrameLandmarks (None: the run kept none)."""
    path = Path(session_dir) / TRACKS / camera / LANDMARKS_FILE
    if not path.is_file():
        return None
    frames: list[FrameLandmarks] = []
    problem = None
    try:
        with gzip.open(path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    problem = f"{path.name} ends in the middle of a frame: {len(frames)} frames kept"
                    break
                frames.append(FrameLandmarks.from_dict(json.loads(raw)))
    except (EOFError, OSError, zlib.error) as exc:  # a run killed mid-write: its last frames are kept
        problem = f"{path.name} is cut ({exc.__class__.__name__}): {len(frames)} frames kept"
    except (ValueError, KeyError, TypeError) as exc:
        problem = f"{path.name} frame {len(frames) + 1} is damaged ({exc}): {len(frames)} frames kept"
    return Track(camera, frames, problem)
