"""Reading the scorekeeper's typed lines in the trick games: the verb, the player, the cards,
and the help line that goes with a mistake."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from referee.core import GameState, MalformedAction
from referee.tricks.cards import CardNotInDeck, Deck
from referee.tricks.common import TrickState

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
        raise MalformedAction(f"unknown command {words[0]!r}", hint=help_text)
    return verb, words


def help_line(help_text: str, verb: str) -> str:
    """The line of the help about `verb` (the whole help when no line starts with it)."""
    return next((line for line in help_text.splitlines() if line.startswith(verb)), help_text)


def player_named(players: Sequence[str], word: str) -> str:
    """The player `word` names, in any case; an unknown name is kept as typed, for `verify()`
    to refuse as PlayerNotInGame."""
    for p in players:
        if p.lower() == word.lower():
            return p
    return word


def parse_card(deck: Deck, words: Sequence[str]) -> str:
    """One card written in one or more words: "3D", "re di coppe", "king of spades"."""
    if not words:
        raise MalformedAction("which card?", hint=deck.example())
    try:
        return deck.parse(" ".join(words))
    except CardNotInDeck as exc:
        raise MalformedAction(exc.message, hint=deck.example()) from None


def parse_cards(deck: Deck, words: Sequence[str], hint: str) -> list[str]:
    """Several cards: "3D RC", "3 di denari re di coppe", "K♠ 4♥"; `hint` goes with a card the
    deck does not know."""
    out: list[str] = []
    i = 0
    while i < len(words):
        take = 3 if i + 2 < len(words) and words[i + 1].lower() in ("di", "of") else 1
        try:
            out.append(deck.parse(" ".join(words[i : i + take])))
        except CardNotInDeck as exc:
            raise MalformedAction(exc.message, hint=hint) from None
        i += take
    return out
