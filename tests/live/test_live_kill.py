"""A live table killed with SIGKILL in the middle of a game loses nothing it announced.

`referee live` reads the demo's recorded card camera at its real speed (a camera stand-in) and
the scorekeeper's lines from stdin. The test synchronises on what the table prints: a printed
entry is already committed to the log. After `kill -9` the log reopens, every announced action
and the typed note are in it, the game resumes, and the video is readable up to the segment
that was being written.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.scorekeeper import Scorekeeper
from referee.sessionlog import read_log
from tablereferee.recording.folder import SessionFolder, read_segments

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"


def _read_until(proc, pattern: str, seen: list[str]) -> re.Match:
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m
    raise AssertionError(f"the table ended before printing {pattern!r}: {seen}")


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_killed_live_session_reopens_with_every_action(tmp_path):
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "tablereferee.cli",
        "live",
        "--from",
        str(DEMO),
        "--camera",
        f"cards={DEMO / 'cameras' / 'cards'}",
        "--out",
        str(out),
        "--segment-seconds",
        "1",
        "--threads",
        "1",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seen: list[str] = []
    try:
        first = _read_until(proc, r"#(\d+) Egg star-3 is turned up", seen)
        proc.stdin.write(b"note the first egg is on the table\n")
        proc.stdin.flush()
        note = _read_until(proc, r"#(\d+) note the first egg", seen)
        second = _read_until(proc, r"#(\d+) Egg dollar-1 is turned up", seen)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # Lines printed before the kill and not read yet are still in the pipe: every entry the
    # table announced must be in the log.
    seen += [raw.decode("utf-8", "replace").rstrip("\n") for raw in proc.stdout]
    printed = {int(m.group(1)) for line in seen for m in [re.search(r"\s#(\d+) ", line)] if m}
    contents = read_log(out / "log.db")  # not damaged: every entry was its own transaction
    by_seq = {e.seq: e for e in contents.entries}
    assert printed and printed <= set(by_seq)
    announced = [int(m.group(1)) for m in (first, note, second)]
    assert by_seq[announced[0]].payload["action"] == {"kind": "draw_egg", "egg": "star-3"}
    assert by_seq[announced[1]].kind == "note"
    assert by_seq[announced[2]].payload["action"] == {"kind": "draw_egg", "egg": "dollar-1"}
    # The game goes on from the log, from the keyboard.
    table = Scorekeeper.resume(out / "log.db")
    eggs = [e.payload["action"]["egg"] for e in contents.entries if e.kind == "action"]
    if eggs == ["star-3", "dollar-1"]:
        assert table.state.waiting_for() == {"step": "draw", "to": "henhouse", "breed": "brahma"}
        assert table.submit("egg moon-2", time=contents.header.created + 60).accepted
    else:  # the table was quick enough to read the third egg before the kill landed
        assert eggs == ["star-3", "dollar-1", "moon-2"]
        assert table.submit("coccode Anna", time=contents.header.created + 60).accepted
    table.close()
    # The typed line is kept; the video is readable but for at most the segment being written.
    folder = SessionFolder.open(out)
    assert [text for _, text in folder.inputs()] == ["note the first egg is on the table"]
    times = [t for t, _ in read_segments(folder.camera_dir("cards"))]
    logged = by_seq[announced[2]].time - contents.header.created
    assert times and times[-1] >= logged - 1.0 - 0.2
