"""Running a table: cameras, perception stages, the table session and the recording, together.

    config = TableConfig.from_manifest(json.load(open("datasets/demo/session.json")))
    result = run_recorded("datasets/demo", "sessions/demo-1", config)     # a recorded session
    result = run_live({"cards": 0, "people": 1}, "sessions/tonight", config, keyboard=lines)

Both runs drive one loop (`_Table.run`) over what reaches the table, as (session time, item)
pairs: camera frames (through the perception stages), camera losses and returns, typed lines
(kept in `inputs.jsonl`) and the microphone's sounds (`Heard`, given to the seat whose mouth
moved). They differ only in where the items come from.

`run_recorded` reads a session folder's cameras, audio and typed lines in session-time order
and processes every frame that a stage's rate asks for: the same recording always gives the
same log (that is what `referee replay` checks). With `reuse=True` it perceives nothing: it feeds
the observations stored in the folder's log back through the fusion rules.

`run_live` opens the cameras (webcam, file, URL), records every frame into segments on each
camera's own thread, and processes the latest frame of each camera whenever a stage is due
(frames the machine cannot keep up with are skipped, never queued). Typed lines come from
`keyboard` (an iterable of lines, read on its own thread).
"""

from __future__ import annotations

import collections
import ctypes
import dataclasses
import gc
import heapq
import itertools
import math
import queue
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from referee.core import RefereeError, get_engine
from referee.observations import CameraStatus, KeyboardLine, SignalEvent, ZoneContent
from referee.sessionlog import Entry, effective_actions, read_log
from referee.table.lead_motion import LeadMotion, MotionThresholds
from referee.table.session import Decision, TableSession
from referee.table.zones import TableZones
from tablereferee.recording.folder import (
    MANIFEST,
    SegmentWriter,
    SessionFolder,
    SessionFolderError,
    check_segment_seconds,
    model_record,
    versions,
)
from tablereferee.recording.playback import RecordedCamera, camera_stream
from tablereferee.recording.tracks import TrackWriter
from vision.audio.attribute import attribute
from vision.audio.pipeline import AudioListener
from vision.audio.sources import Microphone
from vision.capture.audio import LiveAudio, analyse_apart
from vision.capture.grabber import Grabber
from vision.capture.pipeline import StagePipeline
from vision.capture.sources import CameraFrame, CaptureSource, SessionClock, open_capture
from vision.capture.stages import CardStage, SignalStage
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks
from vision.observe import hands_seen

ROOT = Path(__file__).resolve().parents[1]
FRAGMENT_SECONDS = 0.5  # a live recording's fragments: about what a kill can lose per camera
QUIT = ("quit", "exit")  # a typed line that ends a live session


class TableConfigError(RefereeError):
    """A table configuration that cannot run: no zones, no game, a stage that cannot start."""


class BadOption(TableConfigError):
    """An option with a value that means nothing: a threshold outside 0..1, a duration that is
    not a positive number of seconds."""


class UnknownCamera(TableConfigError):
    """A camera name that no zone or seat of the table uses (a typo would leave the table blind)."""


def check_threshold(value: float | None) -> float | None:
    """A confidence threshold between 0 and 1 (None: the table's own), or `BadOption`."""
    if value is None:
        return None
    v = float(value)
    if not (math.isfinite(v) and 0.0 <= v <= 1.0):
        raise BadOption(f"the threshold is a confidence between 0 and 1, not {value:g}", threshold=value)
    return v


def check_duration(value: float | None) -> float | None:
    """A positive, finite number of seconds (None: no limit), or `BadOption`."""
    if value is None:
        return None
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise BadOption(f"the duration is a positive number of seconds, not {value:g}", duration=value)
    return v


MAX_READ_WORKERS = 8  # reading processes a table file may ask for beside the card stage's


