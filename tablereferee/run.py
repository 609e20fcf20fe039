"""Running a table: cameras, perception stages, the table session and the recording, together.

    config = TableConfig.from_manifest(json.load(open("datasets/demo/session.json")))
    result = run_recorded("datasets/demo", "sessions/demo-1", config)     # a recorded session
    result = run_live({"cards": 0, "people": 1}, "sessions/tonight", config, keyboard=lines)

`run_recorded` reads a session folder's cameras, audio and typed lines in session-time order
and processes every frame that a stage's rate asks for: the same recording always gives the
same log (that is what `referee replay` checks). With `reuse=True` it perceives nothing: it feeds
the observations stored in the folder's log back through the fusion rules.

`run_live` opens the cameras (webcam, file, URL), records every frame into segments on each
camera's own thread, and processes the latest frame of each camera whenever a stage is due
(frames the machine cannot keep up with are skipped, never queued). Typed lines come from
`keyboard` (an iterable of lines, read on its own thread) and are kept in `inputs.jsonl`.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import queue
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from referee.core import RefereeError
from tablereferee.recording.folder import SessionFolder, model_record, versions
from referee.table.lead_motion import LeadMotion, MotionThresholds
from vision.observe import hands_seen
from referee.observations import CameraStatus, KeyboardLine, ZoneContent
from referee.table.session import Decision, TableSession
from referee.table.zones import TableZones
from referee.observations import SignalEvent

ROOT = Path(__file__).resolve().parents[1]


class TableConfigError(RefereeError):
    """A table configuration that cannot run: no zones, no game, a stage that cannot start."""


@dataclasses.dataclass
class TableConfig:
    game: str
    setup: dict
    zones: TableZones
    calibration: dict | None = None  # vision.landmarks TableCalibration.to_dict(), seats per camera
    deck: str = "beccato"
    threshold: float = 0.8
    card_fps: float = 5.0
    landmark_fps: float = 10.0
    finder: str = "detector"  # or "contour"
    model: str | None = None
    lost_after: float = 2.0
    audio: bool = True
    duration: float | None = None
    motion: dict | None = None  # lead-motion settings (`MotionThresholds` fields) other than the defaults

    @classmethod
    def from_manifest(cls, m: Mapping[str, Any], **overrides: Any) -> "TableConfig":
        opts = dict(m.get("options", {}))
        try:
            cfg = cls(game=m["game"], setup=dict(m["setup"]), zones=TableZones.from_list(m["zones"]),
                      calibration=m.get("calibration"), deck=opts.get("deck", "beccato"),
                      threshold=float(opts.get("threshold", 0.8)), card_fps=float(opts.get("card_fps", 5.0)),
                      landmark_fps=float(opts.get("landmark_fps", 10.0)), finder=opts.get("finder", "detector"),
                      model=opts.get("model"), lost_after=float(opts.get("lost_after", 2.0)),
                      audio=bool(opts.get("audio", True)), duration=m.get("duration"),
                      motion=opts.get("motion"))
        except KeyError as exc:
            raise TableConfigError(f"the session manifest lacks {exc}") from None
        cfg.motion_thresholds()  # a malformed setting is refused before anything runs
        for k, v in overrides.items():
            if v is not None:
                setattr(cfg, k, v)
        return cfg

    def options(self) -> dict[str, Any]:
        out = {"deck": self.deck, "threshold": self.threshold, "card_fps": self.card_fps,
               "landmark_fps": self.landmark_fps, "finder": self.finder, "model": self.model,
               "lost_after": self.lost_after, "audio": self.audio}
        if self.motion:
            out["motion"] = dict(self.motion)
        return out

    def motion_thresholds(self) -> MotionThresholds:
        """The lead-motion cue's settings: the defaults, with `options.motion` over them
        (e.g. {"settle": 0.4, "slide_path": [0.8, 1.5]})."""
        given = dict(self.motion or {})
        fields = {f.name: f for f in dataclasses.fields(MotionThresholds)}
        unknown = sorted(set(given) - set(fields))
        if unknown:
            raise TableConfigError(f"options.motion: unknown setting(s) {unknown}", known=sorted(fields))
        values: dict[str, Any] = {}
        for name, value in given.items():
            default = getattr(MotionThresholds(), name)
            try:
                if isinstance(default, tuple):
                    lo, hi = (float(v) for v in value)
                    if not lo < hi:
                        raise ValueError("a ramp goes from its nil value up to its full one")
                    values[name] = (lo, hi)
                else:
                    values[name] = float(value)
            except (TypeError, ValueError) as exc:
                raise TableConfigError(f"options.motion.{name}: {value!r} is not "
                                       f"{'two increasing numbers' if isinstance(default, tuple) else 'a number'}"
                                       f" ({exc})") from None
        return MotionThresholds(**values)

    def signal_cameras(self) -> list[str]:
        if not self.calibration:
            return []
        return list(dict.fromkeys(str(s.get("camera", "0")) for s in self.calibration.get("seats", ())))

    def card_cameras(self) -> list[str]:
        return list(dict.fromkeys(z.camera for z in self.zones))


class Perception:
    """The stages of every camera: cards where the camera has zones, landmarks and signals
    where it covers seats. `__call__(frame)` answers the observations of that frame."""

    def __init__(self, config: TableConfig, threads: int | None = None, cameras: Iterable[str] | None = None) -> None:
        from vision.capture.stages import CardStage, SignalStage

        present = None if cameras is None else set(cameras)

        self.config = config
        self.card: dict[str, Any] = {}
        self.signal: dict[str, Any] = {}
        self.seconds: dict[str, float] = {"cards": 0.0, "signals": 0.0}
        self.frames: dict[str, int] = {"cards": 0, "signals": 0}
        for cam in config.card_cameras():
            if present is not None and cam not in present:
                continue
            try:
                self.card[cam] = CardStage(cam, deck=config.deck, finder=config.finder, locate=config.zones.locate,
                                           fps=config.card_fps, model=config.model, threads=threads)
            except RefereeError as exc:
                raise TableConfigError(f"the card reader of camera {cam!r} cannot start: {exc}") from None
        if config.calibration:
            from vision.landmarks.calibration import TableCalibration

            calib = TableCalibration.from_dict(config.calibration)
            for cam in config.signal_cameras():
                if present is not None and cam not in present:
                    continue
                self.signal[cam] = SignalStage(cam, calib.for_camera(cam), fps=config.landmark_fps)

    def __call__(self, frame) -> list[Any]:
        out: list[Any] = []
        stage = self.card.get(frame.camera)
        if stage is not None and stage.due(frame.t):
            t0 = time.perf_counter()
            out.append(stage(frame))
            self.seconds["cards"] += time.perf_counter() - t0
            self.frames["cards"] += 1
        stage = self.signal.get(frame.camera)
        if stage is not None and stage.due(frame.t):
            t0 = time.perf_counter()
            out.extend(stage(frame))
            if frame.camera in self.card and stage.landmarks:
                # a card camera that also sees hands: a hand on a lead card as it lands
                out.append(hands_seen(stage.landmarks[-1], frame.camera))
            self.seconds["signals"] += time.perf_counter() - t0
            self.frames["signals"] += 1
        return out

    def flush(self) -> list[SignalEvent]:
        out: list[SignalEvent] = []
        for stage in self.signal.values():
            out.extend(stage.flush())
        return out

    def models(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for cam, stage in self.card.items():
            rec = {"finder": stage.finder, "deck": stage.deck.name, "deck_source": stage.deck.source}
            deck_file = Path(stage.deck.source) / "deck.json"
            if deck_file.is_file():  # an enrolled deck: its templates' index
                rec["deck_file"] = model_record(deck_file)
            if stage.model_path:
                rec["detector"] = model_record(stage.model_path)
            out[f"cards:{cam}"] = rec
        if self.signal:
            out["signals"] = {"landmarks": "mediapipe " + versions().get("mediapipe", "?"),
                              "catalogue": model_record(ROOT / "vision" / "signals" / "catalogue.json")}
        if self.config.audio:
            out["audio"] = {"classifier": model_record(ROOT / "vision" / "audio" / "classifier.json")}
        return out

    def close(self) -> None:
        for stage in self.signal.values():
            stage.close()


def audio_events(folder: SessionFolder) -> list[SignalEvent]:
    """The audible signals of a recorded table microphone (`vision.audio`), on the session clock."""
    from vision.audio.pipeline import AudioListener

    clip = folder.audio_clip()
    return [] if clip is None else list(AudioListener().analyse(clip).events)


@dataclasses.dataclass
class RunResult:
    folder: SessionFolder
    session: TableSession
    decisions: list[Decision]
    seconds: float  # wall-clock processing time
    duration: float  # session seconds covered
    stage_seconds: dict[str, float]
    stage_frames: dict[str, int]
    delays: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    captured: dict[str, int] = dataclasses.field(default_factory=dict)  # live: frames read per camera
    dropped: dict[str, int] = dataclasses.field(default_factory=dict)  # live: frames skipped per camera

    def summary(self) -> dict[str, Any]:
        state = self.session.state
        out = {"folder": str(self.folder.path), "entries": len(self.session.log.entries),
               "actions": sum(1 for e in self.session.log.entries if e.kind == "action"),
               "duration_s": round(self.duration, 3), "processing_s": round(self.seconds, 3),
               "realtime_factor": round(self.seconds / self.duration, 3) if self.duration else None,
               "is_over": state.is_over}
        if hasattr(state, "scores"):
            out["scores"] = state.scores()
        return out


def _manifest(config: TableConfig, origin: float, cameras: Mapping[str, Any], perception: Perception | None,
              extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    from referee.core import get_engine

    engine = get_engine(config.game)
    return {"created": origin, "game": engine.name, "engine_version": engine.version, "setup": config.setup,
            "cameras": dict(cameras), "zones": config.zones.to_list(), "calibration": config.calibration,
            "options": config.options(), "duration": config.duration,
            "models": perception.models() if perception else {}, "versions": versions(), **dict(extra or {})}


def _keyboard_line_from_entry(entry) -> str | None:
    """The typed line behind a keyboard entry of a stored log (for replays reusing the log)."""
    p = entry.payload
    if entry.kind == "action":
        return p.get("text") or None
    if entry.kind == "correction":
        if p["op"] == "undo":
            return f"undo {p['target']}"
        return f"amend {p['target']} {p.get('text', '')}".strip()
    if entry.kind == "note":
        return f"note {p['text']}"
    if entry.kind == "observation" and p.get("type") == "answer":
        return f"{'yes' if p['accepted'] else 'no'} {p['ask']}"
    return None


def stored_observations(source: SessionFolder) -> list[tuple[float, Any]]:
    """What a stored log saw, in log order, as observations to feed again."""
    from referee.sessionlog import read_log

    contents = read_log(source.log_path)
    origin = contents.header.created
    out: list[tuple[float, Any]] = []
    for e in contents.entries:
        t = round(e.time - origin, 3)
        p = e.payload
        if e.source == "keyboard":
            line = _keyboard_line_from_entry(e)
            if line:
                out.append((t, KeyboardLine(t, line)))
        elif e.kind == "observation" and p.get("type") == "cards":
            out.append((t, ZoneContent.from_payload(t, p)))
        elif e.kind == "observation" and p.get("type") == "signal":
            fields = {k: v for k, v in p.items() if k != "type"}
            out.append((t, SignalEvent(**fields)))
        elif e.kind == "observation" and p.get("type") == "camera":
            out.append((t, CameraStatus(t, p["camera"], p["ok"], p.get("reason", ""))))
        elif e.kind == "observation" and p.get("type") == "motion":
            out.append((t, LeadMotion.from_payload(p)))
    return out


def run_recorded(source: str | Path, out: str | Path, config: TableConfig | None = None, *,
                 reuse: bool = False, threads: int | None = None, copy_media: bool = True,
                 echo: Callable[[Decision], None] | None = None) -> RunResult:
    """Referee a recorded session folder into a new session folder `out` (see the module doc)."""
    from tablereferee.recording.playback import camera_stream
    from vision.capture.sources import CameraFrame

    src = SessionFolder.open(source)
    config = config or TableConfig.from_manifest(src.manifest)
    origin = src.created
    cameras = src.camera_names()
    perception = None if reuse else Perception(config, threads=threads, cameras=cameras)
    manifest = _manifest(config, origin, src.manifest.get("cameras", {}), perception,
                         {"replayed_from": str(src.path), "reused_observations": reuse})
    folder = SessionFolder.create(out, manifest)
    if copy_media:
        for cam in cameras:
            dst = folder.camera_dir(cam)
            dst.mkdir(parents=True, exist_ok=True)
            for seg in sorted(src.camera_dir(cam).glob("seg_*.mp4")):
                shutil.copy2(seg, dst / seg.name)
        if src.audio_path.is_file():
            shutil.copy2(src.audio_path, folder.audio_path)
        if src.audio_dir.is_dir():
            shutil.copytree(src.audio_dir, folder.audio_dir, dirs_exist_ok=True)
    session = TableSession.start(config.game, config.setup, folder.log_path, config.zones,
                                 clock_origin=origin, threshold=config.threshold,
                                 motion=config.motion_thresholds())
    decisions: list[Decision] = []
    started = time.perf_counter()
    end = float(config.duration or 0.0)

    def emit(ds: list[Decision]) -> None:
        decisions.extend(ds)
        if echo:
            for d in ds:
                echo(d)

    try:
        if reuse:
            for t, obs in stored_observations(src):
                if isinstance(obs, KeyboardLine):
                    folder.append_input(t, obs.text)
                emit(session.feed(obs))
                end = max(end, t)
        else:
            audio: list[SignalEvent] = []
            if config.audio and src.has_audio():
                t0 = time.perf_counter()
                audio = sorted(audio_events(src), key=lambda e: e.end)
                perception.seconds["audio"] = time.perf_counter() - t0
            counter = itertools.count()
            streams = [((item.t, 0 if isinstance(item, CameraStatus) else 3, next(counter), item)
                        for item in camera_stream(cam, src.camera_dir(cam), config.lost_after, config.duration))
                       for cam in cameras]
            typed = [((t, 1, next(counter), KeyboardLine(t, text)) for t, text in src.inputs())]
            heard = [((ev.end + 0.6, 2, next(counter), ev) for ev in audio)]
            mouths: list[SignalEvent] = []
            for t, _, _, item in heapq.merge(*streams, *typed, *heard):
                end = max(end, t)
                if isinstance(item, CameraFrame):
                    for obs in perception(item):
                        if isinstance(obs, SignalEvent) and obs.signal == "mouth_moving":
                            mouths.append(obs)
                        emit(session.feed(obs))
                    continue
                if isinstance(item, KeyboardLine):
                    folder.append_input(item.t, item.text)
                elif isinstance(item, SignalEvent):
                    from vision.audio.attribute import attribute

                    item = attribute([item], mouths)[0]
                emit(session.feed(item))
            for ev in perception.flush():
                emit(session.feed(ev))
        emit(session.settle())
    finally:
        if perception:
            perception.close()
    seconds = time.perf_counter() - started
    return RunResult(folder, session, decisions, seconds, end,
                     dict(perception.seconds) if perception else {}, dict(perception.frames) if perception else {})


def run_live(cameras: Mapping[str, Any], out: str | Path, config: TableConfig, *,
             keyboard: Iterable[str] | None = None, paced: bool = True, duration: float | None = None,
             threads: int | None = None, record: bool = True, origin: float | None = None,
             echo: Callable[[Decision], None] | None = None, segment_seconds: float = 10.0,
             microphone: Any = None, lockstep: bool = False) -> RunResult:
    """Referee live cameras (see the module doc). `cameras`: {name: webcam index, URL, video file
    or a recorded camera folder}. Stops when every camera has ended, the keyboard says `quit`,
    or `duration` session seconds have passed. `microphone`: a device index or name (None: no
    microphone), or an iterable of `AudioClip` blocks on the session clock. `lockstep` (files
    only, with `paced=False`): every frame is processed whatever the machine's load, instead of
    the newest one (a batch run; a live camera never waits for the referee)."""
    from vision.capture.grabber import Grabber
    from tablereferee.recording.playback import RecordedCamera
    from vision.capture.sources import SessionClock, open_capture

    perception = Perception(config, threads=threads, cameras=cameras)  # models load before the clock starts
    clock = SessionClock(origin)
    blocks = microphone
    if isinstance(microphone, (int, str)):  # a device: opened before anything is written
        from vision.audio.sources import Microphone

        blocks = Microphone(microphone, clock=clock.now).blocks()
    sources = {}
    for name, spec in cameras.items():
        if isinstance(spec, (str, Path)) and Path(spec).is_dir():
            sources[name] = RecordedCamera(name, spec, clock, paced=paced)
        else:
            sources[name] = open_capture(spec, name, clock, paced=paced)
    live = [n for n, s in sources.items() if s.kind not in ("file", "recorded")]
    if lockstep and live:  # a camera cannot wait for the referee: its frames would queue up
        for s in sources.values():
            s.close()
        raise ValueError(f"lockstep reads files only; {', '.join(live)} is a live camera")
    described = {n: {"source": str(cameras[n]), **s.describe()} for n, s in sources.items()}
    manifest = _manifest(config, clock.origin, described, perception)
    manifest["duration"] = None  # known when the session ends (a killed session never says)
    folder = SessionFolder.create(out, manifest)
    writers = {n: folder.segment_writer(n, segment_seconds=segment_seconds) for n in sources} if record else {}
    grabbers = {n: Grabber(s, sink=(lambda f, w=writers.get(n): w.write(f.t, f.image)) if record else None,
                           lost_after=config.lost_after, lockstep=lockstep) for n, s in sources.items()}
    session = TableSession.start(config.game, config.setup, folder.log_path, config.zones,
                                 clock_origin=round(clock.origin, 3), threshold=config.threshold,
                                 motion=config.motion_thresholds())
    audio = None
    if blocks is not None:
        from vision.capture.audio import LiveAudio

        audio = LiveAudio(blocks, folder.audio_dir, segment_seconds=segment_seconds).start()
    mouths: list[SignalEvent] = []
    lines: queue.Queue = queue.Queue()
    stop = threading.Event()
    if keyboard is not None:
        def read_keyboard() -> None:
            for line in keyboard:
                lines.put((clock.now(), line.rstrip("\n")))
                if line.strip().lower() in ("quit", "exit") or stop.is_set():
                    break
        threading.Thread(target=read_keyboard, daemon=True, name="keyboard").start()
    decisions: list[Decision] = []
    delays: list[dict[str, Any]] = []
    started = time.perf_counter()
    for g in grabbers.values():
        g.start()
    try:
        while not stop.is_set():
            if duration is not None and clock.now() >= duration:
                break
            busy = False
            while not lines.empty():
                t, text = lines.get()
                if text.strip().lower() in ("quit", "exit"):
                    stop.set()
                    break
                if not text.strip():
                    continue
                folder.append_input(t, text)
                decisions.extend(_echo(session.feed(KeyboardLine(round(t, 3), text)), echo))
            for name, g in grabbers.items():
                g.check()
                for ev in g.take_events():
                    decisions.extend(_echo(session.feed(CameraStatus(round(ev.t, 3), name, ev.ok, ev.reason)), echo))
                frame = g.latest()
                if frame is None:
                    continue
                busy = True
                for obs in perception(frame):
                    if isinstance(obs, SignalEvent) and obs.signal == "mouth_moving":
                        mouths.append(obs)
                    ds = session.feed(obs)
                    now = clock.now()
                    for d in ds:
                        if d.kind == "action":
                            delays.append({"entry": d.entry, "frame_t": frame.t, "logged_t": round(now, 3),
                                           "since": d.data.get("why", "")})
                    decisions.extend(_echo(ds, echo))
            if audio is not None:
                from vision.audio.attribute import attribute

                for ev in attribute(audio.take_events(), mouths):
                    decisions.extend(_echo(session.feed(ev), echo))
            if all(g.done for g in grabbers.values()):
                break
            if not busy:
                first = next(iter(grabbers.values()), None)
                if first is not None:
                    first.wait(0.02)  # wait for a frame instead of spinning
    except KeyboardInterrupt:  # Ctrl-C ends the session; everything logged is kept
        pass
    finally:
        stop.set()
        for g in grabbers.values():
            g.stop()
        for w in writers.values():
            w.close()
        for ev in perception.flush():
            decisions.extend(_echo(session.feed(ev), echo))
        decisions.extend(_echo(session.settle(), echo))
        if audio is not None:
            audio.stop()
            from vision.audio.attribute import attribute

            for ev in attribute(audio.take_events(), mouths):
                decisions.extend(_echo(session.feed(ev), echo))
            if audio.error is not None:
                perception.seconds["audio_error"] = str(audio.error)  # type: ignore[assignment]
        perception.close()
    seconds = time.perf_counter() - started
    folder.manifest["duration"] = round(clock.now(), 3)  # a replay knows when the session ended
    folder.save()
    return RunResult(folder, session, decisions, seconds, clock.now(), dict(perception.seconds),
                     dict(perception.frames), delays, captured={n: g.frames for n, g in grabbers.items()},
                     dropped={n: g.dropped for n, g in grabbers.items()})


def _echo(ds: list[Decision], echo: Callable[[Decision], None] | None) -> list[Decision]:
    if echo:
        for d in ds:
            echo(d)
    return ds


def compare_logs(a: str | Path, b: str | Path) -> dict[str, Any]:
    """How two logs of the same recording differ: the first differing entry, and the actions in
    effect of each (a replay with newer models against the original)."""
    from referee.sessionlog import effective_actions, read_log

    la, lb = read_log(a), read_log(b)
    first = None
    for i, (ea, eb) in enumerate(itertools.zip_longest(la.entries, lb.entries), start=1):
        if ea is None or eb is None or ea.body() != eb.body():
            first = {"entry": i, "original": None if ea is None else ea.body(),
                     "replay": None if eb is None else eb.body()}
            break
    aa = list(effective_actions(la.entries).values())
    ab = list(effective_actions(lb.entries).values())
    return {"same_log": first is None, "same_actions": aa == ab, "first_difference": first,
            "entries": [len(la.entries), len(lb.entries)], "actions": [len(aa), len(ab)],
            "only_original": [x for x in aa if x not in ab], "only_replay": [x for x in ab if x not in aa]}
