"""The Beccato! engine object that `referee.core.get_engine("beccato")` returns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.beccato import text
from referee.beccato.actions import CODEC
from referee.beccato.state import BeccatoState
from referee.beccato.table import Table
from referee.core import Action, GameState, TableEngine


class BeccatoEngine:
    name = "beccato"
    version = "1.0"
    codec = CODEC
    lead_calls: tuple[str, ...] = ()  # no tricks: nothing is announced with a lead

    def new_game(self, setup: Mapping[str, Any]) -> BeccatoState:
        return BeccatoState(Table.from_setup(setup))

    def parse_command(self, state: GameState, text_line: str) -> Action:
        return text.parse_command(_beccato(state), text_line)

    def render(self, state: GameState) -> str:
        return text.render(_beccato(state))

    def command_help(self) -> str:
        return text.command_help()


def _beccato(state: GameState) -> BeccatoState:
    if not isinstance(state, BeccatoState):
        raise TypeError(f"the Beccato! engine reads Beccato! states, not {type(state).__name__}")
    return state


ENGINE = BeccatoEngine()
_CONTRACT: TableEngine = ENGINE  # mypy checks here that the engine meets the table's contract