def _count(value: Any) -> int:
    """A whole number from a table file (a bool or a fraction is refused as malformed)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a whole number was expected, not {value!r}")
    return value


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
    read_workers: int = 0  # processes that read a frame's cards beside the card stage's (`ReadingPool`)

    @classmethod
    def from_manifest(cls, m: Mapping[str, Any], **overrides: Any) -> TableConfig:
        if not isinstance(m, Mapping) or not isinstance(m.get("options", {}), Mapping):
            raise TableConfigError("a table file is a JSON object with game, setup, zones (and options)")
        opts = dict(m.get("options", {}))
        try:
            if m.get("calibration") is not None:
                TableCalibration.from_dict(m["calibration"])  # its seats are read below: refuse a bad one now
            cfg = cls(
                game=m["game"],
                setup=dict(m["setup"]),
                zones=TableZones.from_list(m["zones"]),
                calibration=m.get("calibration"),
                deck=opts.get("deck", "beccato"),
                threshold=float(opts.get("threshold", 0.8)),
                card_fps=float(opts.get("card_fps", 5.0)),
                landmark_fps=float(opts.get("landmark_fps", 10.0)),
                finder=opts.get("finder", "detector"),
                model=opts.get("model"),
                lost_after=float(opts.get("lost_after", 2.0)),
                audio=bool(opts.get("audio", True)),
                duration=m.get("duration"),
                motion=opts.get("motion"),
                read_workers=_count(opts.get("read_workers", 0)),
            )
        except KeyError as exc:
            raise TableConfigError(f"the session manifest lacks {exc}") from None
        except (TypeError, ValueError, AttributeError) as exc:  # e.g. "card_fps": [5], "setup": null
            raise TableConfigError(f"the session manifest is malformed: {exc}") from None
        for name in ("card_fps", "landmark_fps", "lost_after"):
            if not (math.isfinite(getattr(cfg, name)) and getattr(cfg, name) > 0):
                raise TableConfigError(f"options.{name} must be a positive number, not {getattr(cfg, name)}")
        if not 0 <= cfg.read_workers <= MAX_READ_WORKERS:
            raise TableConfigError(f"options.read_workers is 0 to {MAX_READ_WORKERS} processes, not {cfg.read_workers}")
        cfg.motion_thresholds()  # a malformed setting is refused before anything runs
        for k, v in overrides.items():
            if v is not None:
                setattr(cfg, k, v)
        check_threshold(cfg.threshold)
        return cfg

    def options(self) -> dict[str, Any]:
        out = {
            "deck": self.deck,
            "threshold": self.threshold,
            "card_fps": self.card_fps,
            "landmark_fps": self.landmark_fps,
            "finder": self.finder,
            "model": self.model,
            "lost_after": self.lost_after,
            "audio": self.audio,
        }
        if self.motion:
            out["motion"] = dict(self.motion)
        if self.read_workers:
            out["read_workers"] = self.read_workers
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
                raise TableConfigError(
                    f"options.motion.{name}: {value!r} is not "
                    f"{'two increasing numbers' if isinstance(default, tuple) else 'a number'}"
                    f" ({exc})"
                ) from None
        return MotionThresholds(**values)

    def signal_cameras(self) -> list[str]:
        if not self.calibration:
            return []
        return list(dict.fromkeys(str(s.get("camera", "0")) for s in self.calibration.get("seats", ())))

    def card_cameras(self) -> list[str]:
        return list(dict.fromkeys(z.camera for z in self.zones))


def check_cameras(config: TableConfig, names: Iterable[str]) -> None:
    """`UnknownCamera` for a camera name that no zone or seat of the table uses."""
    used = set(config.card_cameras()) | set(config.signal_cameras())
    unknown = sorted(set(names) - used)
    if unknown and used:
        raise UnknownCamera(
            f"no zone or seat of the table uses camera {', '.join(unknown)} (the table's cameras: "
            f"{', '.join(sorted(used))})",
            cameras=unknown,
        )


class Perception:
    """The stages of every camera: cards where the camera has zones, landmarks and signals
    where it covers seats. `__call__(frame)` answers the observations of that frame, its stages
    one after another on the caller's thread.

    `parallel` (the default): the stages also run side by side, each on its own worker thread
    (`vision.capture.pipeline.StagePipeline`; onnxruntime, OpenCV and MediaPipe compute outside
    the GIL, so a table uses both cores). `submit(frame)` queues a frame to its due stages
    behind the frames given before (a recording: every due frame processed, the same
    observations in the same order as one stage after another); `take(frame)` gives it only to
    the stages that are free (live: a busy stage skips it, counted in `dropped`). Either answers
    a `Seen`, whose `observations()` wait for its stages and bookkeep what they saw (tracks,
    seconds) on the caller's thread, in the caller's order."""

    _card_cameras: frozenset[str] = frozenset()  # set by __init__ (a class default for stand-ins)

    def __init__(
        self,
        config: TableConfig,
        threads: int | None = None,
        cameras: Iterable[str] | None = None,
        parallel: bool = True,
        kinds: Iterable[str] = ("cards", "signals"),
        signals_seen: Mapping[str, _Replayed] | None = None,
    ) -> None:
        """`kinds`: the stages to make ("cards", "signals"). `signals_seen`: per camera, what
        its signal stage answered on every frame of an earlier pass (`_signals_first`), given
        again in its place."""
        present = None if cameras is None else set(cameras)
        kinds = set(kinds)
        # the cameras that read cards (in a pass without card stages too): a signal stage on one
        # also reports the hands on its cloth
        self._card_cameras = frozenset(c for c in config.card_cameras() if present is None or c in present)

        self.config = config
        self.tracks: TrackWriter | None = None  # set to keep every frame's cards and landmarks
        self.card: dict[str, CardStage] = {}
        self.signal: dict[str, SignalStage | _Replayed] = {}
        self.seconds: dict[str, float] = {"cards": 0.0, "signals": 0.0}
        self.frames: dict[str, int] = {"cards": 0, "signals": 0}
        self.pipeline: StagePipeline | None = None
        for cam in config.card_cameras():
            if (present is not None and cam not in present) or "cards" not in kinds:
                continue
            try:
                self.card[cam] = CardStage(
                    cam,
                    deck=config.deck,
                    finder=config.finder,
                    locate=config.zones.locate,
                    fps=config.card_fps,
                    model=config.model,
                    threads=threads,
                    read_workers=config.read_workers,
                )
            except RefereeError as exc:
                raise TableConfigError(f"the card reader of camera {cam!r} cannot start: {exc}") from None
        self.signal_seen = dict(signals_seen or {})
        if config.calibration and "signals" in kinds:
            calib = TableCalibration.from_dict(config.calibration)
            for cam in config.signal_cameras():
                if present is not None and cam not in present:
                    continue
                stage = self.signal_seen.get(cam)
                self.signal[cam] = (
                    stage if stage is not None else SignalStage(cam, calib.for_camera(cam), fps=config.landmark_fps)
                )
        if parallel and (self.card or self.signal):
            self.pipeline = StagePipeline(self._stages())

    def _stages(self) -> list[_PerceptionStage]:
        out = [_PerceptionStage("cards", cam, s, self._cards_of) for cam, s in self.card.items()]
        out += [
            _PerceptionStage("signals", cam, s, _Replayed.answer if cam in self.signal_seen else self._signals_of)
            for cam, s in self.signal.items()
        ]
        return out

    @staticmethod
    def _cards_of(stage: Any, frame: CameraFrame) -> list[Any]:
        return [stage(frame)]

    def _signals_of(self, stage: Any, frame: CameraFrame) -> list[Any]:
        """The signal stage's events; then, where the camera also reads cards, its hands on the
        cloth (`HandsSeen`: a hand on a lead card as it lands); last the frame's landmarks (for
        the tracks and the listener, not the table). Run on the stage's own thread, one frame
        at a time: `stage.landmarks[-1]` is this frame's."""
        out = list(stage(frame))
        fl = stage.landmarks[-1] if stage.landmarks else None
        if (frame.camera in self.card or frame.camera in self._card_cameras) and fl is not None:
            out.append(hands_seen(fl, frame.camera))
        if fl is not None:
            out.append(fl)
        return out

    def _book(self, kind: str, camera: str, obs: list[Any], seconds: float) -> list[Any]:
        """What one stage saw of a frame, kept in the tracks; its landmarks split off."""
        self.seconds[kind] += seconds
        self.frames[kind] += 1
        if kind == "cards":
            if self.tracks is not None:
                self.tracks.cards(obs[0])
            return obs
        if obs and isinstance(obs[-1], FrameLandmarks):
            if self.tracks is not None:
                self.tracks.landmarks(camera, obs[-1])
        return obs

    def __call__(self, frame: CameraFrame) -> list[Any]:
        return [o for o in self.seen(frame) if not isinstance(o, FrameLandmarks)]

    def seen(self, frame: CameraFrame) -> list[Any]:
        """The observations of `frame`, its stages one after another here; its landmarks last."""
        out: list[Any] = []
        stages: Mapping[str, Any]
        for kind, stages, run in (("cards", self.card, self._cards_of), ("signals", self.signal, self._signals_of)):
            stage = stages.get(frame.camera)
            if stage is not None and stage.due(frame.t):
                t0 = time.perf_counter()
                obs = stage.answer(frame) if isinstance(stage, _Replayed) else run(stage, frame)
                out.extend(self._book(kind, frame.camera, obs, time.perf_counter() - t0))
        return _landmarks_last(out)

    def submit(self, frame: CameraFrame) -> Seen:
        """`frame` queued to every stage due on it (see the class doc)."""
        if self.pipeline is None:
            return Seen(self, frame, [], self.seen(frame))
        return Seen(self, frame, self.pipeline.submit(frame))

    def take(self, frame: CameraFrame) -> Seen:
        """`frame` given to the stages that are due on it and free (see the class doc)."""
        if self.pipeline is None:
            return Seen(self, frame, [], self.seen(frame))
        return Seen(self, frame, self.pipeline.take(frame))

    def wait_free(self, camera: str) -> None:
        """Until every stage of `camera` has done with the frame it took."""
        if self.pipeline is not None:
            self.pipeline.wait_free(camera)

    @property
    def dropped(self) -> dict[str, int]:
        """Per stage (`cards:<camera>`, `signals:<camera>`): frames skipped while it was busy."""
        if self.pipeline is None:
            return {}
        return {name: int(s["dropped"]) for name, s in self.pipeline.stats().items()}

    def flush(self) -> list[SignalEvent]:
        out: list[SignalEvent] = []
        for stage in self.signal.values():
            out.extend(stage.flush())
        return out

    def models(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for cam, stage in self.card.items():
            rec: dict[str, Any] = {"finder": stage.finder, "deck": stage.deck.name, "deck_source": stage.deck.source}
            deck_file = Path(stage.deck.source) / "deck.json"
            if deck_file.is_file():  # an enrolled deck: its templates' index
                rec["deck_file"] = model_record(deck_file)
            if stage.model_path:
                rec["detector"] = model_record(stage.model_path)
            out[f"cards:{cam}"] = rec
        if self.signal:
            out["signals"] = {
                "landmarks": "mediapipe " + versions().get("mediapipe", "?"),
                "catalogue": model_record(ROOT / "vision" / "signals" / "catalogue.json"),
            }
        if self.config.audio:
            out["audio"] = {"classifier": model_record(ROOT / "vision" / "audio" / "classifier.json")}
        return out

    def close(self) -> None:
        if self.pipeline is not None:
            self.pipeline.close()
        for stage in self.signal.values():
            stage.close()
        for card in self.card.values():
            close = getattr(card, "close", None)  # its reading workers, if any (a stand-in has no close)
            if close is not None:
                close()
        if self.tracks is not None:
            self.tracks.close()


def _landmarks_last(obs: list[Any]) -> list[Any]:
    """A frame's observations with its landmarks (`FrameLandmarks`) after everything else."""
    return [o for o in obs if not isinstance(o, FrameLandmarks)] + [o for o in obs if isinstance(o, FrameLandmarks)]


class _PerceptionStage:
    """A card or signal stage of one camera under the pipeline's protocol."""

    def __init__(self, kind: str, camera: str, stage: Any, run: Callable[[Any, CameraFrame], list[Any]]) -> None:
        self.kind, self.camera, self.name = kind, camera, f"{kind}:{camera}"
        self._stage, self._run = stage, run

    def due(self, t: float) -> bool:
        return bool(self._stage.due(t))

    def __call__(self, frame: CameraFrame) -> list[Any]:
        return self._run(self._stage, frame)


class _Replayed:
    """What a camera's signal stage answered on each frame it took, kept by an earlier pass
    over the recording (`_signals_first`) and given again in the same order: `due(t)` is true
    on the frames it took, `answer` gives its observations (events, hands on the cloth,
    landmarks last, as `Perception._signals_of` made them), `flush()` what it reported at the
    end. `seconds`: the stage's own time on that pass."""

    def __init__(self, camera: str) -> None:
        self.camera = camera
        self.answers: dict[float, list[Any]] = {}
        self.flushed: list[SignalEvent] = []
        self.seconds = 0.0

    def due(self, t: float) -> bool:
        return t in self.answers

    def answer(self, frame: CameraFrame) -> list[Any]:
        return self.answers[frame.t]

    def flush(self) -> list[SignalEvent]:
        return list(self.flushed)

    def close(self) -> None:
        pass


def _signals_first(
    src: SessionFolder, config: TableConfig, cameras: Iterable[str], threads: int | None, hearing: _Apart | None
) -> tuple[dict[str, _Replayed], Any, float]:
    """The signal stages over the whole recording first, their answers kept (`_Replayed`), and
    their models let go before the card stage loads: a recording is refereed with one kind of
    stage's models in memory at a time (the seats' MediaPipe graphs, about 300 MB, or the card
    models), not both. The sounds (`hearing`) are awaited before the stages are made (MediaPipe
    and SciPy loading beside the audio path's process add up to more than either). Answers
    the kept answers, the sounds' result (None: no sounds) and the seconds of the pass (its
    models' loading aside, as a run's)."""
    cams = [c for c in cameras if c in config.signal_cameras()]
    heard = None
    if hearing is not None:
        # The seats' libraries (about 100 MB, a second of loading) load beside the audio path's
        # process; its 200-250 MB are gone before any model is made.
        from vision.landmarks.extract import load_mediapipe  # deferred: loaded beside the audio path's process

        load_mediapipe()

        heard = hearing.result()
    perception = Perception(config, threads=threads, cameras=cams, kinds=("signals",))
    started = time.perf_counter()
    kept = {cam: _Replayed(cam) for cam in perception.signal}
    try:
        for cam in kept:
            assert perception.pipeline is not None  # a signal stage was made
            flight: collections.deque[tuple[float, list[Any]]] = collections.deque()
            for item in camera_stream(cam, src.camera_dir(cam), config.lost_after, config.duration):
                if isinstance(item, CameraFrame):
                    flight.append((item.t, perception.pipeline.submit(item)))
                while len(flight) > IN_FLIGHT:
                    _keep(kept[cam], *flight.popleft())
            while flight:
                _keep(kept[cam], *flight.popleft())
        for cam, stage in perception.signal.items():
            kept[cam].flushed = stage.flush()
    finally:
        perception.close()
    del perception
    _give_back_memory()
    return kept, heard, time.perf_counter() - started


def _keep(kept: _Replayed, t: float, futures: list[Any]) -> None:
    for f in futures:
        r = f.result()  # a stage's error is raised here
        kept.answers[t] = r.observations
        kept.seconds += r.seconds


def _give_back_memory() -> None:
    """What Python and the native libraries freed goes back to the system now (glibc keeps
    freed heap for reuse otherwise: the seats' graphs leave about 100 MB of it)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to ask
        pass


class Seen:
    """One frame on its way through the perception stages that took it (`Perception.submit`,
    `Perception.take`): `done()` once they have all answered; `observations()` waits for them
    and answers what they saw, in stage order (cards, then signals), its landmarks last."""

    def __init__(self, perception: Perception, frame: CameraFrame, futures: list[Any], ready: list[Any] | None = None):
        self.perception, self.frame, self.futures = perception, frame, futures
        self._out = ready
        self.taken = bool(futures) or bool(ready)  # some stage took the frame

    def done(self) -> bool:
        return self._out is not None or all(f.done() for f in self.futures)

    def observations(self) -> list[Any]:
        if self._out is None:
            out: list[Any] = []
            for f in self.futures:
                r = f.result()  # a stage's error is raised here, on the table's thread
                kind = r.stage.split(":", 1)[0]
                out.extend(self.perception._book(kind, r.camera, r.observations, r.seconds))
            self._out = _landmarks_last(out)
        return self._out


class _Apart:
    """`audio_events(folder, apart=True)` on a thread of its own (the audio path's process runs
    beside this one): `result()` waits for it and answers the events, the seconds from the
    start to the answer, and the seconds `result()` itself waited; the path's error is raised
    there, on the caller's thread."""

    def __init__(self, folder: SessionFolder) -> None:
        self.folder = folder
        self._events: list[SignalEvent] = []
        self._error: BaseException | None = None
        self._seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="audio-apart", daemon=True)

    def start(self) -> _Apart:
        self._t0 = time.perf_counter()
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._events = audio_events(self.folder, apart=True)
        except BaseException as exc:  # raised again by result(), on the table's thread
            self._error = exc
        self._seconds = time.perf_counter() - self._t0

    def join(self) -> None:
        self._thread.join()

    def result(self) -> tuple[list[SignalEvent], float, float]:
        t0 = time.perf_counter()
        self.join()
        waited = time.perf_counter() - t0
        if self._error is not None:
            raise self._error
        return self._events, self._seconds, waited


