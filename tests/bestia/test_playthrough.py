"""Frozen playthroughs of seeded Bestia games, one per main variant (see tests/playthrough.py).
Regenerate deliberately with:
    .venv/bin/python -m tests.bestia.test_playthrough
"""

from pathlib import Path

from referee.bestia import ENGINE
from tests import playthrough

HERE = Path(__file__).parent / "playthroughs"
FILES = {
    "classic-seed-7.json": {
        "players": ["Anna", "Ben", "Carla", "Dan", "Eva"],
        "seed": 7,
        "options": {"variant": "classic", "stake": 3, "cap": 30},
    },
    "italian-seed-7.json": {
        "players": ["Anna", "Ben", "Carla", "Dan"],
        "seed": 7,
        "options": {"variant": "italian", "stake": 5, "fee": 1},
    },
    "julepe-seed-7.json": {
        "players": ["Anna", "Ben", "Carla", "Dan"],
        "seed": 7,
        "options": {"variant": "julepe", "cap": 40},
    },
    "mauscheln-seed-7.json": {
        "players": ["Anna", "Ben", "Carla", "Dan"],
        "seed": 7,
        "options": {"variant": "mauscheln", "cap": 40},
    },
}


def choose(state, rng):
    legal = state.legal_actions()
    small = [a for a in legal if a.kind != "gioco" or len(a.discards) <= 1]
    return rng.choice(small or legal)


def test_frozen_playthroughs_replay_exactly():
    playthrough.assert_replays(ENGINE, HERE, FILES)


if __name__ == "__main__":
    playthrough.write(ENGINE, HERE, FILES, choose)
