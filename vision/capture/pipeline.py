"""Both cores for the whole table: the perception stages of every camera, side by side.

A table runs a card stage on each card camera and a signal stage on each camera that covers
seats (`vision.capture.stages`). One after another, a frame of the table costs the sum of their
times and the process uses one core of two. `StagePipeline` gives every stage its own worker
thread; the heavy work of both stages runs outside the GIL (onnxruntime's detector, OpenCV's
warps, MediaPipe's graphs, which `LandmarkExtractor` already runs seat by seat on two threads),
so the stages really run at once. Each stage still sees its frames one at a time, in order, on
its own thread (a stage keeps state from frame to frame: tracks, windows, carried landmarks).

Two ways to feed it:

* `process(frames)`: every stage due on these frames (one round: the newest frame of each
  camera, or one camera's frame for both its stages) runs at once, and the call answers their
  outputs in a fixed order (frame by frame, the card stage before the signal stage): what the
  stages one after another would answer, in the time of the slowest. For recorded sessions,
  tests and benchmarks: every due frame is processed, a replay stays reproducible.
* `offer(frame)` then `collect()`: live. A stage still busy with an earlier frame skips this one
  (`dropped` counts them) and takes the newest frame offered once it is free: behind
  latest-frame grabbers (`vision.capture.grabber`) a frame's latency is at most the stage's own
  time plus one frame interval, whatever the load (`follow` is that loop). When the machine falls
  behind, frames are dropped; latency never grows.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import queue
import resource
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing import shared_memory
from typing import Any, Protocol

import numpy as np

from referee.core import RefereeError
from vision.capture.grabber import Grabber
from vision.capture.sources import CameraFrame
from vision.capture.stages import RateGate
from vision.observe import hands_seen


class Stage(Protocol):
    """What the pipeline runs: a stage of one camera, with its own rate."""

    name: str
    camera: str

    def due(self, t: float) -> bool: ...

    def __call__(self, frame: CameraFrame) -> list[Any]: ...


@dataclasses.dataclass(frozen=True)
class StageOutput:
    """What one stage made of one frame."""

    stage: str
    camera: str
    index: int  # the frame's index in its camera
    t: float  # the frame's time on the session clock
    observations: list[Any]
    seconds: float  # the stage's own processing time
    latency: float | None  # from the frame's time to its observations, on the pipeline's clock


class _Worker:
    """One stage on its own thread: its calls run one at a time, in the order given."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.pool = ThreadPoolExecutor(1, f"stage-{stage.name}")
        self.busy: Future | None = None
        self.processed = 0
        self.dropped = 0
        self.seconds = 0.0


