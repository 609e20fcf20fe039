"""Beccaccino (Marafone) actions: what the players do at the table.

Frozen dataclasses with a `kind`; `CODEC` turns them into the session log's JSON and back.
Cards are short codes of the 40-card Italian deck ("3D" = 3 di denari, "RC" = Re di coppe).
"""

from __future__ import annotations

import dataclasses

from referee.core import Action, ActionCodec

CALLS: tuple[str, ...] = ("busso", "volo", "striscio")  # the announcements a lead may carry


@dataclasses.dataclass(frozen=True)
class Declare(Action):
    """The battezzante names the trump suit (C coppe, D denari, S spade, B bastoni)."""

    kind = "declare"
    player: str
    suit: str


@dataclasses.dataclass(frozen=True)
class Look(Action):
    """Observed: `player` looked at their cards before the trump was declared (a foul for
    the battezzante's partner, recorded; anyone else may look)."""

    kind = "look"
    player: str


@dataclasses.dataclass(frozen=True)
class Play(Action):
    """`player` plays `card`; the leader of a trick may add one announcement per hand:
    "busso", "volo" or "striscio"."""

    kind = "play"
    player: str
    card: str
    call: str | None = None


@dataclasses.dataclass(frozen=True)
class Marafona(Action):
    """During the first trick `player` shows the 3, 2 and Ace of trump: +3 to the team."""

    kind = "marafona"
    player: str


@dataclasses.dataclass(frozen=True)
class CallOut(Action):
    """Chiamarsi fuori: `player` stops the game claiming the team has reached the target."""

    kind = "fuori"
    player: str


@dataclasses.dataclass(frozen=True)
class Show(Action):
    """Observed: `cards` seen in `player`'s hand (by the camera, or shown at the table). The
    referee learns them; one that contradicts an earlier play reveals a revoke."""

    kind = "seen"
    player: str
    cards: tuple[str, ...]


CODEC = ActionCodec([Declare, Look, Play, Marafona, CallOut, Show])
