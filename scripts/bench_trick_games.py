"""Benchmark (not a test): random full games per second for Beccaccino and each Bestia variant.

    .venv/bin/python scripts/bench_trick_games.py [--games N]

For each game: random play (legal_actions() enumerated at every step, one chosen at random) and,
as the baseline measured in the same run, the replay of the same action logs through the JSON
codec (verify + apply only, what `referee check` does). Reported: games/s and actions/s of both,
and the ratio random-play time / replay time.
"""

from __future__ import annotations

import argparse
import random
import time

from referee.beccaccino import ENGINE as BECCACCINO
from referee.bestia import ENGINE as BESTIA

PLAYERS4 = ["Anna", "Ben", "Carla", "Dan"]
PLAYERS5 = PLAYERS4 + ["Eva"]


def beccaccino_setup(seed):
    return BECCACCINO, {"players": PLAYERS4, "seed": seed}


def bestia_setup(variant, players):
    def make(seed):
        return BESTIA, {
            "players": players,
            "seed": seed,
            "options": {"variant": variant, "cap": 30, "deals_to_play": len(players)},
        }

    return make


GAMES = {
    "beccaccino": beccaccino_setup,
    "bestia classic": bestia_setup("classic", PLAYERS5),
    "bestia buco": bestia_setup("buco", PLAYERS5),
    "bestia italian": bestia_setup("italian", PLAYERS5),
    "bestia roman": bestia_setup("roman", PLAYERS5),
    "bestia tippen": bestia_setup("tippen", PLAYERS5),
    "bestia julepe": bestia_setup("julepe", PLAYERS5),
    "bestia mauscheln": bestia_setup("mauscheln", PLAYERS5),
}


def play(engine, setup, rng):
    state = engine.new_game(setup)
    log = []
    while not state.is_over:
        legal = state.legal_actions()
        if engine is BECCACCINO:
            legal = [a for a in legal if a.kind != "fuori"]
        elif state.phase == "speak" and rng.random() < 0.5:
            legal = [a for a in legal if a.kind == "pass"] or legal
        action = rng.choice(legal)
        state.apply(action)
        log.append(action.to_dict())
    return log


def replay(engine, setup, log):
    state = engine.new_game(setup)
    for data in log:
        state.apply(engine.codec.from_dict(data))
    assert state.is_over


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    print(f"{'game':18} {'random games/s':>15} {'actions/s':>10} {'replay games/s':>15} {'actions/s':>10} {'ratio':>6}")
    for name, make in GAMES.items():
        setups = [make(seed) for seed in range(args.games)]
        t0 = time.perf_counter()
        logs = [play(e, s, random.Random(i)) for i, (e, s) in enumerate(setups)]
        t1 = time.perf_counter()
        for (e, s), log in zip(setups, logs):
            replay(e, s, log)
        t2 = time.perf_counter()
        actions = sum(len(log) for log in logs)
        rand, rep = t1 - t0, t2 - t1
        print(
            f"{name:18} {args.games / rand:15.1f} {actions / rand:10.0f} "
            f"{args.games / rep:15.1f} {actions / rep:10.0f} {rand / rep:6.2f}"
        )


if __name__ == "__main__":
    main()
