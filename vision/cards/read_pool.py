"""A frame's cards read on more than one core.

Reading a card is many small numpy and OpenCV calls that hold the GIL (about 17 000 a card,
docs/performance.md): two threads read no faster than one (measured: 1.0x), two processes do.
A `ReadingPool` keeps `workers` processes, each with its own copy of the reader (the deck's
templates, the embedder, the corner index), and reads a frame's cards with them and with the
calling process at once. The frame reaches the workers once, through shared memory; then each
process takes the next card nobody has taken yet (one shared counter) until none is left, so
that a slow card (aligned on its templates) holds one process while the others read the rest.
The rows come out as reading every card in one process gives them: a card's reading depends on
its own row alone, and the embedder runs on one thread in every process.

    reader = CardReader(detector, deck)
    with ReadingPool(reader, workers=1):        # reader.identify now reads on two processes
        cards = reader.identify(image, detector(image))

The workers start in the background (`spawn`: a fork of a process running MediaPipe's or
onnxruntime's threads could hang). Until one says it is ready the calling process reads alone,
so no frame waits for a worker to start (`wait_ready` waits, for benchmarks and tests).

A worker that dies, fails or does not answer within `timeout` seconds is stopped, and the
calling process reads the rows it had not returned: nothing is lost, the frame is only slower;
the pool goes on with the workers left (`lost` counts the others).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import threading
import time
from multiprocessing import shared_memory
from typing import Any

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision.cards.detections import CardDetections
from vision.cards.reader import CardReader

WORKER_TIMEOUT = 30.0  # seconds a worker may take over its rows of one frame before it is stopped


class _Worker:
    def __init__(self, ctx, reader_state: bytes, counter) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, reader_state, counter), name="card-reader", daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.dead = False  # it went away before saying it was ready

    def poll_ready(self) -> bool:
        """Whether the worker has said it is ready (reads its message when there is one)."""
        if not self.ready and not self.dead:
            try:
                if self.conn.poll():
                    self.ready = self.conn.recv() == "ready"
            except (EOFError, OSError):  # it died while starting (its pipe closed)
                self.dead = True
        return self.ready

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=2.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class ReadingPool:
    """`reader` made to read each frame's cards on `workers` more processes (see the module)."""

    _open = False  # holds the one-OpenBLAS-thread limit (`_one_blas_thread`) until closed

    def __init__(self, reader: CardReader, workers: int = 1, timeout: float = WORKER_TIMEOUT) -> None:
        if workers < 1:
            raise ValueError(f"a reading pool takes 1 or more workers, not {workers}")
        self.reader = reader
        self.timeout = timeout
        self.lost = 0  # workers stopped because they died, failed or hung
        self.frames = 0  # frames whose rows were shared with a worker
        ctx = multiprocessing.get_context("spawn")
        self._counter = ctx.Value("i", 0)
        state = pickle.dumps(reader, protocol=pickle.HIGHEST_PROTOCOL)
        self._workers = [_Worker(ctx, state, self._counter) for _ in range(workers)]
        self._shm: shared_memory.SharedMemory | None = None
        _one_blas_thread(True)
        self._open = True
        reader.pool = self

    def __enter__(self) -> ReadingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workers(self) -> int:
        """Workers still serving (ready or starting)."""
        return len(self._workers)

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Wait until every worker is ready; False when one was not within `timeout` seconds."""
        end = time.monotonic() + timeout
        for w in list(self._workers):
            while not w.poll_ready():
                if w.dead or not w.process.is_alive():
                    self._drop(w)
                    break
                if time.monotonic() > end:
                    return False
                w.conn.poll(min(0.2, max(end - time.monotonic(), 0.0)))
        return bool(self._workers)

    def read_rows(self, image: np.ndarray, cards: CardDetections, possible: list[str] | None, snap: bool) -> None:
        """Every row of `cards` read in place (`CardReader.read_row`), on this process and the
        ready workers at once."""
        ready = [w for w in self._workers if w.poll_ready()]
        for w in [w for w in self._workers if w.dead]:
            self._drop(w)
        if not ready:
            for i in range(len(cards)):
                self.reader.read_row(image, cards, i, possible, snap)
            return
        self.frames += 1
        frame = np.ascontiguousarray(image)
        shm = self._frame_memory(frame.nbytes)
        np.ndarray(frame.shape, frame.dtype, buffer=shm.buf)[...] = frame
        with self._counter.get_lock():
            self._counter.value = 0
        job = (shm.name, frame.shape, frame.dtype.str, cards, possible, snap)
        asked = []
        for w in ready:
            try:
                w.conn.send(job)
                asked.append(w)
            except (BrokenPipeError, OSError):
                self._drop(w)
        done = np.zeros(len(cards), bool)
        threads = cv2.getNumThreads()
        cv2.setNumThreads(1)  # one thread a process while they share the frame
        try:
            while (row := _claim(self._counter, len(cards))) is not None:
                self.reader.read_row(image, cards, row, possible, snap)
                done[row] = True
        finally:
            cv2.setNumThreads(threads)
        for w in asked:
            answer = self._answer(w)
            if answer is None:
                continue
            rows, values = answer
            cards.put(rows, values)
            done[rows] = True
        for i in np.flatnonzero(~done):  # a worker's rows it never returned
            self.reader.read_row(image, cards, int(i), possible, snap)

    def _answer(self, w: _Worker) -> tuple[np.ndarray, CardDetections] | None:
        """The rows `w` read (indices and values), or None when it died, failed or hung (it is
        then stopped)."""
        try:
            if w.conn.poll(self.timeout):
                msg = w.conn.recv()
                if isinstance(msg, tuple) and msg[0] == "rows":
                    return msg[1], msg[2]
        except (EOFError, OSError):
            pass
        self._drop(w)
        return None

    def _frame_memory(self, nbytes: int) -> shared_memory.SharedMemory:
        if self._shm is None or self._shm.size < nbytes:
            self._free_memory()
            self._shm = shared_memory.SharedMemory(create=True, size=nbytes)
        return self._shm

    def _free_memory(self) -> None:
        if self._shm is not None:
            self._shm.close()
            self._shm.unlink()
            self._shm = None

    def _drop(self, w: _Worker) -> None:
        if w in self._workers:
            self._workers.remove(w)
            self.lost += 1
        w.stop()

    def close(self) -> None:
        """Stop the workers and free the frame's shared memory; the reader reads alone again."""
        for w in self._workers:
            w.stop()
        self._workers = []
        self._free_memory()
        if self._open:
            self._open = False
            _one_blas_thread(False)
        if self.reader.pool is self:
            self.reader.pool = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # at interpreter exit the modules may be half torn down
            pass


