"""Trick legality as composable policies.

A game's play rules are a tuple of policies (`Rules`). Each policy answers three questions
about a card a player wants to play into the current trick:

* `allowed(hand, ctx)`: the cards of a known hand this policy lets the player play;
* `check(hand, ctx, card)`: raise the policy's named violation if `card` breaks it;
* `claim(ctx, card)`: when the hand is NOT known, what playing `card` tells about it: "this
  player held no card of suit S stronger than X". A later play that contradicts the claim
  reveals the offence (a revoke shown up when the player later plays the suit they denied).

The legal cards are the intersection of every policy's `allowed` set; `check` is written
separately so the two can be tested against each other.

A refusal is shown to the whole table: its message names the rule and the card played, never
another card of the hand (the card a rule required is in the violation's `details` under
`HIDDEN_DETAILS`, which public views leave out; docs/secrets.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from referee.core import Violation
from referee.tricks.cards import RankOrder, suit_of


class Revoke(Violation):
    """Not following the suit led while holding a card of it."""


class MustTrump(Violation):
    """Not playing a trump while void in the suit led and holding one."""


class MustOvertake(Violation):
    """Following suit with a lower card while holding one that beats the cards on the table (strozzo)."""


class MustOvertrump(Violation):
    """Playing under (or beside) a trump on the table while holding a higher trump."""


class MustPlayHighestTrump(Violation):
    """House rule: a player who plays a trump must play their highest one."""


class MustLeadTrumpAce(Violation):
    """House rule / obbligo d'asso: the leader holding the trump Ace must lead it."""


class MustLeadHighestTrump(Violation):
    """Obbligo d'asso, extended: the leader holding the highest trump still out must lead it."""


class MustLeadTrump(Violation):
    """House rule: after the first trick the leader must lead a trump if they hold one."""


class OutOfTurn(Violation):
    """A player acted when it was someone else's turn."""


class CardNotInHand(Violation):
    """A card that the player does not hold (or that the referee knows is elsewhere)."""


class CardAlreadyPlayed(Violation):
    """A card that has already been played (or is face up on the table) in this deal."""


@dataclasses.dataclass(frozen=True)
class TrickContext:
    """What a policy may look at: the cards already in the trick (in play order), trumps,
    the rank order, which trick this is (0-based) and the cards played in earlier tricks."""

    plays: tuple[tuple[str, str], ...]
    trump: str | None
    order: RankOrder
    trick_no: int = 0
    gone: frozenset[str] = frozenset()  # cards no player can hold any more (played, turned up)
    suits: tuple[str, ...] = ()

    @property
    def lead_suit(self) -> str | None:
        return suit_of(self.plays[0][1]) if self.plays else None

    def highest_of(self, suit: str | None) -> int:
        """Strength of the strongest card of `suit` on the table, -1 if none."""
        best = -1
        for _, card in self.plays:
            if suit_of(card) == suit:
                best = max(best, self.order.strength(card))
        return best


@dataclasses.dataclass(frozen=True)
class Claim:
    """A player, by a play, implied they held no card of `suit` stronger than `above`
    (`above` = -1: none of the suit at all). Broken later, it reveals `violation`."""

    suit: str
    above: int
    violation: type[Violation]
    trick_no: int

    def broken_by(self, card: str, order: RankOrder) -> bool:
        return suit_of(card) == self.suit and order.strength(card) > self.above

    def to_dict(self) -> dict[str, Any]:
        return {
            "suit": self.suit,
            "above": self.above,
            "violation": self.violation.__name__,
            "trick": self.trick_no + 1,
        }


# The details of a refused play that name a card of the player's hand (the card the rule
# required): the message names the rule only, and public views leave these details out.
HIDDEN_DETAILS = ("required",)


class Policy:
    """One play rule. Subclasses override the three methods."""

    name: str = "policy"
    violation: type[Violation] = Violation

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        return set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        return None

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        return None

    def fail(self, message: str, **details: Any) -> Violation:
        return self.violation(message, rule=self.name, **details)


def _of(hand: Iterable[str], suit: str | None) -> list[str]:
    return [c for c in hand if suit_of(c) == suit]


class FollowSuit(Policy):
    """Follow the suit led if you can."""

    name, violation = "follow_suit", Revoke

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        if not ctx.plays:
            return set(hand)
        same = _of(hand, ctx.lead_suit)
        return set(same) if same else set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        if ctx.plays and suit_of(card) != ctx.lead_suit:
            if any(suit_of(c) == ctx.lead_suit for c in hand):
                raise self.fail(
                    f"{card} does not follow the suit led ({ctx.lead_suit}) and the hand holds it",
                    card=card,
                    lead=ctx.lead_suit,
                )

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        lead = ctx.lead_suit  # None: nothing on the table yet
        if lead is not None and suit_of(card) != lead:
            return Claim(lead, -1, Revoke, ctx.trick_no)
        return None


