"""Points at the end of a Beccato! game: the plain count, the Egg Pyramid (B13, B14), the winner.

Pure functions over small values, so the rulebook's worked totals can be checked directly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from referee.beccato.cards import CHICK, guild_of

GUILD_CARD = "guild-card"  # a Guild card filling an empty pyramid place (worth 0)
PLACES: tuple[str, ...] = ("b1", "b2", "b3", "m1", "m2", "top")
ROWS: tuple[tuple[str, ...], ...] = (("b1", "b2", "b3"), ("m1", "m2"), ("top",))
SUPPORT: dict[str, tuple[str, ...]] = {"m1": ("b1", "b2"), "m2": ("b2", "b3"), "top": ("m1", "m2")}
CHICK_POINTS = 5


@dataclasses.dataclass(frozen=True)
class Card:
    """One card a team holds: an egg id, the Chick, or a Guild card; face down after a Signal Change."""

    card: str
    face_up: bool = True


@dataclasses.dataclass(frozen=True)
class TeamScore:
    points: int
    own_eggs: int  # face-up eggs bearing the team's Guild symbol (the tie-break)
    eggs: int  # cards collected (face-down ones included)
    excluded: bool = False  # Egg Pyramid: could not fill its pyramid with its 3 Guild cards


def card_points(card: Card, guild: str) -> int:
    """2 for a face-up egg of one's own Guild, 1 for another face-up egg, 5 for the Chick,
    0 for a face-down egg or a Guild card."""
    if not card.face_up or card.card == GUILD_CARD:
        return 0
    if card.card == CHICK:
        return CHICK_POINTS
    return 2 if guild_of(card.card) == guild else 1


def bears_team_guild(card: Card, guild: str) -> bool:
    """For the Level bonus: a Guild card counts as the team's Guild; a face-down egg never does."""
    if card.card == GUILD_CARD:
        return True
    return card.face_up and guild_of(card.card) == guild


def own_eggs(cards: Sequence[Card], guild: str) -> int:
    return sum(1 for c in cards if c.face_up and c.card != CHICK and guild_of(c.card) == guild)


def plain_score(cards: Sequence[Card], guild: str) -> TeamScore:
    """The standard count: every egg 2 if of one's own Guild, 1 otherwise (face down: 0)."""
    return TeamScore(
        points=sum(card_points(c, guild) for c in cards),
        own_eggs=own_eggs(cards, guild),
        eggs=len(cards),
    )


def pyramid_score(
    slots: Mapping[str, Card], guild: str, *, level_bonus: bool = True, guild_fill: bool = True
) -> TeamScore:
    """B14: fill empty places with up to 3 Guild cards (more empty places: excluded), then add
    each row, doubled when the row is complete and all its cards bear the team's Guild; the
    single top card always doubles."""
    cards = dict(slots)
    empty = [p for p in PLACES if p not in cards]
    excluded = False
    if guild_fill:
        if len(empty) > 3:
            excluded = True
        else:
            cards.update({p: Card(GUILD_CARD) for p in empty})
    points = 0
    for row in ROWS:
        row_cards = [cards[p] for p in row if p in cards]
        value = sum(card_points(c, guild) for c in row_cards)
        complete = len(row_cards) == len(row)
        if level_bonus and complete and (len(row) == 1 or all(bears_team_guild(c, guild) for c in row_cards)):
            value *= 2
        points += value
    eggs_held = [c for p, c in slots.items()]
    return TeamScore(points=points, own_eggs=own_eggs(eggs_held, guild), eggs=len(eggs_held), excluded=excluded)


def winners(scores: Mapping[str, TeamScore]) -> list[str]:
    """Most points, then most own-Guild eggs; teams still level share the win (B8)."""
    eligible = {team: s for team, s in scores.items() if not s.excluded}
    if not eligible:
        return []
    best = max((s.points, s.own_eggs) for s in eligible.values())
    return [team for team, s in eligible.items() if (s.points, s.own_eggs) == best]