def audio_events(folder: SessionFolder, apart: bool = False) -> list[SignalEvent]:
    """The audible signals of a recorded table microphone (`vision.audio`), on the session clock.
    `apart`: found in a process of its own (`vision.capture.audio.analyse_apart`: the same
    events, and the audio path's memory given back before the video stages load)."""
    clip = folder.audio_clip()
    if clip is None:
        return []
    return analyse_apart(clip)[0] if apart else list(AudioListener().analyse(clip).events)


@dataclasses.dataclass(frozen=True)
class Heard:
    """A sound of the table microphone on its way to the table: it goes to the seat whose mouth
    moved while it lasted (`vision.audio.attribute`), among the mouths seen so far."""

    event: SignalEvent


@dataclasses.dataclass
class RunResult:
    folder: SessionFolder
    session: TableSession
    decisions: list[Decision]
    seconds: float  # wall-clock processing time
    duration: float  # session seconds covered
    stage_seconds: dict[str, Any]  # seconds per stage; live: "audio_error" when the microphone failed
    stage_frames: dict[str, int]
    delays: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    captured: dict[str, int] = dataclasses.field(default_factory=dict)  # live: frames read per camera
    dropped: dict[str, int] = dataclasses.field(default_factory=dict)  # live: frames skipped per camera
    # live: frames a stage skipped because it was busy with an earlier one, per stage (`cards:<camera>`)
    stage_dropped: dict[str, int] = dataclasses.field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        state = self.session.state
        return {
            "folder": str(self.folder.path),
            "entries": len(self.session.log.entries),
            "actions": sum(1 for e in self.session.log.entries if e.kind == "action"),
            "duration_s": round(self.duration, 3),
            "processing_s": round(self.seconds, 3),
            "realtime_factor": round(self.seconds / self.duration, 3) if self.duration else None,
            "is_over": state.is_over,
            "scores": state.standings(),
        }


