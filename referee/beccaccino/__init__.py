"""Beccaccino (Marafone): the rules engine. `ENGINE` is what `referee.core.get_engine` returns."""

from referee.beccaccino.actions import CODEC, CallOut, Declare, Look, Marafona, Play, Show
from referee.beccaccino.engine import ENGINE, BeccaccinoEngine
from referee.beccaccino.game import (
    AnnouncementNotByLeader,
    BeccaccinoState,
    MarafonaTooLate,
    NoMarafona,
    NotASuit,
    SecondAnnouncement,
    UnknownAnnouncement,
)

__all__ = [
    "ENGINE",
    "BeccaccinoEngine",
    "BeccaccinoState",
    "CODEC",
    "CallOut",
    "Declare",
    "Look",
    "Marafona",
    "Play",
    "Show",
    "AnnouncementNotByLeader",
    "MarafonaTooLate",
    "NoMarafona",
    "NotASuit",
    "SecondAnnouncement",
    "UnknownAnnouncement",
]
