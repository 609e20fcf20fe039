"""Reading the scorekeeper's typed lines in the trick games: the verb, the player, the cards,
and the help line that goes with a mistake. A misspelt command, card or suit is refused with a
"did you mean" (`referee.voice.suggest`), and a card the deck does not know with its ranks and
suits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from referee.core import GameState, MalformedAction
from referee.tricks.cards import CardNotInDeck, Deck
from referee.tricks.common import TrickState
from referee.voice import closest, suggest

State = TypeVar("State", bound=TrickState)


def own_state(state: GameState, cls: type[State]) -> State:
    """`state` as the engine's own kind of state: an engine reads lines for, and renders,
    only the games it made."""
    if not isinstance(state, cls):
        raise TypeError(f"not a {cls.title} state: {type(state).__name__}")
    return state


def split_command(text: str, verbs: Mapping[str, str], help_text: str) -> tuple[str, list[str]]:
    """The verb a line starts with (any of its spellings in `verbs`) and the line's words."""
    words = text.split()
    if not words:
        raise MalformedAction("an empty line", hint=help_text)
    verb = verbs.get(words[0].lower())
    if verb is None:
        mean = suggest(words[0], verbs)
        raise MalformedAction(
            f"unknown command {words[0]!r}" + (f"; {mean}" if mean else ""), hint=help_text, command=words[0]
        )
    return verb, words


def help_line(help_text: str, verb: str) -> str:
    """The line of the help about `verb` (the whole help when no line starts with it)."""
    return next((line for line in help_text.splitlines() if line.startswith(verb)), help_text)


def player_named(players: Sequence[str], word: str) -> str:
    """The player `word` names, in any case; an unknown name is kept as typed, for `verify()`
    to refuse as PlayerNotInGame (whose details give `referee.voice.say_error` the nearest
    player)."""
    for p in players:
        if p.lower() == word.lower():
            return p
    return word


def card_names(deck: Deck) -> dict[str, str]:
    """Every way this deck's cards are written, to its code: "3D", "3 di denari", "3 of coins"
    (and "3♦" for a French deck)."""
    out: dict[str, str] = {}
    for code in deck.cards:
        for language in ("code", "it", "en", "symbol"):
            out.setdefault(deck.name_of(code, language), code)
    return out


def card_help(deck: Deck) -> str:
    """How this deck's cards are written, with its ranks and suits."""
    suits = ", ".join(f"{s} {deck.suit_name(s)}" for s in deck.suits)
    return f"{deck.example()}; ranks {' '.join(deck.ranks)}, suits {suits}"


def misspelt_card(deck: Deck, text: str, message: str, hint: str) -> MalformedAction:
    """The MalformedAction for a card the deck does not know: the nearest card ("did you
    mean Re di coppe (RC)?"), and the deck's ranks and suits."""
    names = card_names(deck)
    match = closest(text, names)
    if match is not None:
        code = names[match]
        message += f"; did you mean {match}" + (f" ({code})?" if match != code else "?")
    return MalformedAction(
        message, hint=f"{hint}; ranks {' '.join(deck.ranks)}, suits {' '.join(deck.suits)}", card=text
    )


def parse_card(deck: Deck, words: Sequence[str]) -> str:
    """One card written in one or more words: "3D", "re di coppe", "king of spades"."""
    if not words:
        raise MalformedAction("which card?", hint=card_help(deck))
    text = " ".join(words)
    try:
        return deck.parse(text)
    except CardNotInDeck as exc:
        raise misspelt_card(deck, text, exc.message, deck.example()) from None


def parse_cards(deck: Deck, words: Sequence[str], hint: str) -> list[str]:
    """Several cards: "3D RC", "3 di denari re di coppe", "K♠ 4♥"; `hint` goes with a card the
    deck does not know."""
    out: list[str] = []
    i = 0
    while i < len(words):
        take = 3 if i + 2 < len(words) and words[i + 1].lower() in ("di", "of") else 1
        text = " ".join(words[i : i + take])
        try:
            out.append(deck.parse(text))
        except CardNotInDeck as exc:
            raise misspelt_card(deck, text, exc.message, hint) from None
        i += take
    return out


def parse_suit(deck: Deck, text: str, hint: str) -> str:
    """A suit as typed ("coppe", "C", "spades"); a misspelt one is refused with "did you mean"."""
    try:
        return deck.parse_suit(text)
    except CardNotInDeck as exc:
        words = [deck.suit_name(s, language) for s in deck.suits for language in ("it", "en")]
        mean = suggest(text, words)
        raise MalformedAction(exc.message + (f"; {mean}" if mean else ""), hint=hint, suit=text) from None
