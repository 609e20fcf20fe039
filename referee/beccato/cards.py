"""The Beccato! components the engine needs: chicken breeds, the Serama, Guilds and the 28 eggs.

The rulebook names only some of the printed components: the breeds Orloff and Padovana (plural
Padovane), the Serama rooster, one Guild symbol ("$"), one egg ("Cactus"). The lists below fill
the rest with stand-in names so that a game can be refereed; a table whose printed cards carry
other names only needs the aliases below extended. In particular the printed distribution of
Guild symbols over the 28 Egg cards is unknown to us: this engine uses 7 eggs per Guild for the
4 Guilds, named ``<guild>-<n>`` (``dollar-1`` ... ``sun-7``).
"""

from __future__ import annotations

import unicodedata
from collections import Counter

SERAMA = "serama"

# The eight hen breeds, one per Henhouse card, in the order henhouses are taken at setup
# (a game with N players takes the first N-1, or the breeds its setup names).
BREEDS: tuple[str, ...] = (
    "orloff",
    "padovana",
    "brahma",
    "cocincina",
    "livornese",
    "moroseta",
    "araucana",
    "sussex",
)
CARD_NAMES: tuple[str, ...] = BREEDS + (SERAMA,)
COPIES_PER_BREED = 3
SERAMA_COPIES = 4

GUILDS: tuple[str, ...] = ("dollar", "star", "moon", "sun")
EGGS_PER_GUILD = 7
EGGS: tuple[str, ...] = tuple(f"{g}-{n}" for g in GUILDS for n in range(1, EGGS_PER_GUILD + 1))
CHICK = "chick"  # the Chick card of the Egg Pyramid variant (not an egg of the egg deck)

GUILD_CARDS_PER_GUILD = 3
IMAGINARY_SEAT = "?"  # the five-player game's imaginary seat (B11)

_ALIASES = {
    "padovane": "padovana",
    "padovan": "padovana",
    "orloffs": "orloff",
    "seramas": "serama",
    "rooster": "serama",
    "cochin": "cocincina",
    "silkie": "moroseta",
    "leghorn": "livornese",
    "$": "dollar",
}


def fold(text: str) -> str:
    """Lower case without accents: 'Coccodé' -> 'coccode'."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def card_name(text: str) -> str:
    """The canonical name of a chicken card as typed ('Padovane' -> 'padovana'); unknown names
    come back folded, so that the state can reject them as CardNotInDeck."""
    key = fold(text)
    return _ALIASES.get(key, key)


def egg_name(text: str) -> str:
    key = fold(text).replace("_", "-")
    guild, _, number = key.rpartition("-")
    if guild in _ALIASES:
        key = f"{_ALIASES[guild]}-{number}"
    return key


def guild_of(egg: str) -> str | None:
    """The Guild symbol an egg bears (None for the Chick)."""
    if egg == CHICK:
        return None
    return egg.rpartition("-")[0]


def deck_composition(breeds: tuple[str, ...]) -> Counter[str]:
    """The chicken deck of a game: 3 of each henhouse breed plus the 4 Serama."""
    deck: Counter[str] = Counter({breed: COPIES_PER_BREED for breed in breeds})
    deck[SERAMA] = SERAMA_COPIES
    return deck


def copies(card: str) -> int:
    return SERAMA_COPIES if card == SERAMA else COPIES_PER_BREED
