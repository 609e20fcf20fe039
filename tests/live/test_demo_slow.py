"""The demo exactly as a user runs it, dispute clip with landmarks included (slow: MediaPipe
runs again over the clip's window; about a minute on 2 cores)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablereferee.recording.folder import SessionFolder

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_referee_demo_as_a_user_runs_it(tmp_path):
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "tablereferee.cli", "demo", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "result: as expected" in proc.stdout
    folder = SessionFolder.open(out)
    packages = list((folder.path / "disputes").glob("entry-*/package.json"))
    assert len(packages) == 1
    package = json.loads(packages[0].read_text())
    assert package["entry"]["payload"]["action"]["kind"] == "reveal"
    assert package["clip_frames"] >= 50 and (packages[0].parent / "clip.mp4").stat().st_size > 10_000
