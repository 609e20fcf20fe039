"""scripts/bench_cards.py: rounds alternate our side and the baseline, the ratio is taken within
each round. The baseline here is a stand-in Python that answers a fixed time, so the test needs
no torch and checks the arithmetic, not the machine's speed."""

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from scripts import bench_cards


@pytest.fixture(autouse=True)
def keep_affinity():
    """The bench pins its process to two cores; the test process gets its cores back."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    yield
    if cpus:
        os.sched_setaffinity(0, cpus)


def fake_python(tmp_path: Path, log: Path) -> Path:
    """A 'python' that logs each call and answers as the baseline would, 1000 ms a frame."""
    exe = tmp_path / "fake-python"
    exe.write_text(f"""#!{sys.executable}
import json, sys
frames = sys.argv[7:]  # -c CODE pt imgsz conf warmup FRAMES...
with open({str(log)!r}, "a") as f:
    f.write(json.dumps({{"pt": sys.argv[3], "imgsz": sys.argv[4], "frames": len(frames)}}) + "\\n")
print(json.dumps({{"median_ms": 1000.0, "frames": len(frames) - int(sys.argv[6]), "cards": 0,
                  "torch": "none", "threads": 1}}))
""")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_rounds_alternate_and_ratio_is_per_round(tmp_path):
    log = tmp_path / "calls.jsonl"
    pt = tmp_path / "model.pt"
    pt.write_bytes(b"stand-in")
    out = tmp_path / "bench.json"
    assert (
        bench_cards.main(
            [
                "--frames",
                "2",
                "--warmup",
                "1",
                "--rounds",
                "2",
                "--still-frames",
                "2",
                "--pt",
                str(pt),
                "--baseline-python",
                str(fake_python(tmp_path, log)),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(calls) == 2  # one baseline pass per round
    assert all(c["frames"] == 3 and c["pt"] == str(pt) and c["imgsz"] == str(result["imgsz"][0]) for c in calls)
    assert result["rounds"] == 2 and result["frames"] == 2
    assert result["ultralytics"]["median_ms_per_round"] == [1000.0, 1000.0]
    assert len(result["ratio_detect_per_round"]) == 2
    # each round's ratio is the baseline's time over ours in that round; the reported one their median
    assert all(r > 1 for r in result["ratio_detect_per_round"])  # 1000 ms a frame is slower than ours
    assert abs(result["ratio_detect"] - sum(result["ratio_detect_per_round"]) / 2) <= 0.01
    assert result["detect_identify_ms"] >= result["detect_ms"] > 0
    # the stream measure (read once per still card) has its ratio per round too
    assert result["still_frames"] == 2 and result["stream_ms"] > 0
    assert len(result["ratio_stream_per_round"]) == 2 and all(r > 0 for r in result["ratio_stream_per_round"])


def test_without_baseline_reports_why(tmp_path):
    out = tmp_path / "bench.json"
    assert (
        bench_cards.main(
            [
                "--frames",
                "1",
                "--warmup",
                "0",
                "--rounds",
                "1",
                "--still-frames",
                "0",
                "--pt",
                str(tmp_path / "none.pt"),
                "--baseline-python",
                str(tmp_path / "no-python"),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert "error" in result["ultralytics"] and "ratio_detect" not in result and "stream_ms" not in result
    assert result["detect_ms"] > 0


@pytest.mark.parametrize("flags", [["--rounds", "0"], ["--frames", "0"], ["--warmup", "-1"]])
def test_nonsense_counts_are_refused_before_any_work(flags, capsys):
    with pytest.raises(SystemExit) as err:
        bench_cards.main(flags)
    assert err.value.code == 2 and "take 1 or more" in capsys.readouterr().err
