"""Bestia: the rules engine and its variants. `ENGINE` is what `referee.core.get_engine` returns."""

from referee.bestia.actions import CODEC, Buco, Doctor, Gioco, Knock, Pass, Play, Rob, Show, Terzo, TurnTrump
from referee.bestia.engine import ENGINE, BestiaEngine
from referee.bestia.game import (
    BadExchange,
    BestiaState,
    BucoTaken,
    NotInThisVariant,
    StockExhausted,
    TerzoFirstTurnOnly,
    TerzoMustPass,
)
from referee.bestia.variants import NOT_SUPPORTED, VARIANTS, Variant

__all__ = [
    "ENGINE",
    "BestiaEngine",
    "BestiaState",
    "CODEC",
    "Buco",
    "Doctor",
    "Gioco",
    "Knock",
    "Pass",
    "Play",
    "Rob",
    "Show",
    "Terzo",
    "TurnTrump",
    "BadExchange",
    "BucoTaken",
    "NotInThisVariant",
    "StockExhausted",
    "TerzoFirstTurnOnly",
    "TerzoMustPass",
    "NOT_SUPPORTED",
    "VARIANTS",
    "Variant",
]
