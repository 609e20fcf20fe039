"""Dispute packages: the seconds around one log entry, drawn, with the referee's reasoning.

`make_dispute(session_folder, entry, before=3, after=3)` writes `disputes/entry-N/`:

* `clip.mp4`: the card camera's frames from `before` s before the entry to `after` s after,
  with the cards read (corners, face, confidence, zone) and the table zones drawn, the other
  cameras inset with their landmarks (MediaPipe, re-run over the clip) and the signals of the
  log drawn while they last; a banner gives the session time and the entries logged so far;
* `excerpt.jsonl`: the log entries in that window (and the evidence entries the decision
  names), as stored;
* `reasoning.md`: the entry in words: the rule that made it, the confidence, the evidence, the
  observations around it, the model versions;
* `package.json`: the same as data (entry, window, rule, confidences, evidence entries,
  models, versions, file names, the gaps in the video and whether the disputed moment is in it).

Every gap in the window's video (a missing, unreadable or cut segment, a lost camera) is named
in `reasoning.md` and `package.json` (`video_gaps`); when the disputed moment itself is not in
the card camera's video, `moment_in_video` is false and `reasoning.md` says so first.

A package is written whole or not at all: into a hidden folder beside the target
(`.entry-N.partial-PID`), renamed into place once complete. An existing package is replaced
only with `force` (`PackageExists` otherwise).

A package is for sharing: its entries, words and banner show the public view (no card passed
face down, no team's signal: `referee.secrecy`) unless `viewer` names another.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from referee.core import RefereeError, get_engine
from referee.observations import SignalEvent
from referee.secrecy import HIDDEN_SIGNAL, PUBLIC, Viewer, public_contents
from referee.sessionlog import Entry, LogContents, read_log
from referee.table.zones import TableZones
from referee.voice import say_action
from tablereferee.recording.folder import SegmentWriter, SessionFolder, VideoGap, bgr, read_pictures
from tablereferee.recording.report import write_report
from tablereferee.recording.tracks import landmarks_stored, read_cards, read_landmarks
from vision.capture.stages import CardStage
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.draw import draw_frame
from vision.landmarks.types import FrameLandmarks

if TYPE_CHECKING:
    from vision.landmarks.extract import LandmarkExtractor


STORED_READ_LASTS = 0.25  # s: a stored read (cards, landmarks) is drawn on the frames this long after it


class NoSuchEvent(RefereeError):
    """An entry number the session log does not have."""


class BadWindow(RefereeError):
    """A clip window that holds no time: negative, not a number, or empty."""


class PackageExists(RefereeError):
    """A dispute package already at the target (replaced only when asked to)."""


class MomentNotInVideo(RefereeError):
    """The disputed moment falls in a gap of the card camera's video (the package says why)."""


