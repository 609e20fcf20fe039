"""A frozen playthrough (OpenSpiel style): a seeded game's actions and final snapshot, stored
in playthroughs/; replaying the actions must give the same snapshot. A rules change that alters
any outcome shows up here. Regenerate deliberately with:
    .venv/bin/python -m tests.beccaccino.test_playthrough
"""

import json
import random
from pathlib import Path

from referee.beccaccino import ENGINE

HERE = Path(__file__).parent / "playthroughs"
FILES = {"seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 7,
                         "options": {"target": 41}}}


def generate(setup):
    state = ENGINE.new_game(setup)
    rng = random.Random(setup["seed"])
    actions = []
    while not state.is_over:
        legal = [a for a in state.legal_actions() if a.kind in ("declare", "play", "marafona")]
        marafona = [a for a in legal if a.kind == "marafona"]
        action = marafona[0] if marafona else rng.choice(legal)
        state.apply(action)
        actions.append(action.to_dict())
    return {"game": ENGINE.name, "engine_version": ENGINE.version, "setup": setup,
            "actions": actions, "final": state.snapshot()}


def test_frozen_playthroughs_replay_exactly():
    for name, setup in FILES.items():
        frozen = json.loads((HERE / name).read_text())
        assert frozen["setup"] == setup
        state = ENGINE.new_game(frozen["setup"])
        for data in frozen["actions"]:
            state.apply(ENGINE.codec.from_dict(data))
        assert state.is_over
        assert json.loads(json.dumps(state.snapshot())) == frozen["final"]


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, setup in FILES.items():
        (HERE / name).write_text(json.dumps(generate(setup), indent=1, ensure_ascii=False) + "\n")
        print("wrote", HERE / name)
