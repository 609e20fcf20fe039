"""The Beccato! rules engine: pure and deterministic (see docs/beccato-engine.md).

from referee.beccato import ENGINE
state = ENGINE.new_game({"players": [...], "options": {...}, "seed": 1})
state.apply(ENGINE.parse_command(state, "coccode Nicola"))
"""

from referee.beccato import violations
from referee.beccato.actions import (
    ACTIONS,
    CALLS,
    CHANCE_ACTIONS,
    CODEC,
    Caught,
    ChangeSignal,
    Chicchirichi,
    Coccode,
    DrawEgg,
    DrawFromPile,
    Pass,
    PlaceEgg,
    Reveal,
    ShowCards,
    TakeEgg,
)
from referee.beccato.cards import BREEDS, EGGS, GUILDS, SERAMA
from referee.beccato.engine import ENGINE, BeccatoEngine
from referee.beccato.state import BeccatoState
from referee.beccato.table import OPTIONS, Table
from referee.beccato.violations import *  # noqa: F401,F403  (the named violations)

__all__ = [
    "ENGINE",
    "BeccatoEngine",
    "BeccatoState",
    "Table",
    "OPTIONS",
    "ACTIONS",
    "CODEC",
    "CALLS",
    "CHANCE_ACTIONS",
    "Pass",
    "DrawFromPile",
    "Coccode",
    "Caught",
    "Chicchirichi",
    "Reveal",
    "ShowCards",
    "DrawEgg",
    "TakeEgg",
    "PlaceEgg",
    "ChangeSignal",
    "BREEDS",
    "EGGS",
    "GUILDS",
    "SERAMA",
    *violations.__all__,
]