def check_window(before: float, after: float) -> tuple[float, float]:
    """`before` and `after` as seconds around the entry, or `BadWindow`."""
    for name, value in (("before", before), ("after", after)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise BadWindow(f"--{name} is a number of seconds, 0 or more, not {value}", **{name: value})
    if before + after <= 0:
        raise BadWindow("the clip would hold no time: give --before or --after more than 0 s")
    return float(before), float(after)


LISTED = ("action", "correction")  # entry kinds `list_events` always lists
LISTED_OBSERVATIONS = ("signal", "decision", "ask", "flag", "answer", "camera")


def list_events(session: str | Path, viewer: Viewer = PUBLIC) -> list[dict[str, Any]]:
    """The entries a dispute is about, with their session times, in the viewer's view: the
    actions and corrections, the signals, the referee's decisions, questions and flags, and the
    cameras lost and back (not the card reads each zone logs, which the decisions name)."""
    folder = SessionFolder.open(session)
    contents = _viewed(read_log(folder.log_path), viewer)
    origin = contents.header.created
    out = []
    for e in contents.entries:
        if e.kind in LISTED or (e.kind == "observation" and e.payload.get("type") in LISTED_OBSERVATIONS):
            out.append({"entry": e.seq, "time": round(e.time - origin, 3), "kind": e.kind, "text": _describe(e)})
    return out


def entry_at(session: str | Path, t: float, viewer: Viewer = PUBLIC) -> int:
    """The entry of the moment `t` (session seconds): the listed entry nearest it, an action or
    correction before any other at the same distance. NoSuchEvent when nothing is listed."""
    events = list_events(session, viewer)
    if not events:
        raise NoSuchEvent(f"the session logged no event to cut a clip around (at {t:g} s)", time=t)
    best = min(events, key=lambda ev: (abs(ev["time"] - t), ev["kind"] not in LISTED, ev["entry"]))
    return int(best["entry"])


def _viewed(contents: LogContents, viewer: Viewer) -> LogContents:
    try:
        engine = get_engine(contents.header.game)
    except RefereeError:
        engine = None
    return public_contents(engine, contents, viewer)[0]


def reasoning_entries(entries: list[Entry], target: Entry) -> list[Entry]:
    """The decision, ask or flag observations that explain `target` (an action made from
    perception is preceded by its decision; an answered ask by the ask)."""
    out = []
    if target.kind == "action":
        prev = entries[target.seq - 2] if target.seq >= 2 else None
        if prev is not None and prev.kind == "observation" and prev.payload.get("type") == "decision":
            out.append(prev)
        if target.source == "keyboard" and prev is not None and prev.payload.get("type") == "answer":
            ask = entries[prev.payload["ask"] - 1]
            out += [ask, prev]
    elif target.kind == "observation" and target.payload.get("type") in ("decision", "ask", "flag", "answer"):
        out.append(target)
    return out


def _describe(entry: Entry) -> str:
    p = entry.payload
    if entry.kind == "action":
        typed = f", typed `{p['text']}`" if p.get("text") else ""
        return f"{say_action(None, p['action']).rstrip('.')} ({entry.source}{typed}, confidence {entry.confidence})"
    if entry.kind == "observation":
        kind = p.get("type")
        if kind == "cards":
            return f"cards in {p['zone']}: {', '.join(p['cards']) or 'none'} (confidences {p['confidences']})"
        if kind == "signal":
            name = "a team's signal" if p["signal"] == HIDDEN_SIGNAL else f"signal {p['signal']}"
            return (
                f"{name} by {p['player']} {p['start']:.2f}-{p['end']:.2f} s, confidence "
                f"{p['confidence']}{' (unsure)' if p.get('unsure') else ''}"
            )
        if kind in ("decision", "ask"):
            return f"{kind} by rule `{p['rule']}` (confidence {p['confidence']}): {p['reasoning']}"
        if kind == "flag":
            return f"flag by rule `{p['rule']}`: {p['reason']}"
        if kind == "camera":
            return f"camera {p['camera']} {'back' if p['ok'] else 'lost'} {p.get('reason', '')}"
        if kind == "motion":
            return (
                f"{p['card']} came into {p['zone']} {p['kind']} (confidence {p['confidence']}): {p.get('reason', '')}"
            )
        if kind == "answer":
            return f"answer to ask #{p['ask']}: {'yes' if p['accepted'] else 'no'}"
        return f"observation {kind}"
    if entry.kind == "correction":
        return f"correction {p['op']} of entry {p['target']}"
    return f"{entry.kind}: {p}"


def make_dispute(
    session: str | Path,
    entry: int,
    before: float = 3.0,
    after: float = 3.0,
    out: str | Path | None = None,
    draw_landmarks: bool = True,
    viewer: Viewer = PUBLIC,
    force: bool = False,
) -> dict[str, Any]:
    before, after = check_window(before, after)
    folder = SessionFolder.open(session)
    contents = _viewed(read_log(folder.log_path), viewer)  # what the package shows, for sharing
    if not 1 <= entry <= len(contents.entries):
        raise NoSuchEvent(f"the log has entries 1..{len(contents.entries)}, not {entry}", entry=entry)
    origin = contents.header.created
    target = contents.entries[entry - 1]
    t_event = target.time - origin
    t0, t1 = max(0.0, t_event - before), t_event + after
    window = [e for e in contents.entries if t0 <= e.time - origin <= t1 or e.seq == entry]
    reasons = reasoning_entries(contents.entries, target)
    evidence_seqs: list[int] = []
    for r in reasons:
        evidence_seqs += list(r.payload.get("entries", []))
    evidence = [contents.entries[s - 1] for s in evidence_seqs if 1 <= s <= len(contents.entries)]
    excerpt = sorted({e.seq: e for e in window + reasons + evidence}.values(), key=lambda e: e.seq)
    out_dir = Path(out) if out else folder.path / "disputes" / f"entry-{entry}"
    if out_dir.exists() and not force:
        raise PackageExists(f"{out_dir} already exists (give --force to replace it)", path=str(out_dir))
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.parent.glob(f".{out_dir.name}.partial-*"):  # left by a killed run
        shutil.rmtree(stale, ignore_errors=True)
    work = out_dir.parent / f".{out_dir.name}.partial-{os.getpid()}"
    work.mkdir()
    try:
        package = _write_package(
            folder,
            contents,
            target,
            entry,
            t_event,
            t0,
            t1,
            window,
            reasons,
            evidence_seqs,
            evidence,
            excerpt,
            work,
            draw_landmarks,
            viewer,
        )
        _put_in_place(work, out_dir)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return {"folder": str(out_dir), **package}


def _put_in_place(work: Path, out_dir: Path) -> None:
    """The complete package in `work` becomes `out_dir`; an old package there goes only once
    the new one is in place."""
    old = None
    if out_dir.exists():
        old = out_dir.parent / f".{out_dir.name}.old-{os.getpid()}"
        os.replace(out_dir, old)
    os.replace(work, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink()


def _write_package(
    folder: SessionFolder,
    contents: Any,
    target: Entry,
    entry: int,
    t_event: float,
    t0: float,
    t1: float,
    window: list[Entry],
    reasons: list[Entry],
    evidence_seqs: list[int],
    evidence: list[Entry],
    excerpt: list[Entry],
    out_dir: Path,
    draw_landmarks: bool,
    viewer: Viewer = PUBLIC,
) -> dict[str, Any]:
    origin = contents.header.created
    try:
        engine = get_engine(contents.header.game)
    except RefereeError:
        engine = None
    with open(out_dir / "excerpt.jsonl", "w", encoding="utf-8") as f:
        for e in excerpt:
            f.write(json.dumps(e.to_dict(), ensure_ascii=False) + "\n")
    clip = out_dir / "clip.mp4"
    main = focus_camera(folder, target)
    frames = _render_clip(folder, contents.entries, origin, t0, t1, clip, entry, draw_landmarks, main)
    gaps = folder.video_gaps(t0, t1)
    main_gaps = [g for g in gaps if g.camera == main]
    in_video = bool(frames) and main is not None and not any(g.covers(t_event) for g in main_gaps)
    models = folder.manifest.get("models", {})
    drawn_from = _drawn_from(folder, _main_camera(folder), draw_landmarks)
    package = {
        "session": str(folder.path),
        "entry": target.to_dict(),
        "time": round(t_event, 3),
        "window": [round(t0, 3), round(t1, 3)],
        "reasoning": [r.payload for r in reasons],
        "confidence": target.confidence,
        "evidence_entries": evidence_seqs,
        "confidences": {e.seq: e.confidence for e in excerpt if e.confidence is not None},
        "models": models,
        "versions": folder.manifest.get("versions", {}),
        "engine_version": contents.header.engine_version,
        "game": contents.header.game,
        "files": {
            "clip": clip.name if frames else None,
            "excerpt": "excerpt.jsonl",
            "reasoning": "reasoning.md",
            "report": "report.html",
        },
        "clip_frames": frames,
        "clip_camera": main,
        "card_camera": _main_camera(folder),
        "drawn_from": drawn_from,
        "moment_in_video": in_video,
        "not_in_video": None if in_video else not_in_video(t_event, main, main_gaps),
        "video_gaps": [g.to_dict() for g in gaps],
        "video_gap_lines": [g.describe() for g in gaps],
    }
    lines = [
        f"# Entry {entry} of {folder.path.name}",
        "",
        f"At {t_event:.2f} s on the session clock: {_describe(target)}.",
        "",
    ]
    if not in_video:
        lines += [f"**{package['not_in_video']}**", ""]
    if gaps:
        lines += ["## Gaps in the video", ""] + [f"- {g.describe()}" for g in gaps] + [""]
    if reasons:
        lines += ["## Why", ""] + [f"- #{r.seq}: {_describe(r)}" for r in reasons] + [""]
    if evidence:
        lines += (
            ["## Evidence", ""] + [f"- #{e.seq} at {e.time - origin:.2f} s: {_describe(e)}" for e in evidence] + [""]
        )
    lines += ["## Around it", ""] + [f"- #{e.seq} at {e.time - origin:.2f} s: {_describe(e)}" for e in window] + [""]
    lines += [
        "## Models",
        "",
        "```json",
        json.dumps(models, indent=1),
        "```",
        "",
        f"Game engine: {contents.header.game} {contents.header.engine_version}.",
        f"Clip: {clip.name} ({frames} frames of camera {main}, {t0:.1f}-{t1:.1f} s)."
        if frames
        else "Clip: no video was recorded in this window.",
        "Drawn on it: " + "; ".join(f"{what} {how}" for what, how in drawn_from.items()) + ".",
    ]
    (out_dir / "reasoning.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_report(
        out_dir,
        folder,
        engine,
        viewer,
        target,
        origin,
        t_event,
        (t0, t1),
        reasons,
        evidence,
        excerpt,
        package,
        gaps,
        _describe,
    )
    # package.json last: a package folder that has it is complete
    (out_dir / "package.json").write_text(json.dumps(package, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return package


def _drawn_from(folder: SessionFolder, main: str | None, draw_landmarks: bool) -> dict[str, str]:
    """Where the clip's overlays come from: what the run stored, or perception run again."""
    out: dict[str, str] = {}
    if main is not None:
        stored = read_cards(folder.path, main) is not None
        out["the cards"] = "as the run read them" if stored else "read again from the video"
    if draw_landmarks and folder.manifest.get("calibration"):
        seats = {s.get("camera") for s in folder.manifest["calibration"].get("seats", ())}
        others = [c for c in folder.camera_names() if c in seats and folder.camera_dir(c).is_dir()]
        stored = all(landmarks_stored(folder.path, c) for c in others)
        out["the landmarks"] = "as the run found them" if stored else "found again from the video"
    return out


def not_in_video(t: float, camera: str | None, gaps: Sequence[VideoGap]) -> str:
    """Why the disputed moment at `t` is not in the clip, in words."""
    if camera is None:
        return f"The disputed moment ({t:.2f} s) is not in the video: the session recorded no camera."
    covering = [g for g in gaps if g.covers(t)]
    if covering:
        return f"The disputed moment ({t:.2f} s) is not in the video: " + "; ".join(g.describe() for g in covering)
    return f"The disputed moment ({t:.2f} s) is not in the video: camera {camera} has no frame in the window."


def _main_camera(folder: SessionFolder) -> str | None:
    """The card camera: the first with zones (else the first camera)."""
    cams = [c for c in folder.camera_names() if folder.camera_dir(c).is_dir()]
    if not cams:
        return None
    zone_cams = [z.get("camera") for z in folder.manifest.get("zones") or []]
    return next((c for c in cams if c in zone_cams), cams[0])


def accused_of(target: Entry) -> str | None:
    """The player a dispute is about: whose signal was seen, who was caught, who revealed or
    called (None: the entry names nobody)."""
    p = target.payload
    if target.kind == "observation" and p.get("type") == "signal":
        return p.get("player")
    action = p.get("action") if target.kind == "action" else None
    if isinstance(action, Mapping):
        for key in ("target", "player", "caller"):
            if isinstance(action.get(key), str):
                return str(action[key])
    return None


def focus_camera(folder: SessionFolder, target: Entry) -> str | None:
    """The camera a dispute clip shows large: the one that sees the accused player (a signal, a
    Caught!), else the card camera."""
    accused = accused_of(target)
    seats = (folder.manifest.get("calibration") or {}).get("seats", ())
    cams = {c for c in folder.camera_names() if folder.camera_dir(c).is_dir()}
    if target.kind == "observation" or (target.payload.get("action") or {}).get("kind") in ACCUSING:
        for seat in seats:
            if seat.get("name") == accused and seat.get("camera") in cams:
                return str(seat["camera"])
    return _main_camera(folder)


ACCUSING = ("caught", "chicchirichi")  # actions whose dispute is about a player's body, not cards


def _render_clip(
    folder: SessionFolder,
    entries: list[Entry],
    origin: float,
    t0: float,
    t1: float,
    path: Path,
    entry: int,
    draw_landmarks: bool,
    focus: str | None = None,
) -> int:
    """The clip at the focus camera's own frame rate, that camera large (at least 1280 px wide),
    the others inset with their overlays."""
    manifest = folder.manifest
    focus = focus or _main_camera(folder)
    if focus is None:
        return 0
    cams = [c for c in folder.camera_names() if folder.camera_dir(c).is_dir()]
    signals = [e.payload for e in entries if e.kind == "observation" and e.payload.get("type") == "signal"]
    card_camera = _main_camera(folder)
    views = {c: _View(folder, c, manifest, t0, t1, draw_landmarks, cards=c == card_camera) for c in cams}
    writer = SegmentWriter(path.parent / ".clip", segment_seconds=1e9, crf=23)
    n = 0
    try:
        while (t := views[focus].next_time()) is not None:
            if t > t1 + 1e-6:
                break
            canvas = views[focus].at(t, signals)
            if t < t0 - 1e-6:
                continue
            if canvas.shape[1] < 1280:
                canvas = cv2.resize(canvas, None, fx=1280 / canvas.shape[1], fy=1280 / canvas.shape[1])
            inset_w = canvas.shape[1] // 3
            y = canvas.shape[0] - 74  # insets stacked up from the banner, at the right
            for cam, view in views.items():
                if cam == focus:
                    continue
                small = view.at(t, signals, inset_w)
                h, w = small.shape[:2]
                if y - h >= 0 and w <= canvas.shape[1]:
                    canvas[y - h : y, canvas.shape[1] - w - 10 : canvas.shape[1] - 10] = small
                y -= h + 10
            _banner(canvas, t, [e for e in entries if e.time - origin <= t + 1e-6], entry, signals)
            writer.write(t - t0, canvas)
            n += 1
    finally:
        writer.close()
        for view in views.values():
            view.close()
    segs = sorted((path.parent / ".clip").glob("seg_*.mp4"))
    if segs:
        os.replace(segs[0], path)
    for s in segs[1:]:
        s.unlink()
    try:
        (path.parent / ".clip").rmdir()
    except OSError:
        pass
    return n


def _card_reader(manifest: dict[str, Any], camera: str) -> CardStage | None:
    opts = manifest.get("options", {})
    try:
        zones = TableZones.from_list(manifest["zones"])
        return CardStage(
            camera,
            deck=opts.get("deck", "beccato"),
            finder=opts.get("finder", "detector"),
            locate=zones.locate,
            fps=None,
            model=opts.get("model"),
        )
    except (RefereeError, KeyError, ValueError):
        return None


class _View:
    """One camera over the clip's window, drawn as the run saw it: the card camera with its
    zones and the cards read, a camera on seats with the landmarks found (stored by the run;
    found again only for a session that kept none)."""

    def __init__(
        self,
        folder: SessionFolder,
        camera: str,
        manifest: dict[str, Any],
        t0: float,
        t1: float,
        landmarks: bool,
        cards: bool = False,
    ) -> None:
        # decoded as the clip is drawn, a frame ahead: a window of several cameras held whole
        # cost about 135 MB at the demo's peak
        self._frames = _window(read_pictures(folder.camera_dir(camera)), t0 - 1, t1)
        self._next = next(self._frames, None)
        self.camera = camera
        self.zones = manifest.get("zones") or [] if cards else []
        self.card_track = read_cards(folder.path, camera) if cards else None
        self.reader = _card_reader(manifest, camera) if cards and self.card_track is None else None
        self.extractor: LandmarkExtractor | None = None
        self.calib: TableCalibration | None = None
        self.stored: dict[int, FrameLandmarks] = {}  # the landmarks the run found, by frame time (ms)
        calib = manifest.get("calibration")
        if landmarks and calib and any(s.get("camera") == camera for s in calib.get("seats", ())):
            self.calib = TableCalibration.from_dict(calib).for_camera(camera)
            track = read_landmarks(folder.path, camera)
            if track is not None:
                self.stored = {round(f.t * 1000): f for f in track.between(t0 - 1, t1)}
            else:  # a session recorded before the run kept its landmarks
                from vision.landmarks.extract import LandmarkExtractor  # deferred: loads SciPy; only landmarks need it

                self.extractor = LandmarkExtractor(self.calib)
        self.i = -1  # the index of the last frame drawn
        self.last: tuple[float, np.ndarray] | None = None

    def next_time(self) -> float | None:
        """The time of the next frame not drawn yet (None: the window is over)."""
        return None if self._next is None else self._next[0]

    def at(self, t: float, signals: Sequence[Mapping[str, Any]], width: int | None = None) -> np.ndarray:
        """The camera's latest frame at `t`, drawn, `width` pixels wide (None: its own size)."""
        while self._next is not None and self._next[0] <= t + 1e-6:
            ft, picture = self._next
            self.i += 1
            self._next = next(self._frames, None)
            if self.reader is None and self.extractor is None and self._next is not None and self._next[0] <= t + 1e-6:
                continue  # drawn over by the next frame before it is shown (nothing to track on it)
            self.last = (ft, self._drawn(ft, bgr(picture), signals))
        if self.last is None or t - self.last[0] > 1.0:
            w = width or 640
            blank = np.zeros((int(w * 9 / 16), w, 3), np.uint8)
            cv2.putText(blank, f"{self.camera}: no picture", (10, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2)
            return blank
        img = self.last[1]
        if width is None:
            return img.copy()
        return cv2.resize(img, (width, int(img.shape[0] * width / img.shape[1])), interpolation=cv2.INTER_AREA)

    def _drawn(self, ft: float, img: np.ndarray, signals: Sequence[Mapping[str, Any]]) -> np.ndarray:
        canvas = img.copy()
        if self.zones:
            draw_zones(canvas, self.zones, self.camera)
        if self.card_track is not None:
            seen = self.card_track.at(ft)
            if seen is not None and ft - seen["t"] <= STORED_READ_LASTS:
                draw_readings(canvas, seen["cards"])
        elif self.reader is not None:
            _draw_cards(canvas, self.reader.read(img))
        fl = None
        if self.stored:
            fl = self._stored_at(ft)
        elif self.extractor is not None:
            fl = self.extractor.process(img, ft, self.i)
        if fl is not None and self.calib is not None:
            evs = [SignalEvent(**{k: v for k, v in s.items() if k != "type"}) for s in signals]
            canvas = draw_frame(canvas, fl, self.calib, evs)
        return canvas

    def _stored_at(self, t: float) -> FrameLandmarks | None:
        """The stored landmarks of the frame at `t` (the run may have skipped it: the latest
        before it, when no older than a frame or two)."""
        exact = self.stored.get(round(t * 1000))
        if exact is not None:
            return exact
        before = [f for f in self.stored.values() if f.t <= t + 1e-6]
        latest = max(before, key=lambda f: f.t, default=None)
        return latest if latest is not None and t - latest.t <= STORED_READ_LASTS else None

    def close(self) -> None:
        self._frames.close()
        if self.extractor is not None:
            self.extractor.close()


def _window(
    frames: Iterator[tuple[float, np.ndarray]], t0: float, t1: float
) -> Generator[tuple[float, np.ndarray], None, None]:
    """The frames from `t0` to `t1` of a stream in time order; reading stops after `t1`."""
    for t, img in frames:
        if t > t1:
            return
        if t >= t0:
            yield t, img


def draw_zones(canvas: np.ndarray, zones: list[dict], camera: str) -> None:
    for z in zones:
        if z.get("camera") != camera:
            continue
        pts = np.array(z["polygon"], np.int32)
        cv2.polylines(canvas, [pts], True, (200, 200, 200), 1, cv2.LINE_AA)
        cv2.putText(
            canvas,
            z["name"],
            (int(pts[:, 0].min()) + 6, int(pts[:, 1].min()) + 18),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.55,
            (230, 230, 230),
            1,
            cv2.LINE_AA,
        )


def _draw_cards(canvas: np.ndarray, dets) -> None:
    for i in range(len(dets)):
        pts = dets.corners[i].astype(np.int32)
        known = dets.label[i] is not None
        colour = (0, 220, 0) if known else (0, 0, 255)
        cv2.polylines(canvas, [pts], True, colour, 2, cv2.LINE_AA)
        cv2.circle(canvas, tuple(int(v) for v in pts[0]), 4, (0, 255, 255), -1)
        label = f"{dets.label[i] or '?'} {float(dets.label_confidence[i]):.2f}" if dets.face_up[i] else "face down"
        x, y = int(pts[:, 0].min()), int(pts[:, 1].max()) + 16
        cv2.putText(canvas, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(canvas, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)


def draw_readings(canvas: np.ndarray, cards: Sequence[Mapping[str, Any]]) -> None:
    """The cards as the run read them (tracks/CAMERA/cards.jsonl), drawn as `_draw_cards` does."""
    for c in cards:
        if len(c["corners"]) != 4:
            continue
        pts = np.array(c["corners"], np.int32)
        known = c["card"] is not None
        colour = (0, 220, 0) if known else (0, 0, 255)
        cv2.polylines(canvas, [pts], True, colour, 2, cv2.LINE_AA)
        cv2.circle(canvas, tuple(int(v) for v in pts[0]), 4, (0, 255, 255), -1)
        label = f"{c['card'] or '?'} {float(c['confidence']):.2f}" if c["face_up"] else "face down"
        x, y = int(pts[:, 0].min()), int(pts[:, 1].max()) + 16
        cv2.putText(canvas, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(canvas, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)


def _banner(
    canvas: np.ndarray, t: float, so_far: list[Entry], entry: int, signals: Sequence[Mapping[str, Any]]
) -> None:
    h, w = canvas.shape[:2]
    cv2.rectangle(canvas, (0, h - 64), (w, h), (0, 0, 0), -1)
    last = [e for e in so_far if e.kind in ("action", "correction") or e.payload.get("type") in ("flag", "ask")][-2:]
    text = f"t={t:5.2f} s   " + "   ".join(f"#{e.seq} {_short(e)}" for e in last)
    cv2.putText(canvas, text[:150], (10, h - 38), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    live = [s for s in signals if s["start"] <= t <= s["end"] + 0.5]
    sig = "  ".join(f"{s['player']}: {s['signal']} {s['confidence']:.2f}" for s in live)
    mark = f"[entry #{entry}]" if any(e.seq == entry for e in so_far) else ""
    cv2.putText(
        canvas, f"{mark} {sig}"[:150], (10, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 255, 255), 1, cv2.LINE_AA
    )


def _short(e: Entry) -> str:
    if e.kind == "action":
        a = e.payload["action"]
        return " ".join(str(v) if not isinstance(v, list) else " ".join(v) for v in a.values() if v is not None)
    if e.kind == "correction":
        return f"{e.payload['op']} {e.payload['target']}"
    return e.payload.get("type", e.kind)
