#!/usr/bin/env python
"""Benchmark: how fast a session log replays, against the bare rules engine, in one run.

Builds seeded full-knowledge Beccato! games (random legal play, OpenSpiel style: chance nodes
sampled from `chance_outcomes`) until they hold at least `--actions` actions in total, writes
each as an SQLite session log (and its JSON-lines export), then times, best of `--repeat`:

  (a) engine apply     new_game + state.apply over the decoded actions (the baseline)
  (b) decode + apply   the same from the action dicts (ActionCodec.from_dict per action)
  (c) replay SQLite    read_log (SQLite, checksums verified) + replay
  (d) replay JSONL     the same from the JSON-lines export
  (e) durable append   SessionLog.append (one transaction, synchronous=FULL) per entry

Actions per second for each, and (b)-(d) as a ratio of (a). Every replay is checked to end in
the same snapshot as the live game.

    .venv/bin/python scripts/bench_engine.py [--actions 10000] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.core import get_engine  # noqa: E402
from referee.sessionlog import (  # noqa: E402
    Entry,
    LogHeader,
    SessionLog,
    read_log,
    replay,
    write_jsonl,
)

PLAYERS = ["Nicola", "Simona", "Claudia", "Federico", "Cecilia", "Mariano"]
TEAMS = {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico", "Mariano"]}
CALLS = ("coccode", "caught", "chicchirichi")


def play_game(engine, seed: int, call_rate: float):
    """One seeded game played to the end; returns (setup, actions, live snapshot, events)."""
    setup = {"players": PLAYERS, "teams": TEAMS, "seed": seed}
    state = engine.new_game(setup)
    rng = random.Random(seed)
    actions, events = [], []
    while not state.is_over:
        if state.is_chance_node:
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            legal = state.legal_actions()
            calls = [a for a in legal if a.kind in CALLS]
            others = [a for a in legal if a.kind not in CALLS]
            action = rng.choice(calls) if calls and (not others or rng.random() < call_rate) else rng.choice(others)
        events.append([e.to_dict() for e in state.apply(action)])
        actions.append(action)
    return setup, actions, state.snapshot(), events


def best(times: list[float]) -> float:
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=10_000, help="at least this many actions in all")
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (best is reported)")
    parser.add_argument("--seed", type=int, default=1, help="first game's seed")
    parser.add_argument("--call-rate", type=float, default=0.02, help="chance of a call when one is legal")
    parser.add_argument("--appends", type=int, default=200, help="entries for the durable-append timing")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    engine = get_engine("beccato")
    games = []
    seed = args.seed
    total = 0
    while total < args.actions:
        game = play_game(engine, seed, args.call_rate)
        games.append(game)
        total += len(game[1])
        seed += 1

    with tempfile.TemporaryDirectory() as folder:
        sqlite_paths, jsonl_paths = [], []
        for number, (setup, actions, _, events) in enumerate(games):
            header = LogHeader(game="beccato", engine_version=engine.version, setup=setup, created=0.0)
            entries = [
                Entry(
                    seq=i + 1,
                    time=float(i),
                    source="script",
                    confidence=1.0,
                    kind="action",
                    payload={"action": engine.codec.to_dict(a)},
                    events=ev,
                )
                for i, (a, ev) in enumerate(zip(actions, events))
            ]
            path = Path(folder) / f"game{number}.db"
            SessionLog.create(path, header, entries).close()  # one transaction: a build step
            sqlite_paths.append(path)
            buffer = io.StringIO()
            write_jsonl(read_log(path), buffer)
            jsonl = path.with_suffix(".jsonl")
            jsonl.write_text(buffer.getvalue())
            jsonl_paths.append(jsonl)
        dicts = [[engine.codec.to_dict(a) for a in actions] for _, actions, _, _ in games]

        def run_apply() -> None:
            for setup, actions, _, _ in games:
                state = engine.new_game(setup)
                for action in actions:
                    state.apply(action)

        def run_decode_apply() -> None:
            for (setup, _, _, _), game_dicts in zip(games, dicts):
                state = engine.new_game(setup)
                for data in game_dicts:
                    state.apply(engine.codec.from_dict(data))

        def run_replay(paths) -> None:
            for path, (_, _, snapshot, _) in zip(paths, games):
                result = replay(read_log(path), engine)
                if not result.legal or result.state.snapshot() != snapshot:
                    raise SystemExit(f"{path.name}: the replay differs from the live game")

        timings: dict[str, list[float]] = {"apply": [], "decode_apply": [], "replay_sqlite": [], "replay_jsonl": []}
        run_replay(sqlite_paths)  # warm-up and correctness check
        run_replay(jsonl_paths)
        for _ in range(args.repeat):
            for name, fn in (
                ("apply", run_apply),
                ("decode_apply", run_decode_apply),
                ("replay_sqlite", lambda: run_replay(sqlite_paths)),
                ("replay_jsonl", lambda: run_replay(jsonl_paths)),
            ):
                start = time.perf_counter()
                fn()
                timings[name].append(time.perf_counter() - start)

        header = LogHeader(game="beccato", engine_version=engine.version, setup=games[0][0], created=0.0)
        log = SessionLog.create(Path(folder) / "append.db", header)
        sample = [engine.codec.to_dict(a) for a in games[0][1]]
        append_times = []
        for i in range(args.appends):
            start = time.perf_counter()
            log.append("action", {"action": sample[i % len(sample)]}, time=float(i), source="script")
            append_times.append(time.perf_counter() - start)
        log.close()

    base = total / best(timings["apply"])
    results = {
        "games": len(games),
        "actions": total,
        "repeat": args.repeat,
        "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}",
        "actions_per_s": {name: round(total / best(t)) for name, t in timings.items()},
        "ratio_to_apply": {name: round(total / best(t) / base, 3) for name, t in timings.items()},
        "durable_append": {
            "entries": args.appends,
            "median_ms": round(statistics.median(append_times) * 1000, 2),
            "entries_per_s": round(1 / statistics.median(append_times)),
        },
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{total} actions in {len(games)} seeded Beccato! games (full knowledge), best of {args.repeat}")
    labels = {
        "apply": "(a) engine apply (baseline)",
        "decode_apply": "(b) decode + apply",
        "replay_sqlite": "(c) replay from SQLite log",
        "replay_jsonl": "(d) replay from JSONL export",
    }
    for name, label in labels.items():
        print(f"{label:32s} {results['actions_per_s'][name]:>9,d} actions/s   x{results['ratio_to_apply'][name]:.3f}")
    append = results["durable_append"]
    print(
        f"{'(e) durable append (FULL sync)':32s} {append['entries_per_s']:>9,d} entries/s   "
        f"median {append['median_ms']} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
