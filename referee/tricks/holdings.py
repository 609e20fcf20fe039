"""What the referee knows about the cards in the players' hands during one deal.

With full knowledge (a seeded or scripted deal) every hand is a known list, and an illegal
play is refused against it. With partial knowledge (a real table: cards are learned as they
are played or shown) a hand is a count plus the cards shown from it; a play is refused only
when it is impossible (a card not in the deck, already played, or known to be elsewhere), and
each play's `Claim`s are kept so a later play can reveal an earlier revoke.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.tricks.cards import CardNotInDeck, Deck, RankOrder
from referee.tricks.policies import (
    CardAlreadyPlayed,
    CardNotInHand,
    Claim,
    Rules,
    TrickContext,
)


class Holdings:
    """Hands of one deal. `hands` maps player -> cards (full knowledge) or is None (partial)."""

    def __init__(
        self,
        players: Sequence[str],
        deck: Deck,
        hands: dict[str, list[str]] | None,
        counts: dict[str, int] | None = None,
    ) -> None:
        self.deck = deck
        self.players = list(players)
        self.full = hands is not None
        self.hands: dict[str, list[str]] = {p: list(hands.get(p, [])) for p in players} if hands is not None else {}
        if hands is not None:
            self.counts = {p: len(self.hands[p]) for p in players}
        else:
            self.counts = dict(counts or {p: 0 for p in players})
        self.shown: dict[str, list[str]] = {p: [] for p in players}
        self.gone: list[str] = []
        self.claims: dict[str, list[Claim]] = {p: [] for p in players}

    # -- questions ---------------------------------------------------------------------
    def hand(self, player: str) -> list[str] | None:
        return list(self.hands[player]) if self.full else None

    def holder_of(self, card: str) -> str | None:
        """The player known to hold `card` (None: nobody known)."""
        source = self.hands if self.full else self.shown
        for player, cards in source.items():
            if card in cards:
                return player
        return None

    def verify_card(self, player: str, card: str) -> None:
        """Raise unless `player` can hold `card` now."""
        if card not in self.deck:
            raise CardNotInDeck(f"{card!r} is not a card of the {self.deck.name} deck", card=card)
        if card in self.gone:
            raise CardAlreadyPlayed(f"{card} has already been played or turned up in this deal", card=card)
        if self.counts.get(player, 0) <= 0:
            raise CardNotInHand(f"{player} has no card left", player=player, card=card)
        holder = self.holder_of(card)
        if self.full and holder != player:
            raise CardNotInHand(f"{player} does not hold {card}", player=player, card=card)
        if not self.full and holder is not None and holder != player:
            raise CardNotInHand(f"{card} is known to be in {holder}'s hand", player=player, card=card, holder=holder)

    def verify_play(self, player: str, card: str, rules: Rules, ctx: TrickContext) -> None:
        self.verify_card(player, card)
        if self.full:
            rules.check(self.hands[player], ctx, card)

    def legal(self, player: str, rules: Rules, ctx: TrickContext) -> list[str]:
        if not self.full:
            return []
        return rules.legal(self.hands[player], ctx)

    def broken_claims(self, player: str, card: str, order: RankOrder) -> list[Claim]:
        return [c for c in self.claims[player] if c.broken_by(card, order)]

    # -- changes -----------------------------------------------------------------------
    def show(self, player: str, cards: Iterable[str], order: RankOrder | None = None) -> list[Claim]:
        """Cards a player has shown (partial knowledge learns them); return the claims they
        break (a spade seen in the hand of a player who did not follow spades)."""
        broken: list[Claim] = []
        if not self.full:
            for card in cards:
                if card not in self.shown[player]:
                    self.shown[player].append(card)
                if order is not None:
                    for claim in self.broken_claims(player, card, order):
                        self.claims[player].remove(claim)
                        broken.append(claim)
        return broken

    def verify_shown(self, player: str, cards: Sequence[str]) -> None:
        """Raise unless `player` can be holding all of `cards` now."""
        if len(set(cards)) != len(cards):
            raise CardNotInHand("a card shown twice", cards=list(cards))
        for card in cards:
            self.verify_card(player, card)
        known = set(self.shown[player]) | set(cards)
        if not self.full and len(known) > self.counts[player]:
            raise CardNotInHand(f"{player} holds only {self.counts[player]} cards", player=player, cards=list(cards))

    def play(self, player: str, card: str, rules: Rules | None = None, ctx: TrickContext | None = None) -> list[Claim]:
        """Move `card` from the hand to the table; return the claims it breaks (partial)."""
        broken: list[Claim] = []
        if self.full:
            self.hands[player].remove(card)
        else:
            if card in self.shown[player]:
                self.shown[player].remove(card)
            if rules is not None and ctx is not None:
                broken = self.broken_claims(player, card, ctx.order)
                for claim in broken:
                    self.claims[player].remove(claim)
                self.claims[player].extend(rules.claims(ctx, card))
        self.counts[player] -= 1
        self.gone.append(card)
        return broken

    def take(self, player: str, cards: Sequence[str] | int) -> None:
        """Give a player new cards (known list, or a count of unseen cards)."""
        if isinstance(cards, int):
            self.counts[player] += cards
            return
        if self.full:
            self.hands[player].extend(cards)
        self.counts[player] += len(cards)

    def drop(self, player: str, cards: Sequence[str] | int) -> list[str]:
        """Take cards out of a hand (a discard); return the known cards dropped."""
        if isinstance(cards, int):
            n = cards
            if self.full:
                raise ValueError("a known hand drops named cards")
            self.counts[player] -= n
            return []
        for card in cards:
            if self.full:
                self.hands[player].remove(card)
            elif card in self.shown[player]:
                self.shown[player].remove(card)
        self.counts[player] -= len(cards)
        return list(cards)

    def clear(self, player: str) -> list[str]:
        """Empty a hand (thrown in); return its known cards."""
        cards = self.hands.get(player, []) if self.full else list(self.shown[player])
        if self.full:
            self.hands[player] = []
        self.shown[player] = []
        self.counts[player] = 0
        self.claims[player] = []
        return list(cards)

    def snapshot(self) -> dict[str, Any]:
        return {
            "full": self.full,
            "hands": {p: list(c) for p, c in self.hands.items()} if self.full else None,
            "counts": dict(self.counts),
            "shown": {p: list(c) for p, c in self.shown.items() if c},
            "gone": list(self.gone),
            "claims": {p: [c.to_dict() for c in cs] for p, cs in self.claims.items() if cs},
        }

    def view(self, viewer: str | None) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "hand": (list(self.hands[viewer]) if self.full else list(self.shown[viewer]))
            if viewer in self.counts
            else None,
            "shown": {p: list(c) for p, c in self.shown.items() if c},
            "gone": list(self.gone),
        }
