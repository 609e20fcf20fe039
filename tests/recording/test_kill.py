"""`referee live` killed with SIGKILL keeps each camera's video up to about a second before the
kill (measured 0.8-1.2 s): the segment being written is a fragmented MP4 whose fragments reach the file as they
complete, so it stays readable up to its last fragment (before: the open segment, 10 s by
default, was lost whole). The test synchronises on what the table prints (an entry printed is
an entry logged), kills at once, and measures what the video kept."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.sessionlog import read_log
from tablereferee.recording.folder import SegmentProblem, SessionFolder, camera_gaps, read_segments

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"
MAX_LOSS = 2.0  # seconds of video a kill may cost a camera


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_killed_live_session_keeps_its_video_up_to_the_last_second(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "tablereferee.cli", "live", "--from", str(DEMO), "--out", str(out)]
    cmd += ["--threads", "1", "--segment-seconds", "10"]  # the kill lands inside the first segment
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        for raw in proc.stdout:
            seen.append(raw.decode("utf-8", "replace"))
            if re.search(r"#\d+ Egg moon-2 is turned up", seen[-1]):  # logged at 3.5 s of the recording
                break
        else:
            raise AssertionError(f"the table ended before the third egg: {seen}")
        os.kill(proc.pid, signal.SIGKILL)
        killed_at = time.time()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    folder = SessionFolder.open(out)
    kill_t = killed_at - folder.created  # the session clock at the kill
    logged = [e for e in read_log(out / "log.db").entries if e.kind == "action"]
    egg_t = logged[-1].time - folder.created  # the third egg's entry, the last one printed before the kill
    assert 3.0 < egg_t < kill_t, (egg_t, kill_t)  # about 3.3 s: two sure frames after it is turned up
    for camera in ("cards", "people"):
        problems: list[SegmentProblem] = []
        times = [t for t, _ in read_segments(folder.camera_dir(camera), problems, images=False)]
        assert times, f"camera {camera}: nothing survived"
        assert times[0] < 0.2 and kill_t - times[-1] <= MAX_LOSS, (camera, times[-1], kill_t)
        # the segment cut by the kill is named, never skipped without a word
        assert [p.reason for p in problems] == ["was cut while it was written"]
        gaps = camera_gaps(folder.camera_dir(camera), camera, 0.0, kill_t)
        assert gaps and all("was cut while it was written" in g.reason for g in gaps)
        assert all(g.start >= times[-1] - 1e-3 for g in gaps)  # only the end is missing
