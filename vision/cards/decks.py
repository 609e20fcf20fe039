"""Definitions of every card the referee can see: Beccato!, the Italian 40-card deck and the
French-suited deck (52 cards, and the 40-card Bestia subset), plus their backs.

A `Card` is pure data: a stable `id` (the label the recogniser reports and the rules engines
use), the deck it belongs to, its kind and its attributes (rank, suit, breed, Guild...). Faces
are drawn from these definitions by `vision.cards.render`; nothing here draws or reads files.

Card ids
--------
* French deck: rank then suit letter, ``"AS" "10H" "QC" "2D"`` (ranks A 2..10 J Q K; suits
  S spades, H hearts, D diamonds, C clubs). The 40-card deck used by Bestia drops the 8s, 9s
  and 10s.
* Italian deck: rank then suit letter, ``"AD" "7C" "FS" "RB"`` (ranks A Asso, 2..7,
  F Fante, C Cavallo, R Re; suits C coppe, D denari, S spade, B bastoni).
  French and Italian ids are the codes of `referee.tricks.cards` ("3D", "CC", "KS", "10H").
* Beccato!: ``"chicken:orloff:1"`` (breed, copy 1..3; Serama copies 1..4),
  ``"henhouse:orloff"``, ``"egg:dollar-3"`` (the engine's egg name: Guild and number 1..7),
  ``"guild:dollar:2"`` (Guild, copy 1..3), ``"chick"``, ``"signal:touch_nose_left:1"``
  (Signal-card id from `referee.signal_cards`, copy). `engine_name(card)` gives the name the
  Beccato! engine uses: the breed for a chicken ("orloff", "serama"), "dollar-3" for an egg.
* Backs: ``"back:french"``, ``"back:italian"``, ``"back:beccato:chicken"`` (one back per kind
  of Beccato! card).

The 180-degree symmetry of a face matters to the detector: French and Italian faces and all
backs look the same upside down; every Beccato! face is drawn with a top (see render.py).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from referee.beccato.cards import BREEDS, EGGS_PER_GUILD, GUILDS, SERAMA
from referee.signal_cards import SIGNAL_CARDS

DeckName = Literal["beccato", "italian", "french52", "french40"]
Kind = Literal["chicken", "henhouse", "egg", "guild", "chick", "signal", "pip", "back"]

# Physical card sizes in millimetres (width, height), portrait.
CARD_SIZE_MM: dict[str, tuple[float, float]] = {
    "beccato": (63.0, 88.0),  # standard card-game size
    "italian": (58.0, 98.0),  # regional Italian decks (Piacentine, Romagnole: about 58 x 98)
    "french52": (63.0, 88.0),  # poker size
    "french40": (63.0, 88.0),
}

# --- Beccato! -------------------------------------------------------------------------------
# Eight breeds, three cards each, plus four Serama roosters, and the four Guilds: the Beccato!
# rules engine's names (`referee.beccato.cards`). The rulebook names only Orloff, Padovana and
# the Serama; the others are real breeds chosen so that names, colours and patterns are easy to
# tell apart across a table.
BREED_NAMES: dict[str, str] = {
    "orloff": "Orloff",
    "padovana": "Padovana",
    "brahma": "Brahma",
    "cocincina": "Cocincina",
    "livornese": "Livornese",
    "moroseta": "Moroseta",
    "araucana": "Araucana",
    "sussex": "Sussex",
    "serama": "Serama",
}
# Four Guilds (teams) of three Guild cards; each Guild's symbol is printed on its eggs.
# The rulebook mentions the "$" Guild; the other symbols are ours (the engine's names).
GUILD_SYMBOLS: dict[str, str] = {"dollar": "$", "star": "*", "moon": "C", "sun": "O"}
# Signal cards: 33 cards for the 20 printed signals. The text does not say which signals are
# printed twice; here the first 13 signals of the printed guide have two copies.
SIGNAL_CARD_COUNT = 33

# --- Italian and French decks ---------------------------------------------------------------
ITALIAN_SUITS: tuple[str, ...] = ("C", "D", "S", "B")
ITALIAN_SUIT_NAMES = {"C": "coppe", "D": "denari", "S": "spade", "B": "bastoni"}
ITALIAN_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R")
ITALIAN_RANK_NAMES = {
    "A": "Asso",
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "F": "Fante",
    "C": "Cavallo",
    "R": "Re",
}
FRENCH_SUITS: tuple[str, ...] = ("S", "H", "D", "C")
FRENCH_SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
FRENCH_RANKS_52: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FRENCH_RANKS_40: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
COURT_RANKS: frozenset[str] = frozenset({"J", "Q", "K", "F", "C", "R"})  # figures: Jack Queen King, Fante Cavallo Re


@dataclasses.dataclass(frozen=True)
class Card:
    """One card of a deck.

    id: the label the recogniser reports (unique within the deck; see the module docstring).
    deck: "beccato", "italian", "french52", "french40".
    kind: "chicken", "henhouse", "egg", "guild", "chick", "signal", "pip" (a suited card), "back".
    rank, suit: for suited cards. breed, guild, signal: for Beccato! cards. copy: 1.. for
    identical copies (three Orloff chickens are the same face; copy tells the printed cards apart).
    symmetric: True when the face looks the same turned 180 degrees.
    """

    id: str
    deck: str
    kind: str
    name: str
    rank: str | None = None
    suit: str | None = None
    breed: str | None = None
    guild: str | None = None
    signal: str | None = None
    copy: int = 1
    symmetric: bool = False

    @property
    def face_key(self) -> str:
        """Cards with the same face_key look identical (the copies of one chicken, say)."""
        return self.id.rsplit(":", 1)[0] if self.copy_in_id else self.id

    @property
    def court(self) -> bool:
        """A suited card showing a figure (a king, a fante...) rather than pips."""
        return self.kind == "pip" and self.rank in COURT_RANKS

    @property
    def copy_in_id(self) -> bool:
        return self.kind in ("chicken", "guild", "signal")


def _beccato_cards() -> list[Card]:
    cards: list[Card] = []
    for breed in BREEDS:
        for copy in (1, 2, 3):
            cards.append(
                Card(f"chicken:{breed}:{copy}", "beccato", "chicken", BREED_NAMES[breed], breed=breed, copy=copy)
            )
    for copy in (1, 2, 3, 4):
        cards.append(
            Card(f"chicken:{SERAMA}:{copy}", "beccato", "chicken", BREED_NAMES[SERAMA], breed=SERAMA, copy=copy)
        )
    for breed in BREEDS:
        cards.append(Card(f"henhouse:{breed}", "beccato", "henhouse", f"{BREED_NAMES[breed]} henhouse", breed=breed))
    for guild in GUILDS:
        for n in range(1, EGGS_PER_GUILD + 1):
            cards.append(
                Card(
                    f"egg:{guild}-{n}", "beccato", "egg", f"Egg {n} ({GUILD_SYMBOLS[guild]})", guild=guild, rank=str(n)
                )
            )
    for guild in GUILDS:
        for copy in (1, 2, 3):
            cards.append(
                Card(
                    f"guild:{guild}:{copy}", "beccato", "guild", f"Guild {GUILD_SYMBOLS[guild]}", guild=guild, copy=copy
                )
            )
    cards.append(Card("chick", "beccato", "chick", "Chick"))
    printed = [s for s in SIGNAL_CARDS if s.printed]
    twice = SIGNAL_CARD_COUNT - len(printed)
    for i, sig in enumerate(printed):
        for copy in range(1, (2 if i < twice else 1) + 1):
            cards.append(Card(f"signal:{sig.id}:{copy}", "beccato", "signal", sig.text, signal=sig.id, copy=copy))
    return cards


def _suited(
    deck: str,
    ranks: tuple[str, ...],
    suits: tuple[str, ...],
    names: dict[str, str],
    rank_names: dict[str, str] | None = None,
) -> list[Card]:
    return [
        Card(f"{r}{s}", deck, "pip", f"{(rank_names or {}).get(r, r)} of {names[s]}", rank=r, suit=s, symmetric=True)
        for s in suits
        for r in ranks
    ]


BECCATO_BACK_KINDS: tuple[str, ...] = ("chicken", "henhouse", "egg", "guild", "chick", "signal")


def _backs(deck: str) -> list[Card]:
    if deck == "beccato":
        return [
            Card(f"back:beccato:{k}", deck, "back", f"Beccato! {k} back", symmetric=True) for k in BECCATO_BACK_KINDS
        ]
    family = "french" if deck.startswith("french") else deck
    return [Card(f"back:{family}", deck, "back", f"{family} back", symmetric=True)]


def _build(deck: str) -> tuple[Card, ...]:
    if deck == "beccato":
        return tuple(_beccato_cards())
    if deck == "italian":
        return tuple(_suited(deck, ITALIAN_RANKS, ITALIAN_SUITS, ITALIAN_SUIT_NAMES, ITALIAN_RANK_NAMES))
    if deck == "french52":
        return tuple(_suited(deck, FRENCH_RANKS_52, FRENCH_SUITS, FRENCH_SUIT_NAMES))
    if deck == "french40":
        return tuple(_suited(deck, FRENCH_RANKS_40, FRENCH_SUITS, FRENCH_SUIT_NAMES))
    raise UnknownDeck(deck)


class UnknownDeck(KeyError):
    """A deck name with no definition."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no deck {name!r}; known: {', '.join(DECKS)}")
        self.deck = name

    def __str__(self) -> str:
        return str(self.args[0])


