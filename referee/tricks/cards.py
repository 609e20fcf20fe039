"""Playing cards of the Italian trick-taking games: decks, names and rank orders.

A card is held everywhere as its short code, a plain string: rank then suit letter.

* The 40-card Italian deck: ranks A 2 3 4 5 6 7 F (Fante) C (Cavallo) R (Re); suits
  C (coppe), D (denari), S (spade), B (bastoni). "3D" is the 3 di denari, "CC" the Cavallo di coppe.
* The French deck: ranks A 2..10 J Q K; suits S (spades) H (hearts) D (diamonds) C (clubs).
  "KS" is the K♠. Bestia uses its 40 cards (no 8, 9, 10); the German-style variants its 32
  (7 to A) and Mauscheln for many players all 52.

`Deck.parse` reads what a scorekeeper types, in Italian or English: "3 di denari", "3D",
"tre di denari", "K♠", "king of spades", "Re di picche", "10H". `Deck.name` prints a code back
in the same languages.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Literal

from referee.core import Violation

Language = Literal["code", "it", "en", "symbol"]


class CardNotInDeck(Violation):
    """A card name that the deck in play does not contain."""


@dataclasses.dataclass(frozen=True)
class Card:
    """A card as rank and suit; `code` is its short name."""

    rank: str
    suit: str

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @classmethod
    def of(cls, code: str) -> Card:
        return cls(rank_of(code), suit_of(code))


def suit_of(code: str) -> str:
    return code[-1]


def rank_of(code: str) -> str:
    return code[:-1]


_ITALIAN_RANK_WORDS = {
    "A": ("asso", "ace", "a", "1", "as"),
    "2": ("due", "two", "2"),
    "3": ("tre", "three", "3"),
    "4": ("quattro", "four", "4"),
    "5": ("cinque", "five", "5"),
    "6": ("sei", "six", "6"),
    "7": ("sette", "seven", "7"),
    "F": ("fante", "f", "jack", "knave", "j", "donna"),
    "C": ("cavallo", "c", "knight", "horse", "q", "cavaliere"),
    "R": ("re", "r", "king", "k"),
}
_ITALIAN_SUIT_WORDS = {
    "C": ("coppe", "c", "cups", "coppa"),
    "D": ("denari", "d", "coins", "denaro", "ori"),
    "S": ("spade", "s", "swords", "spada"),
    "B": ("bastoni", "b", "batons", "clubs", "bastone", "wands"),
}
_FRENCH_RANK_WORDS = {
    "A": ("a", "ace", "asso", "1"),
    "2": ("2", "two", "due"),
    "3": ("3", "three", "tre"),
    "4": ("4", "four", "quattro"),
    "5": ("5", "five", "cinque"),
    "6": ("6", "six", "sei"),
    "7": ("7", "seven", "sette"),
    "8": ("8", "eight", "otto"),
    "9": ("9", "nine", "nove"),
    "10": ("10", "ten", "dieci", "t"),
    "J": ("j", "jack", "knave", "fante", "f"),
    "Q": ("q", "queen", "donna", "regina", "dama"),
    "K": ("k", "king", "re", "r"),
}
_FRENCH_SUIT_WORDS = {
    "S": ("s", "spades", "spade", "picche", "picca", "♠", "♤"),
    "H": ("h", "hearts", "heart", "cuori", "cuore", "♥", "♡"),
    "D": ("d", "diamonds", "diamond", "quadri", "quadro", "♦", "♢"),
    "C": ("c", "clubs", "club", "fiori", "fiore", "♣", "♧"),
}
_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

_IT_NAME = {"A": "Asso", "F": "Fante", "C": "Cavallo", "R": "Re", "J": "Fante", "Q": "Donna", "K": "Re"}
_EN_NAME = {"A": "Ace", "F": "Jack", "C": "Knight", "R": "King", "J": "Jack", "Q": "Queen", "K": "King"}
_IT_SUIT = {
    "italian": {"C": "coppe", "D": "denari", "S": "spade", "B": "bastoni"},
    "french": {"S": "picche", "H": "cuori", "D": "quadri", "C": "fiori"},
}
_EN_SUIT = {
    "italian": {"C": "cups", "D": "coins", "S": "swords", "B": "batons"},
    "french": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
}


@dataclasses.dataclass(frozen=True)
class Deck:
    """A pack: its style (Italian or French suits), its ranks and suits, and how to read names."""

    name: str
    style: Literal["italian", "french"]
    ranks: tuple[str, ...]
    suits: tuple[str, ...]

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(r + s for s in self.suits for r in self.ranks)

    def __len__(self) -> int:
        return len(self.ranks) * len(self.suits)

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and len(code) >= 2 and code[-1] in self.suits and code[:-1] in self.ranks

    def _words(self) -> tuple[dict[str, str], dict[str, str]]:
        rank_words = _ITALIAN_RANK_WORDS if self.style == "italian" else _FRENCH_RANK_WORDS
        suit_words = _ITALIAN_SUIT_WORDS if self.style == "italian" else _FRENCH_SUIT_WORDS
        ranks = {w: r for r, ws in rank_words.items() if r in self.ranks for w in ws}
        suits = {w: s for s, ws in suit_words.items() if s in self.suits for w in ws}
        return ranks, suits

    def parse(self, text: str) -> str:
        """The code of a card written as "3D", "3 di denari", "K♠", "king of spades"..."""
        if not isinstance(text, str):
            raise CardNotInDeck(f"a card is a name, not {text!r}", card=repr(text))
        raw = text.strip()
        if raw in self:
            return raw
        ranks, suits = self._words()
        low = re.sub(r"\s+", " ", raw.lower())
        m = re.fullmatch(r"(.+?) (?:di|de|d'|of) (.+)", low)
        if m:
            rank_word, suit_word = m.group(1), m.group(2)
        else:
            compact = low.replace(" ", "")
            m = re.fullmatch(r"(10|[0-9]|[a-z]+?)([a-z]|[♠♤♥♡♦♢♣♧])", compact)
            if not m:
                raise CardNotInDeck(f"{raw!r} is not a card of the {self.name} deck", card=raw, hint=self.example())
            rank_word, suit_word = m.group(1), m.group(2)
        rank, suit = ranks.get(rank_word.strip()), suits.get(suit_word.strip())
        if rank is None or suit is None:
            raise CardNotInDeck(f"{raw!r} is not a card of the {self.name} deck", card=raw, hint=self.example())
        return rank + suit

    def parse_suit(self, text: str) -> str:
        _, suits = self._words()
        suit = suits.get(text.strip().lower())
        if suit is None:
            raise CardNotInDeck(f"{text!r} is not a suit of the {self.name} deck", suit=text, suits=list(self.suits))
        return suit

    def name_of(self, code: str, language: Language = "it") -> str:
        """The card's name: "3 di denari", "3 of coins", "3D" or "3♦" (French decks)."""
        rank, suit = rank_of(code), suit_of(code)
        if language == "code":
            return code
        if language == "symbol":
            if self.style != "french":
                return code
            return rank + _SYMBOL[suit]
        if language == "it":
            return f"{_IT_NAME.get(rank, rank)} di {_IT_SUIT[self.style][suit]}"
        return f"{_EN_NAME.get(rank, rank)} of {_EN_SUIT[self.style][suit]}"

    def suit_name(self, suit: str, language: Language = "it") -> str:
        if language == "symbol" and self.style == "french":
            return _SYMBOL[suit]
        table = _EN_SUIT if language == "en" else _IT_SUIT
        return table[self.style][suit]

    def example(self) -> str:
        if self.style == "italian":
            return "write a card as 3D, RC, 'asso di spade' or '3 of coins'"
        return "write a card as KS, 10H, K♠ or 'king of spades'"


