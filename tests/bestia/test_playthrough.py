"""Frozen playthroughs (OpenSpiel style): seeded games' actions and final snapshots, stored in
playthroughs/; replaying the actions must give the same snapshot. Regenerate deliberately with:
    .venv/bin/python -m tests.bestia.test_playthrough
"""

import json
import random
from pathlib import Path

from referee.bestia import ENGINE

HERE = Path(__file__).parent / "playthroughs"
FILES = {
    "classic-seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan", "Eva"], "seed": 7,
                            "options": {"variant": "classic", "stake": 3, "cap": 30}},
    "italian-seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 7,
                            "options": {"variant": "italian", "stake": 5, "fee": 1}},
    "julepe-seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 7,
                           "options": {"variant": "julepe", "cap": 40}},
    "mauscheln-seed-7.json": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 7,
                              "options": {"variant": "mauscheln", "cap": 40}},
}


def generate(setup):
    state = ENGINE.new_game(setup)
    rng = random.Random(setup["seed"])
    actions = []
    while not state.is_over:
        legal = state.legal_actions()
        small = [a for a in legal if a.kind != "gioco" or len(a.discards) <= 1]
        action = rng.choice(small or legal)
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