class MustTrumpWhenVoid(Policy):
    """Void in the suit led, play a trump if you hold one. With `unless_outranked` (5-card
    Italian rule 5), a player whose trumps are all lower than a trump already on the table
    may discard anything."""

    name, violation = "must_trump", MustTrump

    def __init__(self, unless_outranked: bool = False) -> None:
        self.unless_outranked = unless_outranked

    def _applies(self, hand: Sequence[str], ctx: TrickContext) -> bool:
        if not ctx.plays or ctx.trump is None or ctx.lead_suit == ctx.trump:
            return False
        if _of(hand, ctx.lead_suit):
            return False
        trumps = _of(hand, ctx.trump)
        if not trumps:
            return False
        if self.unless_outranked:
            top = ctx.highest_of(ctx.trump)
            return any(ctx.order.strength(t) > top for t in trumps)
        return True

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        if self._applies(hand, ctx):
            return set(_of(hand, ctx.trump))
        return set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        if suit_of(card) != ctx.trump and self._applies(hand, ctx):
            raise self.fail(
                f"{card} is not a trump: a player void in {ctx.lead_suit} must trump",
                card=card,
                lead=ctx.lead_suit,
                trump=ctx.trump,
            )

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        if (
            not ctx.plays
            or ctx.trump is None
            or ctx.lead_suit == ctx.trump
            or suit_of(card) in (ctx.trump, ctx.lead_suit)
        ):
            return None
        above = ctx.highest_of(ctx.trump) if self.unless_outranked else -1
        return Claim(ctx.trump, above, MustTrump, ctx.trick_no)


class MustOvertakeWhenFollowing(Policy):
    """Strozzo: following suit, beat the strongest card of the suit led on the table if you can."""

    name, violation = "must_overtake", MustOvertake

    def _better(self, hand: Sequence[str], ctx: TrickContext) -> list[str]:
        top = ctx.highest_of(ctx.lead_suit)
        return [c for c in _of(hand, ctx.lead_suit) if ctx.order.strength(c) > top]

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        if not ctx.plays:
            return set(hand)
        better = self._better(hand, ctx)
        if better:
            return set(better) | {c for c in hand if suit_of(c) != ctx.lead_suit}
        return set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        if not ctx.plays or suit_of(card) != ctx.lead_suit:
            return
        top = ctx.highest_of(ctx.lead_suit)
        if ctx.order.strength(card) < top and self._better(hand, ctx):
            raise self.fail(f"{card} does not beat the table and the hand holds a card that does", card=card)

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        if ctx.plays and suit_of(card) == ctx.lead_suit:
            top = ctx.highest_of(ctx.lead_suit)
            if ctx.order.strength(card) < top:
                return Claim(suit_of(card), top, MustOvertake, ctx.trick_no)
        return None


class MustOvertrumpWhenVoid(Policy):
    """Void in the suit led with a trump already on the table: play a higher trump if you hold one."""

    name, violation = "must_overtrump", MustOvertrump

    def _higher(self, hand: Sequence[str], ctx: TrickContext) -> list[str]:
        if not ctx.plays or ctx.trump is None or ctx.lead_suit == ctx.trump:
            return []
        if _of(hand, ctx.lead_suit):
            return []
        top = ctx.highest_of(ctx.trump)
        if top < 0:
            return []
        return [c for c in _of(hand, ctx.trump) if ctx.order.strength(c) > top]

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        higher = self._higher(hand, ctx)
        return set(higher) if higher else set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        higher = self._higher(hand, ctx)
        if higher and card not in higher:
            raise self.fail(f"{card} does not overtrump the trump on the table and the hand can", card=card)

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        if not ctx.plays or ctx.trump is None or ctx.lead_suit == ctx.trump or suit_of(card) == ctx.lead_suit:
            return None
        top = ctx.highest_of(ctx.trump)
        if top < 0:
            return None
        if suit_of(card) == ctx.trump and ctx.order.strength(card) > top:
            return None
        return Claim(ctx.trump, top, MustOvertrump, ctx.trick_no)


class HighestTrump(Policy):
    """House rule: a player who has to play a trump (trump led, or void in the suit led)
    must play their highest trump."""

    name, violation = "highest_trump", MustPlayHighestTrump

    def _must(self, hand: Sequence[str], ctx: TrickContext) -> list[str]:
        if not ctx.plays or ctx.trump is None:
            return []
        trumps = _of(hand, ctx.trump)
        if not trumps:
            return []
        if ctx.lead_suit == ctx.trump or not _of(hand, ctx.lead_suit):
            return [max(trumps, key=ctx.order.strength)]
        return []

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        top = self._must(hand, ctx)
        if top:
            return set(top) | {c for c in hand if suit_of(c) != ctx.trump}
        return set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        top = self._must(hand, ctx)
        if top and suit_of(card) == ctx.trump and card != top[0]:
            raise self.fail(
                f"{card} is not the highest trump held: who plays a trump plays their highest",
                card=card,
                required=top[0],
            )

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        if ctx.plays and ctx.trump is not None and suit_of(card) == ctx.trump:
            return Claim(ctx.trump, ctx.order.strength(card), MustPlayHighestTrump, ctx.trick_no)
        return None