IN_FLIGHT = 6  # a recording's frames on their way through the stages at once (each holds its image)


class _Tick:
    """A live round is over: the table takes what the stages have finished since."""


TICK = _Tick()


class _Table:
    """The one loop of a run, live or recorded: every (session time, item) that reaches the
    table is taken in order. A frame goes through perception, a typed line is kept in the
    folder, a sound is given to a seat; every observation goes to the table session and its
    decisions to `echo`. With a `clock` (live) the delay from a frame to the action it
    decided is measured (`delays`: the frame's time, when its observations were in, when the
    action was logged).

    The perception stages run side by side (`Perception.pipeline`). Recorded (`live=False`):
    each frame is queued to its due stages and up to `IN_FLIGHT` frames are on their way at
    once; their observations reach the table in the order of the frames, and every other item
    waits until the frames before it are in: the log is the one the stages one after another
    would write. Live: a frame goes only to the stages that are free (a busy stage skips it:
    `Perception.dropped`), and what a stage has finished reaches the table at the next round
    (`TICK`), each camera's frames in their order."""

    def __init__(
        self,
        session: TableSession,
        folder: SessionFolder,
        perception: Perception | None,
        echo: Callable[[Decision], None] | None,
        clock: SessionClock | None = None,
        listener: Any = None,
        live: bool = False,
    ) -> None:
        self.session, self.folder, self.perception = session, folder, perception
        self.echo, self.clock = echo, clock
        self.listener = listener  # run_live's: sees each frame with what was observed in it
        self.live = live
        self.decisions: list[Decision] = []
        self.delays: list[dict[str, Any]] = []
        self.mouths: list[SignalEvent] = []  # mouth_moving events seen so far, for the sounds
        self._pending: collections.deque[Seen] = collections.deque()  # frames not yet taken in, in order
        self._landmarks: dict[str, Any] = {}  # each camera's latest landmarks taken in (for the listener)
        self._seen_t: float | None = None  # live: when the observations of the frame being taken in were in

    def run(self, items: Iterable[tuple[float, Any]], end: float = 0.0) -> float:
        """Take every item; answers the latest session time seen (at least `end`)."""
        for t, item in items:
            end = max(end, t)
            self.take(item)
        self.settle_frames()
        return end

    def take(self, item: Any) -> None:
        if isinstance(item, CameraFrame):
            assert self.perception is not None, "frames need the perception stages"
            seen = self.perception.take(item) if self.live else self.perception.submit(item)
            if seen.taken or self.listener is not None:  # a frame no stage took is only for the listener
                self._pending.append(seen)
            self._take_done(wait=0 if self.live else IN_FLIGHT)
            return
        if item is TICK:
            self._take_done()
            return
        self.settle_frames()  # what the frames before it showed reaches the table first
        if isinstance(item, KeyboardLine):
            self.folder.append_input(item.t, item.text)
            self.feed(item)
        elif isinstance(item, Heard):
            self.feed(attribute([item.event], self.mouths)[0])
        else:
            self.feed(item)

    def settle_frames(self) -> None:
        """Wait for every frame on its way through the stages and take in what they saw."""
        self._take_done(wait=0, everything=True)

    def _take_done(self, wait: int = 0, everything: bool = False) -> None:
        """Take in the frames whose stages have answered. Recorded: in frame order, waiting for
        the oldest while more than `wait` frames are in flight. Live: each camera in its order,
        a camera's frame waiting only for that camera's earlier ones."""
        if not self.live or everything:
            while self._pending and (everything or len(self._pending) > wait or self._pending[0].done()):
                self._frame_seen(self._pending.popleft())
            return
        blocked: set[str] = set()
        kept: collections.deque[Seen] = collections.deque()
        ready: list[Seen] = []
        for seen in self._pending:
            cam = seen.frame.camera
            if cam in blocked or not seen.done():
                blocked.add(cam)
                kept.append(seen)
            else:
                ready.append(seen)
        self._pending = kept  # before taking them in: a stage's error is raised once
        for seen in ready:
            self._frame_seen(seen)

    def _frame_seen(self, seen: Seen) -> None:
        frame = seen.frame
        observed = seen.observations()
        self._seen_t = None if self.clock is None else round(self.clock.now(), 3)  # its observations are in
        landmarks = [o for o in observed if isinstance(o, FrameLandmarks)]
        if self.listener is not None:  # the signal stage's landmarks too (the challenge draws them)
            self.listener.frame(frame, observed if landmarks else observed + self._last_landmarks(frame.camera))
        for obs in observed:
            if isinstance(obs, FrameLandmarks):
                continue
            if isinstance(obs, SignalEvent) and obs.signal == "mouth_moving":
                self.mouths.append(obs)
            self.feed(obs, frame)
        if landmarks:
            self._landmarks[frame.camera] = landmarks[-1]

    def _last_landmarks(self, camera: str) -> list[Any]:
        lm = self._landmarks.get(camera)
        return [] if lm is None else [lm]

    def feed(self, obs: Any, frame: CameraFrame | None = None) -> None:
        ds = self.session.feed(obs)
        if frame is not None and self.clock is not None:
            now = round(self.clock.now(), 3)
            self.delays.extend(
                {
                    "entry": d.entry,
                    "frame_t": frame.t,
                    "seen_t": self._seen_t,
                    "logged_t": now,
                    "since": d.data.get("why", ""),
                }
                for d in ds
                if d.kind == "action"
            )
        self.emit(ds)

    def emit(self, ds: list[Decision]) -> None:
        self.decisions.extend(ds)
        if self.echo is not None:
            for d in ds:
                self.echo(d)

    def finish(self) -> None:
        """No item will come: the signals still open are reported, the leads still waiting judged."""
        self.settle_frames()
        if self.perception is not None:
            for ev in self.perception.flush():
                self.feed(ev)
        self.emit(self.session.settle())


