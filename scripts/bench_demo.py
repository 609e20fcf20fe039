#!/usr/bin/env python
"""`referee demo` of this tree against another tree (the code before a change), in one run.

Each round runs `referee demo --out DIR --quiet` once from each tree (alternating which goes
first), under `/usr/bin/time -v`: wall time, peak memory (maximum resident set; and, sampled every
50 ms, of the process and its children together, `tree_memory_kb`), CPU used, and
the demo's own "seconds to referee"; then checks that the two session logs are identical entry
for entry (checksums included), and that perception saw the same (the tracks). Figures:
medians over the rounds; ratios within each round.

    git archive BASE_COMMIT | tar -x -C /tmp/base     # and the tree measured: --new (default: this one)
    nice .venv/bin/python scripts/bench_demo.py --base /tmp/base [--new DIR] [--repeat 3] [--no-clip] [--json OUT]
        [--new-args=--low-memory]   # options for the new tree's demo only
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablereferee.run import compare_logs  # noqa: E402


def demo(tree: Path, out: Path, no_clip: bool, extra: list[str] | None = None) -> dict:
    cmd = (
        [
            "/usr/bin/time",
            "-v",
            sys.executable,
            "-c",
            "import sys; from tablereferee.cli import main; sys.argv[0] = 'referee'; main()",
            "demo",
            "--out",
            str(out),
            "--quiet",
        ]
        + (["--no-clip"] if no_clip else [])
        + list(extra or [])
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=so, stderr=se, text=True)
        tree_peak = 0
        while proc.poll() is None:  # the process and its children (the audio path's) together
            tree_peak = max(tree_peak, tree_memory_kb(proc.pid))
            time.sleep(0.05)
        so.seek(0)
        se.seek(0)
        res = subprocess.CompletedProcess(cmd, proc.returncode, so.read(), se.read())
    err = res.stderr

    def field(name: str) -> str:
        m = re.search(rf"{re.escape(name)}: (.+)", err)
        if m is None:
            raise SystemExit(f"{tree}: no {name!r} in the output of /usr/bin/time:\n{err[-2000:]}")
        return m.group(1).strip()

    h, m_, s = (["0"] + field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"))[-3:]
    wall = int(h) * 3600 + int(m_) * 60 + float(s)
    referee = re.search(r"\(([\d.]+) s to referee", res.stdout)
    return {
        "ok": res.returncode == 0 and "result: as expected" in res.stdout,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(int(field("Maximum resident set size (kbytes)")) / 1024, 1),
        "peak_tree_mb": round(tree_peak / 1024, 1),
        "cpu_cores": round(
            (float(field("User time (seconds)")) + float(field("System time (seconds)"))) / max(wall, 1e-9), 2
        ),
        "referee_s": float(referee.group(1)) if referee else None,
    }


def tree_memory_kb(pid: int) -> int:
    """The memory of `pid` and all its descendants together (kB; 0 once gone): the sum of their
    proportional set sizes (`Pss` of /proc/PID/smaps_rollup: a page shared by k processes counts
    1/k in each), where the kernel has it, else of their resident sets.

    Not resident sets summed: a child just forked, before it runs its own program, shares all
    its parent's pages, and summing resident sets counts them twice. Measured on `referee demo`
    as the audio path's process starts: resident sets summed 598-620 MB at moments when the
    proportional sizes summed 403-575 MB. `/usr/bin/time` gives the largest single process's
    peak (`peak_rss_mb`)."""
    total = 0
    try:
        try:
            total += _field_kb(f"/proc/{pid}/smaps_rollup", "Pss:")
        except OSError:
            total += _field_kb(f"/proc/{pid}/status", "VmRSS:")
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                total += sum(tree_memory_kb(int(c)) for c in f.read().split())
    except (OSError, ValueError):
        pass
    return total


def _field_kb(path: str, key: str) -> int:
    with open(path) as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1])
    return 0


def tracks(folder: Path) -> dict[str, bytes]:
    """Every file of a session's tracks (what perception saw, frame by frame), unpacked."""
    return {
        str(f.relative_to(folder)): gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        for f in sorted((folder / "tracks").rglob("*"))
        if f.is_file()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="a tree of the code to compare with (git archive of a commit)")
    ap.add_argument("--new", default=str(ROOT), help="the tree measured against it (default: this one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-clip", action="store_true", help="without the dispute clip")
    ap.add_argument("--json", default=None)
    ap.add_argument("--keep", default=None, help="a folder to copy the two sessions of a round that differ into")
    ap.add_argument("--new-args", default="", help="more options for the new tree's demo (e.g. --low-memory)")
    args = ap.parse_args()
    trees = {"before": Path(args.base).resolve(), "after": Path(args.new).resolve()}
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    same: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
            outs = {}
            for name in order:
                outs[name] = Path(tmp) / f"{name}-{k}"
                r = demo(trees[name], outs[name], args.no_clip, args.new_args.split() if name == "after" else None)
                runs[name].append(r)
                print(f"round {k + 1} {name:6s} {r}", file=sys.stderr, flush=True)
            cmp = compare_logs(outs["before"] / "log.db", outs["after"] / "log.db")
            ta, tb = tracks(outs["before"]), tracks(outs["after"])
            same.append(bool(cmp["same_log"]) and ta == tb)
            if not same[-1]:  # say what differs, and keep both sessions to look at
                differ = sorted(k for k in set(ta) | set(tb) if ta.get(k) != tb.get(k))
                print(
                    f"round {k + 1}: NOT the same: first log difference {cmp['first_difference']}; tracks {differ}",
                    file=sys.stderr,
                )
                if args.keep:
                    for name, folder in outs.items():
                        shutil.copytree(folder, Path(args.keep) / f"{name}-{k}", dirs_exist_ok=True)
    med = statistics.median
    report: dict = {"rounds": args.repeat, "clip": not args.no_clip, "same_log_every_round": all(same)}
    for name, rs in runs.items():
        report[name] = {
            key: med(r[key] for r in rs if r[key] is not None)
            for key in ("wall_s", "peak_rss_mb", "peak_tree_mb", "cpu_cores")
        }
        report[name]["referee_s"] = med(r["referee_s"] for r in rs if r["referee_s"] is not None)
        report[name]["as_expected"] = all(r["ok"] for r in rs)
        report[name]["rounds"] = rs
    report["wall_ratio"] = round(med(b["wall_s"] / a["wall_s"] for a, b in zip(runs["after"], runs["before"])), 2)
    report["rss_ratio"] = round(
        med(b["peak_rss_mb"] / a["peak_rss_mb"] for a, b in zip(runs["after"], runs["before"])), 2
    )
    for name in ("before", "after"):
        x = report[name]
        print(
            f"{name:6s} wall {x['wall_s']:6.1f} s  referee {x['referee_s']:6.1f} s  peak {x['peak_rss_mb']:6.0f} MB "
            f"(with its children at once {x['peak_tree_mb']:6.0f} MB)  "
            f"cpu {x['cpu_cores']:.2f}  as expected: {x['as_expected']}"
        )
    print(
        f"before/after: wall {report['wall_ratio']}x, peak memory {report['rss_ratio']}x; "
        f"same log and tracks every round: {report['same_log_every_round']}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