class StagePipeline:
    """The stages of a table, each on its own thread. `clock` (session seconds, the clock the
    frames' times are on) gives each output its latency; without it latency is None."""

    def __init__(self, stages: Iterable[Stage], clock: Callable[[], float] | None = None) -> None:
        self._workers = [_Worker(s) for s in stages]
        names = [w.stage.name for w in self._workers]
        if len(set(names)) != len(names):
            raise ValueError(f"two stages with one name: {sorted(names)}")
        self._by_camera: dict[str, list[_Worker]] = {}
        for w in self._workers:
            self._by_camera.setdefault(w.stage.camera, []).append(w)
        self.clock = clock
        self._done: queue.Queue[StageOutput] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False

    # -- every due frame ----------------------------------------------------------------------
    def process(self, frames: Sequence[CameraFrame]) -> list[StageOutput]:
        """Every stage due on `frames` run at once; their outputs in frame order, and for one
        frame in stage order. A stage given two frames of its camera takes them in turn."""
        futures = [f for frame in frames for f in self.submit(frame)]
        return [f.result() for f in futures]

    def submit(self, frame: CameraFrame) -> list[Future[StageOutput]]:
        """Every stage of `frame`'s camera that is due on it, queued behind the frames it was
        given before (none skipped): their outputs to come, in stage order. `process` for a
        stream: the caller keeps a few frames in flight and takes their outputs in order."""
        return [
            w.pool.submit(self._run, w, frame) for w in self._by_camera.get(frame.camera, []) if w.stage.due(frame.t)
        ]

    # -- live: skip what a busy stage cannot take --------------------------------------------
    def take(self, frame: CameraFrame) -> list[Future[StageOutput]]:
        """Start every free stage of `frame`'s camera that is due on it; a stage still busy
        skips the frame (counted in its `dropped`). Answers the outputs to come of the stages
        that took it, in stage order (not put in `collect`'s queue)."""
        return self._start(frame, self._run)

    def offer(self, frame: CameraFrame) -> int:
        """As `take`, with the outputs put in `collect`'s queue. Answers how many stages started."""
        return len(self._start(frame, self._run_live))

    def _start(self, frame: CameraFrame, run: Callable[[_Worker, CameraFrame], StageOutput]) -> list[Future]:
        started: list[Future] = []
        for w in self._by_camera.get(frame.camera, []):
            with self._lock:
                if w.busy is not None and not w.busy.done():
                    w.dropped += 1
                    continue
                if not w.stage.due(frame.t):
                    continue
                w.busy = w.pool.submit(run, w, frame)
            started.append(w.busy)
        return started

    def collect(self, timeout: float | None = None) -> list[StageOutput]:
        """The outputs finished since the last call (waits up to `timeout` s for a first one
        when there is none; None: no wait)."""
        out: list[StageOutput] = []
        if timeout:
            try:
                out.append(self._done.get(timeout=timeout))
            except queue.Empty:
                return out
        while True:
            try:
                out.append(self._done.get_nowait())
            except queue.Empty:
                return out

    def busy(self) -> bool:
        """Whether a stage is still working on an offered frame."""
        with self._lock:
            return any(w.busy is not None and not w.busy.done() for w in self._workers)

    def wait_free(self, camera: str, timeout: float = 60.0) -> None:
        """Wait until every stage of `camera` has finished the frame it was offered."""
        for w in self._by_camera.get(camera, []):
            fut = w.busy
            if fut is not None:
                fut.result(timeout)

    def drain(self, timeout: float = 60.0) -> list[StageOutput]:
        """Wait for every offered frame to be processed; their outputs not yet collected."""
        for w in self._workers:
            fut = w.busy
            if fut is not None:
                fut.result(timeout)
        return self.collect()

    # -- the figures ---------------------------------------------------------------------------
    def stats(self) -> dict[str, dict[str, float]]:
        """Per stage: frames processed, frames skipped while busy, seconds spent."""
        return {
            w.stage.name: {"processed": w.processed, "dropped": w.dropped, "seconds": round(w.seconds, 3)}
            for w in self._workers
        }

    @property
    def dropped(self) -> int:
        return sum(w.dropped for w in self._workers)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for w in self._workers:
            w.pool.shutdown(wait=True)

    def __enter__(self) -> StagePipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- on the workers' threads ---------------------------------------------------------------
    def _run(self, w: _Worker, frame: CameraFrame) -> StageOutput:
        t0 = time.perf_counter()
        obs = w.stage(frame)
        dt = time.perf_counter() - t0
        w.processed += 1
        w.seconds += dt
        latency = None if self.clock is None else self.clock() - frame.t
        return StageOutput(w.stage.name, frame.camera, frame.index, frame.t, obs, dt, latency)

    def _run_live(self, w: _Worker, frame: CameraFrame) -> StageOutput:
        out = self._run(w, frame)
        self._done.put(out)
        return out


def follow(
    grabbers: Mapping[str, Grabber] | Sequence[Grabber],
    pipeline: StagePipeline,
    stop: Callable[[], bool] = lambda: False,
    poll: float = 0.005,
) -> Iterator[StageOutput]:
    """The live loop: the newest frame of each camera offered to the pipeline (a busy stage
    skips it), the outputs as they are finished, until `stop()` or the end of every camera
    (then what is still being processed). A `lockstep` grabber (a file read as fast as the
    machine allows) hands its next frame over only once its camera's stages are free: every
    frame is processed, none dropped."""
    grabs = list(grabbers.values()) if isinstance(grabbers, Mapping) else list(grabbers)
    while not stop():
        took = False
        for g in grabs:
            if g.lockstep:
                pipeline.wait_free(g.name)
            frame = g.latest()
            if frame is not None:
                took = True
                pipeline.offer(frame)
        yield from pipeline.collect(None if took else poll)
        if all(g.done for g in grabs):
            break
        if not took and not pipeline.busy() and grabs:
            grabs[0].wait(poll)  # nothing to do: wait for a frame instead of spinning
    yield from pipeline.drain()


# -- the table's own stages ----------------------------------------------------------------------


class _Named:
    """A card or signal stage under the pipeline's protocol: `name`, `camera`, `due`, a list out."""

    def __init__(self, name: str, stage: Any, run: Callable[[CameraFrame], list[Any]]) -> None:
        self.name = name
        self.camera = stage.camera
        self._stage = stage
        self._run = run

    def due(self, t: float) -> bool:
        return bool(self._stage.due(t))

    def __call__(self, frame: CameraFrame) -> list[Any]:
        return self._run(frame)


