"""A frozen playthrough of a seeded Beccaccino game (see tests/playthrough.py).
Regenerate deliberately with:
    .venv/bin/python -m tests.beccaccino.test_playthrough
"""

from pathlib import Path

from referee.beccaccino import ENGINE
from tests import playthrough

HERE = Path(__file__).parent / "playthroughs"
FILES = {"seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 7, "options": {"target": 41}}}


def choose(state, rng):
    legal = [a for a in state.legal_actions() if a.kind in ("declare", "play", "marafona")]
    marafona = [a for a in legal if a.kind == "marafona"]
    return marafona[0] if marafona else rng.choice(legal)


def test_frozen_playthroughs_replay_exactly():
    playthrough.assert_replays(ENGINE, HERE, FILES)


if __name__ == "__main__":
    playthrough.write(ENGINE, HERE, FILES, choose)