DECKS: tuple[str, ...] = ("beccato", "italian", "french52", "french40")
_CACHE: dict[str, tuple[Card, ...]] = {}


def deck(name: str) -> tuple[Card, ...]:
    """Every face card of deck `name` (backs not included), in a fixed order."""
    if name not in DECKS:
        raise UnknownDeck(name)
    if name not in _CACHE:
        _CACHE[name] = _build(name)
    return _CACHE[name]


def backs(name: str) -> tuple[Card, ...]:
    """The back(s) of deck `name`."""
    if name not in DECKS:
        raise UnknownDeck(name)
    return tuple(_backs(name))


def card(deck_name: str, card_id: str) -> Card:
    """The card `card_id` of deck `deck_name` (backs included); KeyError names the deck."""
    for c in deck(deck_name) + backs(deck_name):
        if c.id == card_id:
            return c
    raise KeyError(f"deck {deck_name!r} has no card {card_id!r}")


def engine_name(c: Card) -> str:
    """The name a rules engine uses for `c`: the code for a suited card ("3D"), the breed for a
    chicken or a henhouse ("orloff"), the egg name ("dollar-3"), the Guild, "chick", or the
    Signal-card id."""
    if c.kind == "pip":
        return c.id
    if c.kind in ("chicken", "henhouse"):
        return c.breed or ""
    if c.kind == "egg":
        return c.id.split(":", 1)[1]
    if c.kind == "guild":
        return c.guild or ""
    if c.kind == "signal":
        return c.signal or ""
    return c.id


def symbol_siblings(name: str) -> list[tuple[str, ...]]:
    """Groups of face keys whose faces differ by their suit or Guild symbol alone: the four 7s of
    a French or Italian deck, the four eggs numbered 3. (Their layouts are one; identification
    looks closer at them: `identify.CardIdentifier`.) Not the figures: a king of clubs and a king of
    spades are different drawings in different colours (in print as in `render`), which the
    whole face tells apart and the second look at the grey alone does not."""
    groups: dict[tuple[str, str], list[str]] = {}
    for c in faces(name):
        if c.rank is not None and (c.suit is not None or c.guild is not None) and not c.court:
            groups.setdefault((c.kind, c.rank), []).append(c.face_key)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def faces(name: str) -> tuple[Card, ...]:
    """One card per distinct face (copies of a chicken, a Guild card or a Signal card collapse)."""
    seen: dict[str, Card] = {}
    for c in deck(name):
        seen.setdefault(c.face_key, c)
    return tuple(seen.values())