def table_stages(card: Mapping[str, Any], signal: Mapping[str, Any]) -> list[Stage]:
    """The pipeline's stages for a table's `CardStage`s and `SignalStage`s (by camera), named
    `cards:<camera>` and `signals:<camera>`. A card camera that also covers seats reports its
    hands too (`HandsSeen`, for the lead-motion cue), as the table's perception does."""
    out: list[Stage] = []
    for cam, stage in card.items():

        def read(frame: CameraFrame, s: Any = stage) -> list[Any]:
            return [s(frame)]

        out.append(_Named(f"cards:{cam}", stage, read))
    for cam, stage in signal.items():
        with_hands = cam in card

        def run(frame: CameraFrame, s: Any = stage, hands: bool = with_hands) -> list[Any]:
            obs = list(s(frame))
            if hands and s.landmarks:
                obs.append(hands_seen(s.landmarks[-1], frame.camera))
            return obs

        out.append(_Named(f"signals:{cam}", stage, run))
    return out


# -- a stage in a process of its own --------------------------------------------------------------


class StageFailed(RefereeError):
    """A stage running in its own process stopped: it failed to start, raised, or died."""


class ProcessStage:
    """A stage run in a process of its own, for a stage whose Python work would hold the GIL
    the other stages need (on threads, MediaPipe's seats wait for it between their graphs).

    `factory()` (picklable: a class and its arguments, `functools.partial`) builds the stage in
    the child, where its models load; `due` is decided here with the stage's `fps`. A frame goes
    to the child through shared memory (`max_size`: the largest frame, width by height), its
    answer back through a pipe; one frame at a time, as every stage takes them. The child's
    error or death is a `StageFailed` here."""

    def __init__(
        self,
        camera: str,
        factory: Callable[[], Callable[[CameraFrame], Any]],
        fps: float | None = None,
        max_size: tuple[int, int] = (1920, 1080),
        start_timeout: float = 120.0,
    ) -> None:
        self.camera = camera
        self.gate = RateGate(fps)
        w, h = max_size
        self._shm = shared_memory.SharedMemory(create=True, size=w * h * 3)
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that runs threads
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_serve, args=(factory, child, self._shm.name, self._shm.size), name=f"stage-{camera}", daemon=True
        )
        self._proc.start()
        child.close()
        self._closed = False
        if not self._conn.poll(start_timeout):
            self.close()
            raise StageFailed(f"the stage of camera {camera!r} did not start within {start_timeout:g} s")
        kind, value = self._conn.recv()
        if kind != "ready":
            self.close()
            raise StageFailed(f"the stage of camera {camera!r} could not start: {value}")

    def due(self, t: float) -> bool:
        return self.gate.due(t)

    def __call__(self, frame: CameraFrame) -> Any:
        image = np.ascontiguousarray(frame.image)
        if image.nbytes > self._shm.size:
            raise StageFailed(f"a frame of {image.shape[1]}x{image.shape[0]} is larger than this stage takes")
        np.ndarray(image.shape, image.dtype, self._shm.buf)[...] = image
        try:
            self._conn.send((frame.camera, frame.index, frame.t, image.shape, image.dtype.str))
            kind, value = self._conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            raise StageFailed(f"the stage of camera {self.camera!r} stopped (its process ended)") from None
        if kind != "ok":
            raise StageFailed(f"the stage of camera {self.camera!r} failed on frame {frame.index}: {value}")
        return value

    def usage(self) -> dict[str, float]:
        """The child's CPU seconds so far and its peak memory (resident, MB)."""
        self._conn.send("usage")
        kind, value = self._conn.recv()
        return dict(value)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(5)
        self._conn.close()
        self._shm.close()
        self._shm.unlink()


def _serve(factory: Callable[[], Callable[[CameraFrame], Any]], conn: Any, shm_name: str, size: int) -> None:
    """The child's loop: build the stage, then answer each frame until told to stop."""
    shm = shared_memory.SharedMemory(name=shm_name)
    try:
        try:
            stage = factory()
        except Exception as exc:  # reported to the parent as a plain message, not a traceback
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
            return
        conn.send(("ready", None))
        while True:
            msg = conn.recv()
            if msg is None:
                break
            if msg == "usage":
                r = resource.getrusage(resource.RUSAGE_SELF)
                conn.send(("ok", {"cpu_s": r.ru_utime + r.ru_stime, "peak_rss_mb": r.ru_maxrss / 1024}))
                continue
            camera, index, t, shape, dtype = msg
            # a copy (half a millisecond for 1280x720): a stage may keep its frame, and no view
            # into the buffer may outlive it
            image: np.ndarray = np.ndarray(shape, np.dtype(dtype), shm.buf).copy()
            try:
                out = stage(CameraFrame(camera, index, t, image))
            except Exception as exc:
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
                continue
            conn.send(("ok", out))
        close = getattr(stage, "close", None)
        if close is not None:
            close()
    finally:
        shm.close()