def _manifest(
    config: TableConfig,
    origin: float,
    cameras: Mapping[str, Any],
    perception: Perception | None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    engine = get_engine(config.game)
    return {
        "created": origin,
        "game": engine.name,
        "engine_version": engine.version,
        "setup": config.setup,
        "cameras": dict(cameras),
        "zones": config.zones.to_list(),
        "calibration": config.calibration,
        "options": config.options(),
        "duration": config.duration,
        "models": perception.models() if perception else {},
        "versions": versions(),
        **dict(extra or {}),
    }


def _keyboard_line_from_entry(entry: Entry) -> str | None:
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


def stored_observations(source: Any) -> list[tuple[float, Any]]:
    """What a stored log saw, in log order, as observations to feed again (`source`: a
    `SessionFolder`, or anything with its `log_path`)."""
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


def _recorded_items(
    src: SessionFolder, cameras: Iterable[str], config: TableConfig, heard: list[SignalEvent]
) -> Iterator[tuple[float, Any]]:
    """A recording in session-time order. At one time: a camera's loss or return first, then
    typed lines, sounds (each once its end is 0.6 s past, as the live listener reports it),
    frames; then in the order read. Always the same order: a replay is reproducible."""
    counter = itertools.count()
    streams = [
        (
            (item.t, 0 if isinstance(item, CameraStatus) else 3, next(counter), item)
            for item in camera_stream(cam, src.camera_dir(cam), config.lost_after, config.duration)
        )
        for cam in cameras
    ]
    typed = [((t, 1, next(counter), KeyboardLine(t, text)) for t, text in src.inputs())]
    sounds = [((ev.end + 0.6, 2, next(counter), Heard(ev)) for ev in heard)]
    for t, _, _, item in heapq.merge(*streams, *typed, *sounds):
        yield t, item


def run_recorded(
    source: str | Path,
    out: str | Path,
    config: TableConfig | None = None,
    *,
    reuse: bool = False,
    threads: int | None = None,
    copy_media: bool = True,
    echo: Callable[[Decision], None] | None = None,
    parallel: bool = True,
    one_kind_at_a_time: bool = False,
) -> RunResult:
    """Referee a recorded session folder into a new session folder `out` (see the module doc).
    `parallel=False`: the stages one after another on this thread (the baseline; the same log).
    `one_kind_at_a_time`: the signal stages over the whole recording first, then the card
    stages with the table (`_signals_first`): the same log and tracks with one kind of stage's
    models in memory at a time, at the cost of the two kinds no longer running side by side."""
    src = SessionFolder.open(source)
    config = config or TableConfig.from_manifest(src.manifest)
    origin = src.created
    cameras = src.camera_names()
    heard: list[SignalEvent] = []
    audio_s = audio_wait = None
    hearing = None
    if (Path(out) / MANIFEST).exists():  # refused before any process or stage is started
        raise SessionFolderError(f"{Path(out)} already holds a session", path=str(Path(out)))
    if not reuse and config.audio and src.has_audio():
        # apart, in its own process, while this one loads the card models (the other core);
        # its answer is awaited before the first frame, so its memory is given back before
        # the seats' graphs are built (they are made at the first frame)
        hearing = _Apart(src).start()
    answered = None
    seen_first: dict[str, _Replayed] = {}
    first_s = 0.0
    perception = None
    try:
        if one_kind_at_a_time and not reuse and config.signal_cameras():
            seen_first, answered, first_s = _signals_first(src, config, cameras, threads, hearing)
            hearing = None
        perception = (
            None
            if reuse
            else Perception(config, threads=threads, cameras=cameras, parallel=parallel, signals_seen=seen_first)
        )
        if hearing is not None:
            answered = hearing.result()
            hearing = None
    except BaseException:
        # a failing audio path or Ctrl-C while waiting: no process, worker or stage left open
        if hearing is not None:
            hearing.join()  # the table's own error (or the path's) is the one to say
        if perception is not None:
            perception.close()
        raise
    if answered is not None:
        events, audio_s, audio_wait = answered
        heard = sorted(events, key=lambda e: e.end)
    if seen_first:  # the first pass's time counts (its loading aside, as the run's)
        audio_wait = (audio_wait or 0.0) + first_s
    manifest = _manifest(
        config,
        origin,
        src.manifest.get("cameras", {}),
        perception,
        {"replayed_from": str(src.path), "reused_observations": reuse},
    )
    folder = SessionFolder.create(out, manifest)
    if perception is not None:
        perception.tracks = TrackWriter(folder.path)
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
    session = TableSession.start(
        config.game,
        config.setup,
        folder.log_path,
        config.zones,
        clock_origin=origin,
        threshold=config.threshold,
        motion=config.motion_thresholds(),
    )
    table = _Table(session, folder, perception, echo)
    started = time.perf_counter()
    end = float(config.duration or 0.0)
    try:
        items: Iterable[tuple[float, Any]]
        if perception is None:
            items = stored_observations(src)
        else:
            if audio_s is not None:
                perception.seconds["audio"] = audio_s
            for stage in seen_first.values():
                perception.seconds["signals"] += stage.seconds
            items = _recorded_items(src, cameras, config, heard)
        end = table.run(items, end)
        table.finish()
    finally:
        if perception:
            perception.close()
    # the sounds were heard before the clock started: the time spent waiting for them counts
    # (the part of the audio path that ran while the models loaded does not, as loading does not)
    seconds = time.perf_counter() - started + (audio_wait or 0.0)
    stage_seconds = dict(perception.seconds) if perception else {}
    stage_frames = dict(perception.frames) if perception else {}
    table.perception = perception = None
    _give_back_memory()  # the stages' memory back before what comes next (a dispute clip)
    return RunResult(folder, session, table.decisions, seconds, end, stage_seconds, stage_frames)


def _live_items(
    grabbers: Mapping[str, Grabber],
    lines: queue.Queue[tuple[float, str]],
    stop: threading.Event,
    clock: SessionClock,
    duration: float | None,
    audio: LiveAudio | None,
    perception: Perception | None = None,
    poll: float = 0.005,
) -> Iterator[tuple[float, Any]]:
    """What reaches a live table, round after round until `stop`, `duration` or the end of every
    camera: the lines typed since the last round, then each camera's losses and returns and its
    newest frame, then the sounds heard, then `TICK` (the table takes in what the stages have
    finished). A round that found no frame waits a little for one (`poll` s while a stage is
    at work, so its answer is taken in at once). A `lockstep` camera's next frame is taken once
    its stages are free: every frame processed."""
    while not stop.is_set():
        if duration is not None and clock.now() >= duration:
            return
        busy = False
        while not lines.empty():
            t, text = lines.get()
            if text.strip().lower() in QUIT:
                stop.set()  # this round still takes the cameras' frames
                break
            if text.strip():
                yield t, KeyboardLine(round(t, 3), text)
        for g in grabbers.values():
            g.check()
            for status in g.take_events():
                yield status.t, status
            if g.lockstep and perception is not None:
                perception.wait_free(g.name)
            frame = g.latest()
            if frame is not None:
                busy = True
                yield frame.t, frame
        if audio is not None:
            for ev in audio.take_events():
                yield ev.end, Heard(ev)
        yield clock.now(), TICK
        if all(g.done for g in grabbers.values()):
            for g in grabbers.values():  # a loss reported as the last video ended
                for status in g.take_events():
                    yield status.t, status
            return
        if not busy:
            first = next(iter(grabbers.values()), None)
            working = perception is not None and perception.pipeline is not None and perception.pipeline.busy()
            if first is not None:
                first.wait(poll if working else 0.02)  # wait for a frame instead of spinning


def _recorder(writer: SegmentWriter) -> Callable[[CameraFrame], None]:
    """A grabber's sink that records every frame it reads."""
    return lambda frame: writer.write(frame.t, frame.image)


def run_live(
    cameras: Mapping[str, Any],
    out: str | Path,
    config: TableConfig,
    *,
    keyboard: Iterable[str] | None = None,
    paced: bool = True,
    duration: float | None = None,
    threads: int | None = None,
    record: bool = True,
    origin: float | None = None,
    echo: Callable[[Decision], None] | None = None,
    segment_seconds: float = 10.0,
    microphone: Any = None,
    lockstep: bool = False,
    listener: Any = None,
    parallel: bool = True,
) -> RunResult:
    """Referee live cameras (see the module doc). `cameras`: {name: webcam index, URL, video file
    or a recorded camera folder}. Stops when every camera has ended, the keyboard says `quit`,
    or `duration` session seconds have passed. `microphone`: a device index or name (None: no
    microphone), or an iterable of `AudioClip` blocks on the session clock. `lockstep` (files
    only, with `paced=False`): every frame is processed whatever the machine's load, instead of
    the newest one (a batch run; a live camera never waits for the referee). `listener` (the
    web table's live view, `tablereferee.web.live`): `listener.started(session)` once the table
    session exists, before the first frame; `listener.frame(frame, observations)` for every
    frame that reaches the table, with what perception observed in it (often nothing: a stage
    runs at its own rate), on the table's thread, each camera's frames in order. `parallel`:
    the stages side by side, a busy one skipping frames (`RunResult.stage_dropped`); False:
    one after another on the table's thread (the baseline)."""
    check_duration(duration)
    segment_seconds = check_segment_seconds(segment_seconds)
    check_cameras(config, cameras)
    # the models load before the clock starts
    perception = Perception(config, threads=threads, cameras=cameras, parallel=parallel)
    clock = SessionClock(origin)
    blocks = microphone
    if isinstance(microphone, (int, str)):  # a device: opened before anything is written
        blocks = Microphone(microphone, clock=clock.now).blocks()
    sources: dict[str, CaptureSource] = {}
    try:
        for name, spec in cameras.items():
            if isinstance(spec, (str, Path)) and Path(spec).is_dir():
                sources[name] = RecordedCamera(name, spec, clock, paced=paced)
            else:
                sources[name] = open_capture(spec, name, clock, paced=paced)
    except RefereeError:
        for s in sources.values():
            s.close()
        perception.close()
        raise
    live = [n for n, s in sources.items() if s.kind not in ("file", "recorded")]
    if lockstep and live:  # a camera cannot wait for the referee: its frames would queue up
        for s in sources.values():
            s.close()
        raise ValueError(f"lockstep reads files only; {', '.join(live)} is a live camera")
    described = {n: {"source": str(cameras[n]), **s.describe()} for n, s in sources.items()}
    manifest = _manifest(config, clock.origin, described, perception)
    manifest["duration"] = None  # known when the session ends (a killed session never says)
    manifest["recording"] = {"segment_seconds": segment_seconds, "fragment_seconds": FRAGMENT_SECONDS}
    folder = SessionFolder.create(out, manifest)
    perception.tracks = TrackWriter(folder.path)
    writers = (
        {
            n: folder.segment_writer(n, segment_seconds=segment_seconds, fragment_seconds=FRAGMENT_SECONDS)
            for n in sources
        }
        if record
        else {}
    )
    grabbers = {
        n: Grabber(s, sink=_recorder(writers[n]) if record else None, lost_after=config.lost_after, lockstep=lockstep)
        for n, s in sources.items()
    }
    session = TableSession.start(
        config.game,
        config.setup,
        folder.log_path,
        config.zones,
        clock_origin=round(clock.origin, 3),
        threshold=config.threshold,
        motion=config.motion_thresholds(),
    )
    audio = None
    if blocks is not None:
        audio = LiveAudio(blocks, folder.audio_dir, segment_seconds=segment_seconds).start()
    table = _Table(session, folder, perception, echo, clock, listener, live=True)
    if listener is not None:
        listener.started(session)
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    stop = threading.Event()
    if keyboard is not None:
        typed = keyboard

        def read_keyboard() -> None:
            for line in typed:
                lines.put((clock.now(), line.rstrip("\n")))
                if line.strip().lower() in QUIT or stop.is_set():
                    break

        threading.Thread(target=read_keyboard, daemon=True, name="keyboard").start()
    stage_seconds: dict[str, Any] = {}
    started = time.perf_counter()
    for g in grabbers.values():
        g.start()
    try:
        table.run(_live_items(grabbers, lines, stop, clock, duration, audio, perception))
    except KeyboardInterrupt:  # Ctrl-C ends the session; everything logged is kept
        pass
    finally:
        stop.set()
        for g in grabbers.values():
            g.stop()
        for w in writers.values():
            w.close()
        table.finish()
        if audio is not None:
            audio.stop()
            for ev in audio.take_events():  # what the microphone heard last
                table.take(Heard(ev))
        perception.close()
        stage_seconds = dict(perception.seconds)
        if audio is not None and audio.error is not None:
            stage_seconds["audio_error"] = str(audio.error)
    seconds = time.perf_counter() - started
    folder.manifest["duration"] = round(clock.now(), 3)  # a replay knows when the session ended
    folder.save()
    return RunResult(
        folder,
        session,
        table.decisions,
        seconds,
        clock.now(),
        stage_seconds,
        dict(perception.frames),
        table.delays,
        captured={n: g.frames for n, g in grabbers.items()},
        dropped={n: g.dropped for n, g in grabbers.items()},
        stage_dropped=perception.dropped,
    )


def compare_logs(a: str | Path, b: str | Path) -> dict[str, Any]:
    """How two logs of the same recording differ: the first differing entry, and the actions in
    effect of each (a replay with newer models against the original)."""
    la, lb = read_log(a), read_log(b)
    first = None
    for i, (ea, eb) in enumerate(itertools.zip_longest(la.entries, lb.entries), start=1):
        if ea is None or eb is None or ea.body() != eb.body():
            first = {
                "entry": i,
                "original": None if ea is None else ea.body(),
                "replay": None if eb is None else eb.body(),
            }
            break
    aa = list(effective_actions(la.entries).values())
    ab = list(effective_actions(lb.entries).values())
    return {
        "same_log": first is None,
        "same_actions": aa == ab,
        "first_difference": first,
        "entries": [len(la.entries), len(lb.entries)],
        "actions": [len(aa), len(ab)],
        "only_original": [x for x in aa if x not in ab],
        "only_replay": [x for x in ab if x not in aa],
    }
