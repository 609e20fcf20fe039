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

Each figure for two variants in the same run, alternating: `sequential` (the stages one after
another on the table's thread: the loop before the stage pipeline) and `parallel` (side by side,
`vision.capture.pipeline.StagePipeline`); medians over the rounds. The live delay is split into
the part up to the frame that decided (the stabiliser's dwell and the card stage's rate) and
that frame's way to the log (processing, the rules, the log's write).

    nice .venv/bin/python scripts/bench_live.py [--repeat 3] [--threads 2] [--finder contour|detector]
        [--variants sequential parallel] [--no-live] [--no-replay] [--card-fps 10] [--json OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_demo_session as demo  # noqa: E402

from tablereferee.recording.folder import SessionFolder, read_segments  # noqa: E402
from tablereferee.run import TableConfig, compare_logs, run_live, run_recorded  # noqa: E402

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


def config_of(src: SessionFolder, args) -> TableConfig:
    config = TableConfig.from_manifest(src.manifest, finder=args.finder)
    return dataclasses.replace(config, card_fps=args.card_fps) if args.card_fps else config


def zone_content_before(entries, seq: int) -> dict | None:
    """The zone content (`type: cards`) an action rests on: the last one logged before it."""
    for e in reversed([e for e in entries if e.seq < seq]):
        if e.kind == "observation" and e.payload.get("type") == "cards":
            return e.payload
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


def p95(values: list[float]) -> float | None:
    return round(float(statistics.quantiles(values, n=20, method="inclusive")[-1]), 3) if len(values) > 1 else None


def replay_once(src: SessionFolder, out: Path, args, parallel: bool, expected) -> dict:
    r = run_recorded(DEMO, out, config_of(src, args), threads=args.threads, parallel=parallel)
    actions = [{"source": e.source, **e.payload["action"]} for e in r.session.log.entries if e.kind == "action"]
    r.session.close()
    return {
        "processing_s": r.seconds,
        "stage_s": r.stage_seconds,
        "stage_frames": r.stage_frames,
        "as_expected": actions == expected,
        "log": out / "log.db",
    }


def live_once(src: SessionFolder, out: Path, args, parallel: bool, expected) -> dict:
    cams = {c: str(src.camera_dir(c)) for c in src.camera_names()}
    r = run_live(
        cams,
        out,
        config_of(src, args),
        keyboard=typed_at_their_times(src.inputs()),
        paced=True,
        threads=args.threads,
        record=False,
        parallel=parallel,
    )
    delays = []
    entries = r.session.log.entries
    by_seq = {e.seq: e for e in entries}
    for d in r.delays:
        action = by_seq[d["entry"]].payload["action"]
        appeared = appear_time(action)
        content = zone_content_before(entries, d["entry"])
        since = content.get("since") if content else None
        if appeared is not None:
            delays.append(
                {
                    "action": action,
                    "appeared_t": appeared,
                    "frame_t": d["frame_t"],
                    "logged_t": d["logged_t"],
                    "delay_s": round(d["logged_t"] - appeared, 3),
                    # the stabiliser's dwell (and the card stage's rate): appeared -> the frame that decided
                    "to_frame_s": round(d["frame_t"] - appeared, 3),
                    # of which: appeared -> the first frame of the agreeing run (the card stage's rate,
                    # a frame skipped, a card not yet read) ...
                    "to_first_s": round(since - appeared, 3) if since is not None else None,
                    # ... and that first frame -> the frame that decided (the stabiliser's confirmation)
                    "confirm_s": round(d["frame_t"] - since, 3) if since is not None else None,
                    "confirm_frames": content.get("frames") if content else None,
                    # the deciding frame -> its observations in (the card stage's time, and its wait)
                    "stage_s": round(d["seen_t"] - d["frame_t"], 3) if d.get("seen_t") is not None else None,
                    # processing that frame, the table's rules and the log's write
                    "frame_to_log_s": round(d["logged_t"] - d["frame_t"], 3),
                    # of which the table's rules and the log's writes (every entry fsynced)
                    "rules_and_log_s": round(d["logged_t"] - d["seen_t"], 3) if d.get("seen_t") is not None else None,
                }
            )
    actions = [{"source": e.source, **e.payload["action"]} for e in r.session.log.entries if e.kind == "action"]
    r.session.close()
    return {
        "as_expected": actions == expected,
        "delays": delays,
        "dropped": r.dropped,
        "stage_dropped": r.stage_dropped,
        "captured": r.captured,
        "processing_s": round(r.seconds, 3),
    }


def summary(lives: list[dict]) -> dict:
    def dist(key: str) -> dict:
        xs = [x[key] for run in lives for x in run["delays"] if x.get(key) is not None]
        return {
            "median": round(statistics.median(xs), 3) if xs else None,
            "p95": p95(xs),
            "max": max(xs) if xs else None,
            "n": len(xs),
        }

    return {
        "delay_s": dist("delay_s"),
        "to_frame_s": dist("to_frame_s"),
        "frame_to_log_s": dist("frame_to_log_s"),
        "rules_and_log_s": dist("rules_and_log_s"),
        "to_first_s": dist("to_first_s"),
        "confirm_s": dist("confirm_s"),
        "stage_s": dist("stage_s"),
        "confirm_frames": dict(
            sorted(Counter(x["confirm_frames"] for run in lives for x in run["delays"]).items(), key=str)
        ),
        "delays": [run["delays"] for run in lives],
        "dropped_fraction": {
            c: round(sum(r["dropped"][c] for r in lives) / max(1, sum(r["captured"][c] for r in lives)), 3)
            for c in lives[0]["dropped"]
        },
        "stage_dropped": [r["stage_dropped"] for r in lives],
        "as_expected": [r["as_expected"] for r in lives],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the variants alternate within each (shared machine)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--finder", choices=["contour", "detector", "detector+outline"], default=None)
    ap.add_argument(
        "--variants",
        nargs="+",
        choices=["sequential", "parallel"],
        default=["sequential", "parallel"],
        help="sequential: the stages one after another (the baseline); parallel: side by side",
    )
    ap.add_argument("--no-live", action="store_true", help="the replay only")
    ap.add_argument("--card-fps", type=float, default=None, help="the card stage's rate (default: the session's, 5)")
    ap.add_argument("--no-replay", action="store_true", help="the live run only (the delays)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    src = SessionFolder.open(DEMO)
    config = config_of(src, args)
    duration = float(src.manifest["duration"])
    expected = json.loads((DEMO / "expected.json").read_text())["actions"]
    report: dict = {
        "card_fps": config.card_fps,
        "session_seconds": duration,
        "finder": config.finder,
        "threads": args.threads,
        "variants": {},
        "load_average": os.getloadavg(),
    }
    base = statistics.median(decode_baseline(src) for _ in range(args.repeat))
    replays: dict[str, list[dict]] = {v: [] for v in args.variants}
    lives: dict[str, list[dict]] = {v: [] for v in args.variants}
    same_log: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            order = args.variants if k % 2 == 0 else args.variants[::-1]
            for v in order if not args.no_replay else ():
                r = replay_once(src, Path(tmp) / f"replay-{v}-{k}", args, v == "parallel", expected)
                replays[v].append(r)
                print(f"round {k + 1} replay {v:10s} {r['processing_s']:6.2f} s", file=sys.stderr, flush=True)
            if len(args.variants) == 2 and not args.no_replay:
                cmp = compare_logs(*(replays[v][-1]["log"] for v in args.variants))
                same_log.append(bool(cmp["same_log"]))
            if args.no_live:
                continue
            for v in order:
                lv = live_once(src, Path(tmp) / f"live-{v}-{k}", args, v == "parallel", expected)
                lives[v].append(lv)
                print(
                    f"round {k + 1} live   {v:10s} delays {[x['delay_s'] for x in lv['delays']]}",
                    file=sys.stderr,
                    flush=True,
                )
    med = statistics.median
    for v in args.variants:
        rs = replays[v]
        if not rs:
            report["variants"][v] = {"replay": None, "live": summary(lives[v]) if lives[v] else None}
            continue
        secs = med(r["processing_s"] for r in rs)
        stage = {key: med(r["stage_s"].get(key, 0.0) for r in rs) for key in rs[0]["stage_s"]}
        frames = rs[0]["stage_frames"]
        report["variants"][v] = {
            "replay": {
                "processing_s": round(secs, 3),
                "speed_over_real_time": round(duration / secs, 2),
                "vs_decode_baseline": round(secs / base, 2),
                "stage_s": {key: round(x, 3) for key, x in stage.items()},
                "ms_per_frame": {key: round(1000 * stage[key] / frames[key], 1) for key in frames if frames[key]},
                "as_expected": all(r["as_expected"] for r in rs),
                "rounds_s": [round(r["processing_s"], 2) for r in rs],
            },
            "live": summary(lives[v]) if lives[v] else None,
        }
    if len(args.variants) == 2 and not args.no_replay:
        a, b = args.variants
        report["replay_speedup"] = round(
            med(x["processing_s"] / y["processing_s"] for x, y in zip(replays[a], replays[b])), 2
        )
        report["same_log_every_round"] = all(same_log)
    report["decode_baseline_s"] = round(base, 3)
    print(
        f"demo session: {duration:.1f} s, cards found by {config.finder}, {args.threads} threads, {args.repeat} rounds"
    )
    print(f"decode only (baseline):     {base:6.2f} s")
    for v in args.variants:
        rp = report["variants"][v]["replay"]
        if rp:
            print(
                f"{v:10s} replay: {rp['processing_s']:6.2f} s = {rp['speed_over_real_time']:.2f}x real time "
                f"({rp['vs_decode_baseline']:.1f} x decoding); per frame {rp['ms_per_frame']} ms; "
                f"audio {rp['stage_s'].get('audio', 0):.2f} s; as expected: {rp['as_expected']}"
            )
        lv = report["variants"][v]["live"]
        if lv:
            print(
                f"{v:10s} live: event in the video -> log entry: median {lv['delay_s']['median']} s, "
                f"p95 {lv['delay_s']['p95']} s, max {lv['delay_s']['max']} s over {lv['delay_s']['n']} actions "
                f"(to the deciding frame: median {lv['to_frame_s']['median']} s; that frame -> the log: median "
                f"{lv['frame_to_log_s']['median']} s, p95 {lv['frame_to_log_s']['p95']} s, of which the rules and "
                f"the log's writes median {lv['rules_and_log_s']['median']} s, p95 {lv['rules_and_log_s']['p95']} s); "
                f"frames skipped: {lv['dropped_fraction']}, by busy stages {lv['stage_dropped']}; "
                f"as expected: {lv['as_expected']}"
            )

            def m(key: str, lv: dict = lv) -> str:
                return f"{lv[key]['median']} / {lv[key]['p95']} s"

            print(
                f"{v:10s} live, where it goes (median / p95): the card appears -> the first frame of the "
                f"agreeing run {m('to_first_s')}; -> the deciding frame (confirmation) {m('confirm_s')}, frames "
                f"{lv['confirm_frames']}; -> its observations in (the card stage) {m('stage_s')}; -> logged (rules "
                f"and the log's writes) {m('rules_and_log_s')}"
            )
    if "replay_speedup" in report:
        print(
            f"replay {args.variants[0]} / {args.variants[1]}: {report['replay_speedup']}x (median of rounds); "
            f"same log every round: {report['same_log_every_round']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
