"""Frozen playthroughs (OpenSpiel style): a seeded game's actions and final snapshot, stored as
JSON; replaying the actions must give the same snapshot, so a rules change that alters any
outcome shows up. Each game's test module lists its files and how it picks a random action."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Choose = Callable[[Any, random.Random], Any]  # (state, rng) -> action


def generate(engine, setup: Mapping[str, Any], choose: Choose) -> dict[str, Any]:
    state = engine.new_game(setup)
    rng = random.Random(setup["seed"])
    actions = []
    while not state.is_over:
        action = choose(state, rng)
        state.apply(action)
        actions.append(action.to_dict())
    return {
        "game": engine.name,
        "engine_version": engine.version,
        "setup": dict(setup),
        "actions": actions,
        "final": state.snapshot(),
    }


def assert_replays(engine, folder: Path, files: Mapping[str, Mapping[str, Any]]) -> None:
    for name, setup in files.items():
        frozen = json.loads((folder / name).read_text())
        assert frozen["setup"] == setup
        state = engine.new_game(frozen["setup"])
        for data in frozen["actions"]:
            state.apply(engine.codec.from_dict(data))
        assert state.is_over
        assert json.loads(json.dumps(state.snapshot())) == frozen["final"]


def write(engine, folder: Path, files: Mapping[str, Mapping[str, Any]], choose: Choose) -> None:
    """Regenerate the frozen files: only on purpose, after a deliberate rules change."""
    folder.mkdir(exist_ok=True)
    for name, setup in files.items():
        (folder / name).write_text(json.dumps(generate(engine, setup, choose), indent=1, ensure_ascii=False) + "\n")
        print("wrote", folder / name)