ITALIAN_40 = Deck("italian-40", "italian", ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R"), ("C", "D", "S", "B"))
FRENCH_40 = Deck("french-40", "french", ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"), ("S", "H", "D", "C"))
FRENCH_32 = Deck("french-32", "french", ("7", "8", "9", "10", "J", "Q", "K", "A"), ("S", "H", "D", "C"))
FRENCH_52 = Deck(
    "french-52", "french", ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"), ("S", "H", "D", "C")
)
DECKS = {d.name: d for d in (ITALIAN_40, FRENCH_40, FRENCH_32, FRENCH_52)}


@dataclasses.dataclass(frozen=True)
class RankOrder:
    """Trick-taking strength of ranks, strongest first, and each rank's points (in thirds for
    Beccaccino; none for Bestia)."""

    name: str
    order: tuple[str, ...]
    points: tuple[tuple[str, int], ...] = ()

    def strength(self, code: str) -> int:
        """Higher is stronger; the strongest rank has strength len(order) - 1."""
        return len(self.order) - 1 - self.order.index(rank_of(code))

    def value(self, code: str) -> int:
        return dict(self.points).get(rank_of(code), 0)

    def top(self) -> int:
        return len(self.order) - 1

    def sort(self, cards: Iterable[str], suits: tuple[str, ...] = ()) -> list[str]:
        """Cards grouped by suit (in `suits` order), strongest first."""
        suit_index = {s: i for i, s in enumerate(suits)}
        return sorted(cards, key=lambda c: (suit_index.get(suit_of(c), 99), suit_of(c), -self.strength(c)))


# Beccaccino (as in Tressette): 3 2 A R C F 7 6 5 4; Ace 1 point, 3 2 and figures 1/3.
BECCACCINO_ORDER = RankOrder(
    "beccaccino",
    ("3", "2", "A", "R", "C", "F", "7", "6", "5", "4"),
    (("A", 3), ("3", 1), ("2", 1), ("R", 1), ("C", 1), ("F", 1)),
)
# Bestia (as in Briscola): A 3 K/R Q/C J/F 7 6 5 4 2, in either deck.
BESTIA_ORDER_IT = RankOrder("bestia-italian", ("A", "3", "R", "C", "F", "7", "6", "5", "4", "2"))
BESTIA_ORDER_FR = RankOrder("bestia-french", ("A", "3", "K", "Q", "J", "7", "6", "5", "4", "2"))
# Tippen, Mauscheln: the German order, Ace high.
GERMAN_ORDER_32 = RankOrder("german-32", ("A", "K", "Q", "J", "10", "9", "8", "7"))
GERMAN_ORDER_52 = RankOrder("german-52", ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"))
