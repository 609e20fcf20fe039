"""The spotter's quiz clips: short runs of frames from drills or recorded sessions, each with
its truth (who signalled and which signal, or nobody), kept as JPEG frames in a folder per clip.

A drill the referee read gives two clips: the signal (`LENGTH` seconds around the event) and,
when the drill holds `LENGTH` seconds in which no signal at all was read, a "nobody" clip of
those frames. A drill of a team's own card or of its Free Signal gives none (its answer would
tell the team's signal). Recorded sessions give theirs through `tablereferee.practice.sessions`.

A clip of a signal that is (or was, in its session) a team's secret signal carries that team
(`Clip.team`): it is shown, answered and revealed only to a caller holding the team's PIN
(`visible`), and to nobody else; to them it is as if it did not exist.
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
import shutil
import threading
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from referee.signal_cards import FREE_SIGNAL
from tablereferee.practice.drill import Drill
from vision.signals.engine import detect_signals

LENGTH = 2.5  # seconds of every clip, a signal's and a "nobody" one alike (so its length tells nothing)
QUIET_MARGIN = 0.5  # seconds kept clear of any signal around a "nobody" clip
AROUND = 1.0  # at least this much of a drill's signal clip before the event, when there is room
QUIET = LENGTH  # seconds of a "nobody" clip
MAX_DRILL_CLIPS = 400  # drills' clips kept on disk (about 20 kB a frame, 30 frames a clip); the oldest go first


@dataclasses.dataclass(frozen=True)
class Clip:
    id: str
    player: str  # whose camera it was (a drill's player; a session's camera)
    truth_player: str | None
    truth_signal: str | None
    frames: int
    fps: float
    source: str
    kind: str = "drill"  # "drill" or "session"
    players: tuple[str, ...] = ()  # who could have signalled (a session camera's seats)
    team: str | None = None  # the team whose secret signal this is: only its PIN shows it
    made: int = 0  # when it was cut (time.time_ns): the oldest drills' clips go first

    def public(self) -> dict[str, Any]:
        """What the quiz shows before the answer: never the truth, never when or where."""
        return {
            "clip": self.id,
            "frames": self.frames,
            "fps": self.fps,
            "players": list(self.players or (self.player,)),
            "from": "a recorded session" if self.kind == "session" else "a drill",
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Clip:
        d = dict(data)
        d["players"] = tuple(d.get("players") or ())
        return cls(**d)


def visible(
    clip: Clip,
    teams: Collection[str],
    secret_signals: Mapping[str, Collection[str]],
    members: Mapping[str, Collection[str]] | None = None,
) -> bool:
    """Whether a caller holding `teams`' PINs may see `clip`: never a team's secret signal of a
    team they do not hold (`clip.team`, or a signal that is a team's now: `secret_signals`,
    signal -> teams, the live table's), when one of that team signals it. With `members` (team ->
    players, the live table's), a clip of someone outside the team making the team's signal is
    everyone's: hiding it would tell which card is the team's (drill every card, see which clip
    never shows)."""
    if clip.team is not None and clip.team not in teams:
        return False
    owners = list(secret_signals.get(clip.truth_signal or "", ()))
    if members is not None and clip.truth_player is not None:
        owners = [t for t in owners if t not in members or clip.truth_player in members[t]]
    return not owners or any(t in teams for t in owners)


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
                out.append(Clip.from_json(json.loads(meta.read_text())))
            except (OSError, ValueError, TypeError):
                continue  # a clip half-written or damaged: not in the quiz
        return out

    def get(self, clip_id: str) -> Clip | None:
        if not clip_id or not clip_id.replace("-", "").replace("_", "").isalnum():
            return None
        meta = self.folder / clip_id / "clip.json"
        try:
            return Clip.from_json(json.loads(meta.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def frame(self, clip_id: str, k: int) -> Path | None:
        clip = self.get(clip_id)
        if clip is None or not 0 <= k < clip.frames:
            return None
        return self.folder / clip_id / f"{k:04d}.jpg"

    def add(
        self,
        player: str,
        truth: tuple[str | None, str | None],
        pictures: list[bytes],
        fps: float,
        source: str,
        *,
        kind: str = "drill",
        players: tuple[str, ...] = (),
        team: str | None = None,
    ) -> Clip:
        clip = Clip(
            secrets.token_urlsafe(8),
            player,
            truth[0],
            truth[1],
            len(pictures),
            round(fps, 2),
            source,
            kind,
            tuple(players),
            team,
            time.time_ns(),
        )
        with self._lock:
            folder = self.folder / clip.id
            folder.mkdir(parents=True, exist_ok=True)
            for k, data in enumerate(pictures):
                (folder / f"{k:04d}.jpg").write_bytes(data)
            (folder / "clip.json").write_text(json.dumps(dataclasses.asdict(clip)))  # last: the clip is whole
        return clip

    def remove(self, clip_id: str) -> None:
        if self.get(clip_id) is not None:
            shutil.rmtree(self.folder / clip_id, ignore_errors=True)

    def prune(self, keep: int = MAX_DRILL_CLIPS) -> int:
        """Keep the newest `keep` clips of drills (a session's are bounded by the session); answers
        how many went."""
        drills = [c for c in self.all() if c.kind != "session"]
        if len(drills) <= keep:
            return 0
        drills.sort(key=lambda c: c.made)
        for c in drills[: len(drills) - keep]:
            self.remove(c.id)
        return len(drills) - keep

    def from_drill(self, drill: Drill, result: dict[str, Any]) -> list[Clip]:
        """The quiz clips of a finished drill (see the module doc)."""
        if (
            drill.secret
            or drill.signal == FREE_SIGNAL
            or not drill.pictures
            or len(drill.frames) < 3
            or drill._calibration is None
        ):
            return []
        t = [f.t for f in drill.frames]
        fps = (len(t) - 1) / max(t[-1] - t[0], 1e-6)
        out = []
        if result["seen"] and drill.signal in _visible():
            a, b = signal_window(result["start"], result["end"], t[0], t[-1])
            keep = [k for k, x in enumerate(t) if a <= x <= b]
            if len(keep) >= 3:
                pics = even([drill.pictures[k] for k in keep], fps)
                out.append(self.add(drill.player, (drill.player, drill.signal), pics, fps, f"drill {drill.id}"))
        events = detect_signals(drill.frames, drill._calibration)
        busy = [(e.start - QUIET_MARGIN, e.end + QUIET_MARGIN) for e in events]
        run: list[int] = []
        for k, x in enumerate(t):
            if any(lo <= x <= hi for lo, hi in busy):
                run = []
                continue
            run.append(k)
            if t[run[-1]] - t[run[0]] >= QUIET - 1e-6:
                pics = even([drill.pictures[i] for i in run], fps)
                out.append(self.add(drill.player, (None, None), pics, fps, f"drill {drill.id}"))
                break
        if out:
            self.prune()
        return out


def even(pictures: list[Any], fps: float) -> list[Any]:
    """At most `LENGTH` seconds' worth of frames at `fps`: every clip of a camera the same count."""
    return pictures[: max(3, int(LENGTH * fps + 0.5))]


def signal_window(
    start: float, end: float, first: float, last: float, rng: random.Random | None = None
) -> tuple[float, float]:
    """`LENGTH` seconds holding the event [start, end] (a longer event: the event and a little
    either side), placed at random so that where the gesture falls in the clip tells nothing,
    and kept inside the recording [first, last] where it can be."""
    rng = rng or random.Random()
    dur = end - start
    if dur + 0.4 >= LENGTH:
        a = start - 0.2
        return a, max(end + 0.2, a + LENGTH)
    lead = rng.uniform(0.2, min(AROUND, LENGTH - dur - 0.2))
    a = start - lead
    a = min(max(a, first), start - 0.1)  # not before the recording's first frame, and the start inside
    a = max(min(a, last - LENGTH), end + 0.1 - LENGTH)  # nor past its last one, and the end inside
    return a, a + LENGTH


def _visible() -> set[str]:
    from tablereferee.practice.drill import drillable  # deferred: the catalogue, read once per call

    return {s.id for s in drillable()}
