"""Shared tables and small drivers for the Beccato! engine tests."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from referee.beccato import ENGINE, BeccatoState
from referee.core import Action, Event

# The rulebook's table: Nicola passes to Simona, Simona to Claudia, and so on.
SEATS = ["Nicola", "Simona", "Claudia", "Federico", "Cecilia", "Mariano"]
TEAMS = {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico", "Mariano"]}
GUILDS = {"Reds": "dollar", "Blues": "star"}


def rulebook_setup(**extra: Any) -> dict[str, Any]:
    setup: dict[str, Any] = {"players": SEATS, "teams": TEAMS, "guilds": GUILDS}
    setup.update(extra)
    return setup


def new_table(**extra: Any) -> BeccatoState:
    return ENGINE.new_game(rulebook_setup(**extra))


def play(state: BeccatoState, lines: Iterable[str]) -> list[Event]:
    """Apply scorekeeper lines in order; return every event."""
    events: list[Event] = []
    for line in lines:
        events += state.apply(ENGINE.parse_command(state, line))
    return events


def fill_henhouses(state: BeccatoState, eggs: Iterable[str]) -> None:
    play(state, [f"egg {e}" for e in eggs])


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def of_kind(events: Iterable[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def random_game(
    setup: dict[str, Any], rng: random.Random, pass_bias: float = 0.9, max_steps: int = 3000
) -> tuple[BeccatoState, list[Action]]:
    """Play a full-knowledge game choosing uniformly among legal actions, mostly passes."""
    state = ENGINE.new_game(setup)
    history: list[Action] = []
    while not state.is_over and len(history) < max_steps:
        history.append(choose(state, rng, pass_bias))
        state.apply(history[-1])
    return state, history


def choose(state: BeccatoState, rng: random.Random, pass_bias: float = 0.9) -> Action:
    legal = state.legal_actions()
    moves = [a for a in legal if a.kind in ("pass", "draw_from_pile")]
    if moves and rng.random() < pass_bias:
        return rng.choice(moves)
    return rng.choice(legal)
