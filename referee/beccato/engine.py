"""The Beccato! engine object that `referee.core.get_engine("beccato")` returns."""

from __future__ import annotations

from typing import Any, Mapping

from referee.beccato.actions import CODEC
from referee.beccato.state import BeccatoState
from referee.beccato.table import Table
from referee.beccato import text
from referee.core import Action


class BeccatoEngine:
    name = "beccato"
    version = "1.0"
    codec = CODEC

    def new_game(self, setup: Mapping[str, Any]) -> BeccatoState:
        return BeccatoState(Table.from_setup(setup))

    def parse_command(self, state: BeccatoState, text_line: str) -> Action:
        return text.parse_command(state, text_line)

    def render(self, state: BeccatoState) -> str:
        return text.render(state)

    def command_help(self) -> str:
        return text.command_help()


ENGINE = BeccatoEngine()