# One OpenBLAS thread in this process while any pool is open: its second thread spins while it
# waits for work and takes a worker's core (measured: the pool read a frame 1.08x faster with
# it, 1.77x without); the reader's products are small, one thread does as well.
_blas_lock = threading.Lock()
_blas: dict[str, Any] = {"pools": 0, "limit": None}


def _one_blas_thread(opened: bool) -> None:
    """A pool opened (True) or closed (False): the limit is set by the first and lifted by the last."""
    with _blas_lock:
        _blas["pools"] += 1 if opened else -1
        if opened and _blas["limit"] is None:
            _blas["limit"] = ThreadpoolController().limit(limits=1, user_api="blas")
        elif not opened and _blas["pools"] == 0 and _blas["limit"] is not None:
            _blas["limit"].restore_original_limits()
            _blas["limit"] = None


def _claim(counter, n: int) -> int | None:
    """The next row nobody has taken, or None when every row is taken."""
    with counter.get_lock():
        i = counter.value
        if i >= n:
            return None
        counter.value = i + 1
    return i


def _serve(conn: multiprocessing.connection.Connection, reader_state: bytes, counter) -> None:
    """A worker: rows of each frame read until the pipe closes or says None."""
    cv2.setNumThreads(1)  # one thread a process (see `ReadingPool.read_rows`)
    blas = ThreadpoolController().limit(limits=1, user_api="blas")  # held for the worker's life
    reader: CardReader = pickle.loads(reader_state)
    conn.send("ready")
    memory: dict[str, Any] = {}
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            break
        if job is None:
            break
        name, shape, dtype, cards, possible, snap = job
        try:
            if memory.get("name") != name:
                if "shm" in memory:
                    memory["shm"].close()
                memory["shm"] = _attach(name)
                memory["name"] = name
            image: np.ndarray = np.ndarray(shape, np.dtype(dtype), buffer=memory["shm"].buf)
            rows = []
            while (i := _claim(counter, len(cards))) is not None:
                reader.read_row(image, cards, i, possible, snap)
                rows.append(i)
            idx = np.array(rows, np.int64)
            conn.send(("rows", idx, cards[idx]))
        except Exception:  # the caller reads the rows again itself, and meets the error there
            conn.send(("failed",))
    if "shm" in memory:
        memory["shm"].close()
    blas.restore_original_limits()
    conn.close()
    os._exit(0)  # no interpreter teardown: the parent owns the shared memory


def _attach(name: str) -> shared_memory.SharedMemory:
    """The parent's block. A spawned worker shares its parent's resource tracker, so its
    registration of the block is the parent's own, which the parent's unlink removes."""
    return shared_memory.SharedMemory(name=name)
