"""Frozen playthroughs (OpenSpiel style): full seeded games stored with every action, the events
the referee announced and the final snapshot. A change in the engine that alters any refereed
outcome shows up here.

Regenerate after an intended rules change with:
    .venv/bin/python -m tests.beccato.test_beccato_playthrough
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.beccato import ENGINE

from .helpers import choose

FOLDER = Path(__file__).parent / "playthroughs"
GAMES = {
    "six_players_plain.json": {
        "players": ["Nicola", "Simona", "Claudia", "Federico", "Cecilia", "Mariano"],
        "teams": {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico", "Mariano"]},
        "seed": 2026,
    },
    "five_players_pyramid_signal_change.json": {
        "players": ["Anna", "Bruno", "Carla", "Dario", "Elena"],
        "options": {"egg_pyramid": True, "signal_change": True, "calling_chickens": True},
        "seed": 7,
    },
}


def record(setup: dict, seed: int) -> dict:
    rng = random.Random(seed)
    state = ENGINE.new_game(setup)
    steps = []
    while not state.is_over:
        action = choose(state, rng, pass_bias=0.85)
        events = state.apply(action)
        steps.append({"action": ENGINE.codec.to_dict(action), "events": [e.to_dict() for e in events]})
    return {
        "game": "beccato",
        "engine_version": ENGINE.version,
        "setup": setup,
        "steps": steps,
        "final_table": ENGINE.render(state).splitlines(),
        "final_snapshot": state.snapshot(),
    }


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playthrough_replays_exactly(name):
    frozen = json.loads((FOLDER / name).read_text())
    assert frozen["setup"] == GAMES[name]
    state = ENGINE.new_game(frozen["setup"])
    for number, step in enumerate(frozen["steps"]):
        events = state.apply(ENGINE.codec.from_dict(step["action"]))
        assert [e.to_dict() for e in events] == step["events"], f"step {number}"
    assert state.is_over
    assert state.snapshot() == frozen["final_snapshot"]
    assert ENGINE.render(state).splitlines() == frozen["final_table"]


def main() -> None:  # pragma: no cover - maintenance entry point
    FOLDER.mkdir(exist_ok=True)
    for name, setup in GAMES.items():
        data = record(setup, setup["seed"])
        (FOLDER / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(name, len(data["steps"]), "steps")


if __name__ == "__main__":  # pragma: no cover
    main()
