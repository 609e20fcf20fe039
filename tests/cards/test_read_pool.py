"""A frame's cards read on more than one process (`vision.cards.read_pool`): exactly what one
process reads, on real webcam frames; a worker that dies or hangs costs time, never a card."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import cv2
import pytest
from threadpoolctl import ThreadpoolController

from vision.capture.stages import CardStage
from vision.cards.detector import CardDetector
from vision.cards.read_pool import ReadingPool
from vision.cards.reader import CardReader
from vision.cards.templates import load_deck

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "cards_real" / "edje"
FRAMES = ["cam_image2.jpg", "cam_image5.jpg", "cam_image7.jpg"]  # real webcam frames, 3-6 cards each


@pytest.fixture(scope="module")
def table():
    """The real frames (1280x720), the detector's cards on each, and a French reader."""
    detector = CardDetector(threads=1)
    frames = [cv2.resize(cv2.imread(str(REAL / n)), (1280, 720)) for n in FRAMES]
    found = [detector(f) for f in frames]
    assert all(len(f) >= 3 for f in found), [len(f) for f in found]
    return frames, found, load_deck("french52")


def test_the_pool_reads_exactly_what_one_process_reads(table):
    frames, found, deck = table
    alone = CardReader(None, deck)
    expected = [alone.identify(f, c) for f, c in zip(frames, found)]
    assert sum(lbl is not None for e in expected for lbl in e.label) >= 3  # a test of names, not of unknowns
    reader = CardReader(None, deck)
    with ReadingPool(reader, workers=1) as pool:
        assert reader.pool is pool and pool.wait_ready()
        got = [reader.identify(f, c) for f, c in zip(frames, found)]
        assert pool.frames == len(frames) and pool.lost == 0 and pool.workers == 1
    assert reader.pool is None  # closed: the reader reads alone again
    assert all(e.same_reading(g) for e, g in zip(expected, got))


def test_a_worker_killed_mid_game_costs_no_card(table):
    frames, found, deck = table
    expected = CardReader(None, deck).identify(frames[0], found[0])
    reader = CardReader(None, deck)
    with ReadingPool(reader, workers=1) as pool:
        assert pool.wait_ready()
        os.kill(pool._workers[0].process.pid, signal.SIGKILL)
        pool._workers[0].process.join()
        got = reader.identify(frames[0], found[0])
        assert pool.lost == 1 and pool.workers == 0
        assert expected.same_reading(got)
        again = reader.identify(frames[0], found[0])  # and the next frame, read alone
    assert expected.same_reading(again)


def test_a_hung_worker_is_stopped_and_its_rows_read_here(table):
    frames, found, deck = table
    expected = CardReader(None, deck).identify(frames[1], found[1])
    reader = CardReader(None, deck)
    with ReadingPool(reader, workers=1, timeout=1.0) as pool:
        assert pool.wait_ready()
        worker = pool._workers[0].process
        os.kill(worker.pid, signal.SIGSTOP)  # it takes its job, never answers
        got = reader.identify(frames[1], found[1])
        assert pool.lost == 1 and not worker.is_alive()
    assert expected.same_reading(got)


def test_a_stage_with_reading_workers_reads_as_one_without(table):
    frames, _, _ = table
    alone = CardStage("cards", deck="french52", fps=None, threads=1)
    pooled = CardStage("cards", deck="french52", fps=None, threads=1, read_workers=1)
    try:
        assert pooled.pool is not None and pooled.pool.wait_ready()
        for k, f in enumerate(frames):
            assert alone.read(f, k / 15).same_reading(pooled.read(f, k / 15))
        assert pooled.pool.frames >= 1
    finally:
        pooled.close()
    assert pooled.pool is None and pooled.reader.pool is None


def test_readings_that_differ_in_a_label_or_a_corner_are_not_the_same(table):
    frames, found, deck = table
    read = CardReader(None, deck).identify(frames[0], found[0])
    assert read.same_reading(read.copy())
    other = read.copy()
    other.label[0] = None if other.label[0] is not None else "king-of-hearts"
    assert not read.same_reading(other)
    other = read.copy()
    other.corners[0, 0, 0] += 0.01
    assert not read.same_reading(other)
    assert not read.same_reading(read[1:])


def blas_threads() -> int:
    return max(i["num_threads"] for i in ThreadpoolController().info() if i["user_api"] == "blas")


def test_openblas_keeps_one_thread_until_the_last_pool_closes(table):
    _, _, deck = table
    before = blas_threads()
    first, second = ReadingPool(CardReader(None, deck)), ReadingPool(CardReader(None, deck))
    assert blas_threads() == 1
    first.close()
    assert blas_threads() == 1  # the second pool still reads
    second.close()
    assert blas_threads() == before


def test_a_pool_needs_a_worker():
    with pytest.raises(ValueError, match="1 or more workers"):
        ReadingPool(CardReader(None, None), workers=0)


def test_a_worker_that_dies_while_starting_is_dropped_and_the_reader_reads_alone(table):
    frames, found, deck = table
    expected = CardReader(None, deck).identify(frames[2], found[2])
    reader = CardReader(None, deck)
    with ReadingPool(reader, workers=1) as pool:
        worker = pool._workers[0].process
        os.kill(worker.pid, signal.SIGKILL)  # at once: before or after it said it was ready
        worker.join()
        got = reader.identify(frames[2], found[2])
        assert pool.lost == 1 and pool.workers == 0 and not pool.wait_ready(timeout=1.0)
    assert expected.same_reading(got)
