"""Bestia actions: what the players (and, without a known deal, chance) do at the table.

Frozen dataclasses with a `kind`; `CODEC` turns them into the session log's JSON and back.
Cards are short codes of the variant's deck ("KS" = K♠ in the French decks, "RC" = Re di
coppe in the Italian one).
"""

from __future__ import annotations

import dataclasses

from referee.core import Action, ActionCodec


@dataclasses.dataclass(frozen=True)
class TurnTrump(Action):
    """Chance, when the referee does not know the deal: the card turned up for trumps."""

    kind = "trump"
    card: str


@dataclasses.dataclass(frozen=True)
class Knock(Action):
    """Knock (classic: play with these cards), Busso (5-card Italian: play as dealt, the
    declarations stop), knock (Roman), tap (Tippen), play (Julepe), "I play" and then join
    (Mauscheln)."""

    kind = "knock"
    player: str


@dataclasses.dataclass(frozen=True)
class Pass(Action):
    """Pass / Passo ("vado via") / fold: out of this deal (classic: may still see the doctor)."""

    kind = "pass"
    player: str


@dataclasses.dataclass(frozen=True)
class Gioco(Action):
    """Exchange `discards` for as many cards from the stock: the 5-card games' "gioco" (0 to 5)
    and the exchange round of Julepe and Mauscheln. Without a known deal the discards may be
    unnamed: give `count` instead."""

    kind = "gioco"
    player: str
    discards: tuple[str, ...] = ()
    count: int | None = None


@dataclasses.dataclass(frozen=True)
class Terzo(Action):
    """5-card Italian, first turn only: "terzo se devo", play only if fewer than three are in."""

    kind = "terzo"
    player: str


@dataclasses.dataclass(frozen=True)
class Buco(Action):
    """Bestia col buco: throw in the hand and play with the spare face-down hand."""

    kind = "buco"
    player: str


@dataclasses.dataclass(frozen=True)
class Doctor(Action):
    """Classic: a player who passed accepts (or, accept=False, refuses) three fresh cards."""

    kind = "doctor"
    player: str
    accept: bool = True


@dataclasses.dataclass(frozen=True)
class Rob(Action):
    """Julepe: the dealer, playing, takes the trump card into the hand and discards one card
    (`discard` None when the referee cannot see which)."""

    kind = "rob"
    player: str
    discard: str | None = None


@dataclasses.dataclass(frozen=True)
class Play(Action):
    """`player` plays `card` to the trick."""

    kind = "play"
    player: str
    card: str


@dataclasses.dataclass(frozen=True)
class Show(Action):
    """Observed: `cards` seen in `player`'s hand. The referee learns them; one that contradicts
    an earlier play reveals the offence (a revoke, a trump not played...)."""

    kind = "seen"
    player: str
    cards: tuple[str, ...]


CODEC = ActionCodec([TurnTrump, Knock, Pass, Gioco, Terzo, Buco, Doctor, Rob, Play, Show])
