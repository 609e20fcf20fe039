"""Quiz clips cut from recorded sessions (a session folder: `cameras/CAM/seg_*.mp4`, the log).

Every signal the referee saw a seated player make on camera (a visible signal observation in
the log, whose player has a seat on a camera that recorded the moment) gives a clip of
`clips.LENGTH` seconds holding it; stretches of that camera in which no signal at all was seen
(nor within `QUIET_MARGIN` of it) give "nobody" clips, as many as the signals (at least two),
spread over the session. Nothing is run again: the truth is what the referee logged.

A signal that is, or was at some point of the session, a team's secret signal (the setup's
`signals`, a Signal Change's new one, a team's Free Signal) makes a clip that carries the team
(`Clip.team`): only that team's PIN shows it (`clips.visible`).

    cut_session(store, "tonight", Path("sessions/tonight"))   # the clips made (none if done before)

Each session is cut once; a log that has grown since (a table still playing) is cut again, its
old clips removed. What was cut is kept in `<clips>/sessions.json`.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core import Engine, RefereeError, get_engine
from referee.secrecy import secret_signals
from referee.sessionlog import LogContents, read_log
from referee.signal_cards import FREE_SIGNAL
from tablereferee.practice.clips import LENGTH, QUIET_MARGIN, Clip, ClipStore, even, signal_window
from tablereferee.practice.drill import clip_picture
from tablereferee.recording.folder import SessionFolder, SessionFolderError, segment_start

log = logging.getLogger(__name__)
MAX_SIGNALS = 20  # signal clips a session gives at most (the strongest first)
MAX_FPS = 12.5  # a clip's frames a second at most (a faster camera's frames are thinned)
INDEX = "sessions.json"


@dataclass(frozen=True)
class Cut:
    camera: str
    start: float
    end: float
    truth_player: str | None
    truth_signal: str | None
    players: tuple[str, ...]
    team: str | None


def _engine(contents: LogContents) -> Engine | None:
    try:
        return get_engine(contents.header.game)
    except RefereeError:
        return None


def _team_of(player: str, setup: Mapping[str, Any]) -> str | None:
    for team, members in (setup.get("teams") or {}).items():
        if player in (members or ()):
            return str(team)
    return None


def cuts(folder: SessionFolder, contents: LogContents, visible: set[str], seed: str = "") -> list[Cut]:
    """What to cut from one session (see the module doc). Where a signal falls in its clip is
    drawn at random, but the same for the same entry of the same session (`seed`): a session
    cut again keeps the clips it had."""
    origin = contents.header.created
    setup = contents.header.setup or {}
    seats = {
        str(s["name"]): str(s["camera"])
        for s in (folder.manifest.get("calibration") or {}).get("seats") or []
        if s.get("name") and s.get("camera")
    }
    on_camera: dict[str, tuple[str, ...]] = {}
    for name, cam in seats.items():
        on_camera[cam] = (*on_camera.get(cam, ()), name)
    secret = secret_signals(_engine(contents), contents)
    spans = {cam: _span(folder, cam) for cam in on_camera}
    signals = [e for e in contents.entries if e.kind == "observation" and e.payload.get("type") == "signal"]
    out: list[Cut] = []
    busy: dict[str, list[tuple[float, float]]] = {cam: [] for cam in on_camera}
    strongest = sorted(signals, key=lambda e: -(e.payload.get("confidence") or 0.0))
    for e in signals:
        p = e.payload
        start, end = float(p.get("start", e.time - origin)), float(p.get("end", e.time - origin))
        seat_cam = seats.get(str(p.get("player")))
        for c in [seat_cam] if seat_cam else list(busy):  # a signal of nobody seated keeps every camera busy
            if c in busy:
                busy[c].append((start - QUIET_MARGIN, end + QUIET_MARGIN))
    for e in strongest:
        p = e.payload
        player, signal = str(p.get("player")), str(p.get("signal"))
        where = seats.get(player)
        span = spans.get(where) if where else None
        if where is None or span is None or (signal not in visible and signal != FREE_SIGNAL):
            continue
        first, last = span
        try:
            start, end = float(p["start"]), float(p["end"])
        except (KeyError, TypeError, ValueError):
            continue  # a signal entry without its moment: nothing to cut
        if start < first or end > last:
            continue  # the camera did not record the moment
        teams = secret.get(signal, set())
        own = _team_of(player, setup)
        team = None
        if signal == FREE_SIGNAL:  # a Free Signal is always its team's own
            team = (p.get("evidence") or {}).get("team") or own or "a team"
        elif teams and (own is None or own in teams):  # someone of another team making it gives nothing away
            team = own if own in teams else sorted(teams)[0]
        a, b = signal_window(start, end, first, last, random.Random(f"{seed}:{e.seq}"))
        out.append(Cut(where, a, b, player, signal, on_camera[where], str(team) if team else None))
        if len(out) >= MAX_SIGNALS:
            break
    wanted = max(2, len(out))
    quiet: list[Cut] = []
    for cam, span in spans.items():
        if span is None:
            continue
        t = span[0]
        stretches = []
        while t + LENGTH <= span[1] + 1e-6:
            clash = next((hi for lo, hi in sorted(busy[cam]) if lo < t + LENGTH and hi > t), None)
            if clash is None:
                stretches.append(t)
                t += LENGTH
            else:
                t = clash
        quiet += [Cut(cam, s, s + LENGTH, None, None, on_camera[cam], None) for s in stretches]
    if len(quiet) > wanted:  # spread over the session
        step = len(quiet) / wanted
        quiet = [quiet[int(k * step)] for k in range(wanted)]
    return out + quiet


def _segments(folder: SessionFolder, camera: str) -> list[tuple[float, Path]]:
    d = folder.camera_dir(camera)
    segs = [(segment_start(p), p) for p in sorted(d.glob("seg_*.mp4"))] if d.is_dir() else []
    return [(s, p) for s, p in segs if s is not None]


def _span(folder: SessionFolder, camera: str) -> tuple[float, float] | None:
    """The first and last frame time the camera recorded (its frames' packets, nothing decoded)."""
    from tablereferee.web.review import frame_times  # deferred: PyAV, cached per segment

    times = [s + t for s, p in _segments(folder, camera) for t in frame_times(p)]
    return (min(times), max(times)) if times else None


def _frames(folder: SessionFolder, camera: str, windows: list[tuple[float, float]]) -> Iterator[tuple[float, Any]]:
    """(session time, BGR image) of the camera's frames inside any of `windows`, decoding only
    the segments that overlap one."""
    import av  # deferred: PyAV loads FFmpeg; only a session's clips need it

    segs = _segments(folder, camera)
    for k, (start, path) in enumerate(segs):
        end = segs[k + 1][0] if k + 1 < len(segs) else float("inf")
        inside = [(a, b) for a, b in windows if a < end and b >= start]
        if not inside:
            continue
        stop = max(b for _, b in inside)
        try:
            with av.open(str(path)) as container:
                stream = container.streams.video[0]
                for frame in container.decode(stream):
                    if frame.pts is None or frame.time_base is None:
                        continue
                    t = round(start + float(frame.pts * frame.time_base), 4)
                    if t > stop + 1e-6:
                        break
                    if any(a - 1e-6 <= t <= b + 1e-6 for a, b in inside):
                        yield t, frame.to_ndarray(format="bgr24")
        except (av.error.FFmpegError, OSError, IndexError) as exc:  # a cut segment: the frames read so far
            log.info("%s: %s", path, exc)


def _signature(folder: SessionFolder) -> str:
    stat = folder.log_path.stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _key(c: Cut) -> str:
    return json.dumps([c.camera, round(c.start, 2), round(c.end, 2), c.truth_player, c.truth_signal, c.team])


def cut_session(store: ClipStore, sid: str, path: Path) -> list[Clip]:
    """The new quiz clips of one recorded session (none when it was cut before and has not
    changed since, or when it cannot be read). Cut again, a session keeps the clips that are
    still planned the same (the same moment, truth and team: a round in progress goes on), and
    loses the others: a signal that became a team's secret since is cut anew with the team."""
    from tablereferee.practice.drill import drillable  # deferred: the catalogue

    index_path = store.folder / INDEX
    try:
        index = json.loads(index_path.read_text())
    except (OSError, ValueError):
        index = {}
    try:
        folder = SessionFolder.open(path)
        signature = _signature(folder)
        if index.get(sid, {}).get("signature") == signature:
            return []
        contents = read_log(folder.log_path)
    except (SessionFolderError, RefereeError, OSError) as exc:
        log.info("session %s gives no quiz clips: %s", sid, exc)
        return []
    before = index.get(sid, {}).get("clips", {})
    before = before if isinstance(before, dict) else {}
    visible = {s.id for s in drillable()}
    plan = cuts(folder, contents, visible, sid)
    kept = {_key(c): before[_key(c)] for c in plan if _key(c) in before and store.get(before[_key(c)]) is not None}
    for key, old in before.items():
        if key not in kept:
            store.remove(old)
    made: list[Clip] = []
    by_camera: dict[str, list[Cut]] = {}
    for c in plan:
        if _key(c) not in kept:
            by_camera.setdefault(c.camera, []).append(c)
    for camera, wanted in by_camera.items():
        pictures: dict[int, list[tuple[float, bytes]]] = {k: [] for k in range(len(wanted))}
        last_kept: dict[int, float] = {}
        for t, image in _frames(folder, camera, [(c.start, c.end) for c in wanted]):
            jpeg: bytes | None = None
            for k, c in enumerate(wanted):
                if c.start - 1e-6 <= t <= c.end + 1e-6 and t - last_kept.get(k, -1e9) >= 1 / MAX_FPS - 1e-3:
                    jpeg = jpeg or clip_picture(image)
                    pictures[k].append((t, jpeg))
                    last_kept[k] = t
        for k, c in enumerate(wanted):
            pics = pictures[k]
            if len(pics) < 3:
                continue
            fps = (len(pics) - 1) / max(pics[-1][0] - pics[0][0], 1e-6)
            pics = even(pics, fps)
            clip = store.add(
                c.players[0] if c.players else camera,
                (c.truth_player, c.truth_signal),
                [j for _, j in pics],
                fps,
                f"session {sid} {camera} {c.start:.2f}-{c.end:.2f}",
                kind="session",
                players=c.players,
                team=c.team,
            )
            made.append(clip)
            kept[_key(c)] = clip.id
    index[sid] = {"signature": signature, "clips": kept}
    store.folder.mkdir(parents=True, exist_ok=True)
    tmp = index_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(index))
    tmp.replace(index_path)
    return made
