"""The spotter's quiz clips: short runs of frames from drills (or recorded sessions), each with
its truth (who signalled and which signal, or nobody), kept as JPEG frames in a folder per clip.

A drill the referee read gives two clips: the signal (from a second before the event to a
second after) and, when the drill holds at least 1.5 s in which no signal at all was read, a
"nobody" clip of those frames. A drill of a team's own card gives none (its answer would tell
the signal).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import threading
from pathlib import Path
from typing import Any

from tablereferee.practice.drill import Drill
from vision.signals.engine import detect_signals

AROUND = 1.0  # seconds of a signal clip before and after the event
QUIET = 1.5  # seconds of a "nobody" clip


@dataclasses.dataclass(frozen=True)
class Clip:
    id: str
    player: str  # whose camera it was
    truth_player: str | None
    truth_signal: str | None
    frames: int
    fps: float
    source: str

    def public(self) -> dict[str, Any]:
        """What the quiz shows before the answer: never the truth."""
        return {"clip": self.id, "frames": self.frames, "fps": self.fps, "players": [self.player]}


class ClipStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()

    def all(self) -> list[Clip]:
        if not self.folder.is_dir():
            return []
        out = []
        for meta in sorted(self.folder.glob("*/clip.json")):
            try:
                out.append(Clip(**json.loads(meta.read_text())))
            except (OSError, ValueError, TypeError):
                continue  # a clip half-written or damaged: not in the quiz
        return out

    def get(self, clip_id: str) -> Clip | None:
        if not clip_id.replace("-", "").replace("_", "").isalnum():
            return None
        meta = self.folder / clip_id / "clip.json"
        try:
            return Clip(**json.loads(meta.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def frame(self, clip_id: str, k: int) -> Path | None:
        clip = self.get(clip_id)
        if clip is None or not 0 <= k < clip.frames:
            return None
        return self.folder / clip_id / f"{k:04d}.jpg"

    def add(
        self, player: str, truth: tuple[str | None, str | None], pictures: list[bytes], fps: float, source: str
    ) -> Clip:
        clip = Clip(secrets.token_urlsafe(8), player, truth[0], truth[1], len(pictures), round(fps, 2), source)
        with self._lock:
            folder = self.folder / clip.id
            folder.mkdir(parents=True, exist_ok=True)
            for k, data in enumerate(pictures):
                (folder / f"{k:04d}.jpg").write_bytes(data)
            (folder / "clip.json").write_text(json.dumps(dataclasses.asdict(clip)))
        return clip

    def from_drill(self, drill: Drill, result: dict[str, Any]) -> list[Clip]:
        """The quiz clips of a finished drill (see the module doc)."""
        if drill.secret or not drill.pictures or len(drill.frames) < 3 or drill._calibration is None:
            return []
        t = [f.t for f in drill.frames]
        fps = (len(t) - 1) / max(t[-1] - t[0], 1e-6)
        out = []
        if result["seen"] and drill.signal in _visible():
            a, b = result["start"] - AROUND, result["end"] + AROUND
            keep = [k for k, x in enumerate(t) if a <= x <= b]
            if len(keep) >= 3:
                pics = [drill.pictures[k] for k in keep]
                out.append(self.add(drill.player, (drill.player, drill.signal), pics, fps, f"drill {drill.id}"))
        events = detect_signals(drill.frames, drill._calibration)
        busy = [(e.start - 0.5, e.end + 0.5) for e in events]
        run: list[int] = []
        for k, x in enumerate(t):
            if any(lo <= x <= hi for lo, hi in busy):
                run = []
                continue
            run.append(k)
            if t[run[-1]] - t[run[0]] >= QUIET:
                pics = [drill.pictures[i] for i in run]
                out.append(self.add(drill.player, (None, None), pics, fps, f"drill {drill.id}"))
                break
        return out


def _visible() -> set[str]:
    from tablereferee.practice.drill import drillable  # deferred: the catalogue, read once per call

    return {s.id for s in drillable()}
