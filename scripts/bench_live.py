"""Speed of the live table on the bundled demo session (2 cores).

Measures, in one run on this machine:

1. baseline: decoding every frame of the demo's cameras, nothing else;
2. replay: `run_recorded` over the demo (every stage at its rate: cards 5 fps, landmarks
   10 fps, audio), as `referee replay` does: processing time over real time (must be < 1: a
   replay runs at least at real time), and the ratio to the decoding baseline;
3. live: `run_live` with the recorded cameras played back at their real speed (camera
   stand-ins, latest-frame semantics): for every action read from the cards camera, the delay
   from the moment the card appears in the video (the composition's ground truth,
   scripts/make_demo_session.py) to its entry in the log, on the session clock; and the frames
   each camera had to skip.

    .venv/bin/python scripts/bench_live.py [--repeat 3] [--threads 2] [--finder contour|detector] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_demo_session as demo  # noqa: E402

from tablereferee.recording.folder import SessionFolder, read_segments  # noqa: E402
from tablereferee.run import TableConfig, run_live, run_recorded  # noqa: E402

DEMO = ROOT / "datasets" / "demo"


def appear_time(action: dict) -> float | None:
    """When the card(s) behind a camera action first lie in the video (ground truth)."""

    if action["kind"] == "draw_egg":
        ids = [f"egg:{action['egg']}"]
        times = [a for a, b, slot, cid in demo.TIMELINE if cid in ids]
        return min(times) if times else None
    if action["kind"] == "reveal":
        times = [a for a, b, slot, cid in demo.TIMELINE if slot.startswith(action["player"])]
        return max(times) if times else None
    return None


def typed_at_their_times(lines: list[tuple[float, str]]):
    """The scorekeeper's lines, each typed at its session time (the keyboard thread starts
    with the session clock, so its own clock is within a few ms of it)."""
    start = time.monotonic()
    for t, text in lines:
        wait = t - (time.monotonic() - start)
        if wait > 0:
            time.sleep(wait)  # a person typing at that moment
        yield text


def decode_baseline(folder: SessionFolder) -> float:
    t0 = time.perf_counter()
    n = 0
    for cam in folder.camera_names():
        for _ in read_segments(folder.camera_dir(cam)):
            n += 1
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="best of N for the timings (the machine is shared)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--finder", choices=["contour", "detector", "detector+outline"], default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    src = SessionFolder.open(DEMO)
    config = TableConfig.from_manifest(src.manifest, finder=args.finder)
    duration = float(src.manifest["duration"])
    expected = json.loads((DEMO / "expected.json").read_text())["actions"]
    report: dict = {"session_seconds": duration, "finder": config.finder, "threads": args.threads}

    base = min(decode_baseline(src) for _ in range(args.repeat))
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            r = run_recorded(
                DEMO,
                Path(tmp) / f"replay-{k}",
                TableConfig.from_manifest(src.manifest, finder=args.finder),
                threads=args.threads,
            )
            actions = [{"source": e.source, **e.payload["action"]} for e in r.session.log.entries if e.kind == "action"]
            runs.append((r.seconds, r.stage_seconds, r.stage_frames, actions == expected))
            r.session.close()
        best = min(runs, key=lambda x: x[0])
        report["decode_baseline_s"] = round(base, 3)
        report["replay"] = {
            "processing_s": round(best[0], 3),
            "realtime_factor": round(best[0] / duration, 3),
            "vs_decode_baseline": round(best[0] / base, 2),
            "stage_s": {k: round(v, 3) for k, v in best[1].items()},
            "stage_frames": best[2],
            "ms_per_frame": {k: round(1000 * best[1][k] / best[2][k], 1) for k in best[2] if best[2][k]},
            "as_expected": all(x[3] for x in runs),
        }
        lives = []
        for k in range(args.repeat):
            cams = {c: str(src.camera_dir(c)) for c in src.camera_names()}
            r = run_live(
                cams,
                Path(tmp) / f"live-{k}",
                TableConfig.from_manifest(src.manifest, finder=args.finder),
                keyboard=typed_at_their_times(src.inputs()),
                paced=True,
                threads=args.threads,
                record=False,
            )
            delays = []
            by_seq = {e.seq: e for e in r.session.log.entries}
            for d in r.delays:
                action = by_seq[d["entry"]].payload["action"]
                appeared = appear_time(action)
                if appeared is not None:
                    delays.append(
                        {
                            "action": action,
                            "appeared_t": appeared,
                            "frame_t": d["frame_t"],
                            "logged_t": d["logged_t"],
                            "delay_s": round(d["logged_t"] - appeared, 3),
                        }
                    )
            actions = [{"source": e.source, **e.payload["action"]} for e in r.session.log.entries if e.kind == "action"]
            lives.append(
                {
                    "as_expected": actions == expected,
                    "delays": delays,
                    "dropped": r.dropped,
                    "captured": r.captured,
                    "processing_s": round(r.seconds, 3),
                }
            )
            r.session.close()
        all_delays = [x["delay_s"] for run in lives for x in run["delays"]]
        report["live"] = {
            "runs": lives,
            "delay_s": {
                "median": round(statistics.median(all_delays), 3) if all_delays else None,
                "max": max(all_delays) if all_delays else None,
                "n": len(all_delays),
            },
            "dropped_fraction": {
                c: round(sum(r["dropped"][c] for r in lives) / max(1, sum(r["captured"][c] for r in lives)), 3)
                for c in lives[0]["dropped"]
            },
        }
    print(
        f"demo session: {duration:.1f} s, cards found by {config.finder}, {args.threads} threads, best of {args.repeat}"
    )
    rp = report["replay"]
    print(f"decode only (baseline):     {base:6.2f} s")
    print(
        f"replay (all stages):        {rp['processing_s']:6.2f} s = {rp['realtime_factor']:.2f} x real time "
        f"({rp['vs_decode_baseline']:.1f} x the decoding baseline); per frame: {rp['ms_per_frame']} ms; "
        f"audio {rp['stage_s'].get('audio', 0):.2f} s; as expected: {rp['as_expected']}"
    )
    lv = report["live"]
    print(
        f"live (real-time playback):  event in the video -> entry in the log: median {lv['delay_s']['median']} s, "
        f"max {lv['delay_s']['max']} s over {lv['delay_s']['n']} actions; frames skipped: {lv['dropped_fraction']}; "
        f"as expected: {[r['as_expected'] for r in lv['runs']]}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
