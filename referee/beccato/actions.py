"""The Beccato! actions: what players (and chance) do at the table.

Each is a frozen dataclass with a `kind`; `CODEC` turns them into JSON dicts and back. Player
actions name the player; chance actions (an egg turned up, a card drawn from the five-player
game's imaginary seat) name the outcome, OpenSpiel style.
"""

from __future__ import annotations

import dataclasses

from referee.core import Action, ActionCodec


@dataclasses.dataclass(frozen=True)
class Pass(Action):
    """`player` (who holds four cards) passes one to the next seat; `card` None when unseen."""

    kind = "pass"
    player: str
    card: str | None = None


@dataclasses.dataclass(frozen=True)
class DrawFromPile(Action):
    """Chance (five-player game, B11): the player after the imaginary seat draws one of its
    four face-down cards at random; `card` None when unseen."""

    kind = "draw_from_pile"
    card: str | None = None


@dataclasses.dataclass(frozen=True)
class Coccode(Action):
    """`caller` exclaims Coccodé for a teammate; `breed` is the chicken named under Calling
    Chickens (required there, refused otherwise)."""

    kind = "coccode"
    caller: str
    breed: str | None = None


@dataclasses.dataclass(frozen=True)
class Caught(Action):
    """`caller` exclaims Caught! (Beccato!) pointing at `target`, an opponent."""

    kind = "caught"
    caller: str
    target: str


@dataclasses.dataclass(frozen=True)
class Chicchirichi(Action):
    """`caller` exclaims Chicchirichì (four Serama in hand)."""

    kind = "chicchirichi"
    caller: str


@dataclasses.dataclass(frozen=True)
class Reveal(Action):
    """`player` shows their hand after a call: 3 cards, or 4 for the player who has just received."""

    kind = "reveal"
    player: str
    cards: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class ShowCards(Action):
    """Cards seen in `player`'s hand during play (shown to the camera, or glimpsed): some of the
    hand, not necessarily all of it. The referee only learns from it."""

    kind = "show_cards"
    player: str
    cards: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class DrawEgg(Action):
    """Chance: the egg turned up from the top of the egg deck for the draw the referee awaits
    (an egg onto a henhouse, or a face-down egg to a team)."""

    kind = "draw_egg"
    egg: str


@dataclasses.dataclass(frozen=True)
class TakeEgg(Action):
    """`team` chooses where its award comes from: a henhouse (its breed), 'deck', or 'chick'."""

    kind = "take_egg"
    team: str
    source: str


@dataclasses.dataclass(frozen=True)
class PlaceEgg(Action):
    """Egg Pyramid: `team` places `egg` (or the Chick) at `place`: b1 b2 b3 (base), m1 m2, top."""

    kind = "place_egg"
    team: str
    egg: str
    place: str


@dataclasses.dataclass(frozen=True)
class ChangeSignal(Action):
    """Signal Change: `team` turns `egg` face down and takes a new signal (`signal` None: kept
    secret from the referee)."""

    kind = "change_signal"
    team: str
    egg: str
    signal: str | None = None


ACTIONS: tuple[type[Action], ...] = (
    Pass,
    DrawFromPile,
    Coccode,
    Caught,
    Chicchirichi,
    Reveal,
    ShowCards,
    DrawEgg,
    TakeEgg,
    PlaceEgg,
    ChangeSignal,
)
CHANCE_ACTIONS: tuple[type[Action], ...] = (DrawFromPile, DrawEgg)
CALLS: tuple[type[Action], ...] = (Coccode, Caught, Chicchirichi)
CODEC = ActionCodec(ACTIONS)
