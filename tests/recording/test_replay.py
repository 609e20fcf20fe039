"""A live recording in fragmented segments replays reproducibly: two replays of it give the
same log, entry for entry, and every frame recorded is read back."""

from __future__ import annotations

import json
from pathlib import Path

from tablereferee.recording.folder import SessionFolder, read_segments
from tablereferee.run import TableConfig, compare_logs, run_live, run_recorded

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo"


def test_a_live_recording_replays_to_the_same_log_twice(tmp_path):
    manifest = json.loads((DEMO / "session.json").read_text())
    config = TableConfig.from_manifest(manifest, finder="contour")
    config.calibration, config.audio = None, False  # the card camera alone: quick
    live = run_live(
        {"cards": str(DEMO / "cameras" / "cards")},
        tmp_path / "live",
        config,
        paced=False,
        lockstep=True,
        segment_seconds=4.0,
        origin=1_800_000_000.0,
    )
    live.session.close()
    folder = SessionFolder.open(tmp_path / "live")
    assert folder.manifest["recording"] == {"segment_seconds": 4.0, "fragment_seconds": 0.5}
    assert len(list(read_segments(folder.camera_dir("cards"), images=False))) == live.captured["cards"] == 140
    assert folder.video_gaps(end=13.9) == []
    a = run_recorded(tmp_path / "live", tmp_path / "a", config)
    b = run_recorded(tmp_path / "live", tmp_path / "b", config)
    a.session.close()
    b.session.close()
    same = compare_logs(a.folder.log_path, b.folder.log_path)
    assert same["same_log"], same["first_difference"]
    assert same["actions"][0] >= 3  # the eggs were read from the recorded video