class LeadTrumpAce(Policy):
    """The leader holding the trump Ace must lead it: on every lead, or (`first_only`, the
    obbligo d'asso) on the first trick only."""

    name, violation = "lead_trump_ace", MustLeadTrumpAce

    def __init__(self, first_only: bool = False) -> None:
        self.first_only = first_only

    def _ace(self, ctx: TrickContext) -> str | None:
        if ctx.plays or ctx.trump is None or (self.first_only and ctx.trick_no > 0):
            return None
        return "A" + ctx.trump

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        ace = self._ace(ctx)
        return {ace} if ace is not None and ace in hand else set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        ace = self._ace(ctx)
        if ace and ace in hand and card != ace:
            raise self.fail("the leader holding the trump Ace must lead it", card=card, required=ace)

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        ace = self._ace(ctx)
        if ace and card != ace:
            return Claim(suit_of(ace), ctx.order.strength(ace) - 1, MustLeadTrumpAce, ctx.trick_no)
        return None


class LeadHighestTrump(Policy):
    """Obbligo d'asso, extended: a leader holding the highest trump still out (not played,
    not turned up) must lead it."""

    name, violation = "lead_highest_trump", MustLeadHighestTrump

    def _highest(self, ctx: TrickContext) -> str | None:
        if ctx.plays or ctx.trump is None:
            return None
        for rank in ctx.order.order:
            card = rank + ctx.trump
            if card not in ctx.gone:
                return card
        return None

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        top = self._highest(ctx)
        return {top} if top is not None and top in hand else set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        top = self._highest(ctx)
        if top and top in hand and card != top:
            raise self.fail("the leader holding the highest trump still out must lead it", card=card, required=top)

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        top = self._highest(ctx)
        if top and card != top:
            return Claim(suit_of(top), ctx.order.strength(top) - 1, MustLeadHighestTrump, ctx.trick_no)
        return None


class LeadTrumpAfterFirst(Policy):
    """House rule: after the first trick, the leader must lead a trump if they hold one."""

    name, violation = "lead_trump", MustLeadTrump

    def _trump(self, ctx: TrickContext) -> str | None:
        """The trump suit when the rule applies (a lead after the first trick), else None."""
        return ctx.trump if not ctx.plays and ctx.trick_no > 0 else None

    def allowed(self, hand: Sequence[str], ctx: TrickContext) -> set[str]:
        trump = self._trump(ctx)
        trumps = _of(hand, trump) if trump is not None else []
        return set(trumps) if trumps else set(hand)

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        trump = self._trump(ctx)
        if trump is not None and suit_of(card) != trump and _of(hand, trump):
            raise self.fail("after the first trick the leader must lead a trump", card=card)

    def claim(self, ctx: TrickContext, card: str) -> Claim | None:
        trump = self._trump(ctx)
        if trump is not None and suit_of(card) != trump:
            return Claim(trump, -1, MustLeadTrump, ctx.trick_no)
        return None


@dataclasses.dataclass(frozen=True)
class Rules:
    """A game's play rules: an ordered tuple of policies."""

    policies: tuple[Policy, ...]

    def legal(self, hand: Sequence[str], ctx: TrickContext) -> list[str]:
        allowed = set(hand)
        for policy in self.policies:
            allowed &= policy.allowed(hand, ctx)
        return [c for c in hand if c in allowed]

    def check(self, hand: Sequence[str], ctx: TrickContext, card: str) -> None:
        for policy in self.policies:
            policy.check(hand, ctx, card)

    def claims(self, ctx: TrickContext, card: str) -> list[Claim]:
        out: list[Claim] = []
        for policy in self.policies:
            claim = policy.claim(ctx, card)
            if claim is not None:
                out.append(claim)
        return out

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.policies]


def trick_winner(plays: Sequence[tuple[str, str]], trump: str | None, order: RankOrder) -> int:
    """Index into `plays` of the winning card: the highest trump, else the highest of the suit led."""
    lead = suit_of(plays[0][1])
    best = 0
    for i, (_, card) in enumerate(plays[1:], start=1):
        b = plays[best][1]
        cs, bs = suit_of(card), suit_of(b)
        if cs == bs:
            if order.strength(card) > order.strength(b):
                best = i
        elif cs == trump:
            best = i
        elif cs == lead and bs != trump and bs != lead:
            best = i
    return best
