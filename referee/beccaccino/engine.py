"""The Beccaccino engine object: makes states, reads scorekeeper lines, renders the table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.beccaccino.actions import CALLS, CODEC, CallOut, Declare, Look, Marafona, Play, Show
from referee.beccaccino.game import DECK, BeccaccinoState
from referee.core import Action, GameState, MalformedAction, TableEngine
from referee.secrecy import PUBLIC, Discreet, Viewer, trick_public_setup, trick_view_for
from referee.tricks import CardNotInDeck
from referee.tricks.commands import (
    help_line,
    own_state,
    parse_card,
    parse_cards,
    parse_suit,
    player_named,
    split_command,
)
from referee.voice import suggest

HELP = """\
declare PLAYER SUIT        the battezzante names trump (coppe/denari/spade/bastoni or C/D/S/B)
look PLAYER                a player was seen looking at their cards before the declaration
play PLAYER CARD [CALL]    a card (3D, "re di coppe", "3 of coins"); the leader may add
                           busso, volo or striscio (one per player per hand)
marafona PLAYER            during the first trick: the 3, 2 and Ace of trump shown (+3)
fuori PLAYER               chiamarsi fuori: the team claims the target (right wins, wrong loses)
seen PLAYER CARD [CARD...] cards seen in a player's hand (the referee learns them)"""

_VERBS = {
    "declare": "declare",
    "briscola": "declare",
    "trump": "declare",
    "battezzo": "declare",
    "look": "look",
    "guarda": "look",
    "play": "play",
    "gioca": "play",
    "p": "play",
    "marafona": "marafona",
    "maraffa": "marafona",
    "cricca": "marafona",
    "fuori": "fuori",
    "callout": "fuori",
    "call-out": "fuori",
    "seen": "seen",
    "show": "seen",
    "visto": "seen",
}
_CALL_WORDS = {
    "busso": "busso",
    "knock": "busso",
    "volo": "volo",
    "fly": "volo",
    "striscio": "striscio",
    "slide": "striscio",
}


class BeccaccinoEngine:
    name = "beccaccino"
    version = "1.1"
    codec = CODEC
    deck = DECK
    lead_calls: tuple[str, ...] = CALLS  # the announcements a lead carries in the play action's `call`

    def new_game(self, setup: Mapping[str, Any]) -> BeccaccinoState:
        return BeccaccinoState(setup)

    def command_help(self) -> str:
        return HELP

    def parse_command(self, state: GameState, text: str) -> Action:
        verb, words = split_command(text, _VERBS, HELP)
        if len(words) < 2:
            raise MalformedAction(f"{verb}: whose?", hint=_hint(verb))
        player = player_named(own_state(state, BeccaccinoState).players, words[1])
        rest = words[2:]
        if verb == "look":
            return Look(player)
        if verb == "marafona":
            return Marafona(player)
        if verb == "fuori":
            return CallOut(player)
        if verb == "seen":
            if not rest:
                raise MalformedAction("seen: which cards?", hint=_hint(verb))
            return Show(player, tuple(parse_cards(DECK, rest, DECK.example())))
        if verb == "declare":
            if not rest:
                raise MalformedAction("declare: which suit?", hint=_hint(verb))
            return Declare(player, parse_suit(DECK, " ".join(rest), _hint(verb)))
        call = None
        if rest and rest[-1].lower() in _CALL_WORDS:
            call = _CALL_WORDS[rest.pop().lower()]
        if not rest:
            raise MalformedAction("play: which card?", hint=_hint(verb))
        if call is None and len(rest) > 1 and rest[-1].lower() not in ("di", "of"):
            mean = suggest(rest[-1], _CALL_WORDS)
            if mean and _is_card(" ".join(rest[:-1])):
                raise MalformedAction(f"{rest[-1]!r} is not an announcement; {mean}", hint=_hint(verb))
        return Play(player, parse_card(DECK, rest), call)

    def render(self, state: GameState) -> str:
        """The table as everyone at it may see it (no hand)."""
        return self.render_for(state, PUBLIC)

    # -- who sees what (referee.secrecy) ---------------------------------------------------
    def view_for(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        return trick_view_for(own_state(state, BeccaccinoState), viewer)

    def public_setup(self, setup: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        return trick_public_setup(setup, viewer)

    def public_action(self, action: Mapping[str, Any], viewer: Viewer) -> tuple[dict[str, Any], list[str]]:
        return dict(action), []  # every action names only cards played or shown

    def public_event(self, event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        return dict(event)  # a call's truth stays out of the events until the hand is scored

    def render_for(self, state: GameState, viewer: Viewer) -> str:
        s = own_state(state, BeccaccinoState)
        name = DECK.name_of
        lines = [
            f"Beccaccino, hand {s.hand_no + 1}, to {s.options['target']}   "
            + "   ".join(f"{t}: {v}" for t, v in s.scores.items())
        ]
        lines.append(
            f"dealer {s.dealer}; battezzante {s.battezzante or '(holder of 4 di denari)'}"
            + (f"; trump {DECK.suit_name(s.trump)}" if s.trump else "")
        )
        if s.is_over and s.result is not None:
            lines.append(f"GAME OVER: {s.result['message']}. Winner: {s.winner}")
            return "\n".join(lines)
        if s.phase == "declare":
            lines.append(f"waiting for {s.battezzante or 'the holder of the 4 di denari'} to declare the trump")
        else:
            table = ", ".join(f"{p} {name(c)}" for p, c in s.trick) or "(empty)"
            lines.append(f"trick {s.trick_no + 1}/10: {table}; {s.turn} to play")
            lines.append(
                "this hand (thirds): "
                + ", ".join(f"{t} {v // 3} {v % 3}/3" for t, v in s.thirds.items())
                + "; tricks "
                + ", ".join(f"{p} {n}" for p, n in s.tricks_taken.items())
            )
            if s.last_trick:
                lines.append(
                    f"last trick to {s.last_trick['winner']}: " + ", ".join(name(c) for _, c in s.last_trick["cards"])
                )
        if s.calls:
            lines.append("announcements: " + ", ".join(f"{p} {c['call']}" for p, c in s.calls.items()))
        if s.marafona:
            lines.append(f"Marafona: {s.marafona['player']} (+3 {s.marafona['team']})")
        for foul in s.fouls[-3:]:
            lines.append(f"foul (hand {foul['hand']}): {foul['message']}")
        if s.holdings.full and s.turn and viewer.everything:
            lines.append(f"{s.turn} holds: " + " ".join(s.holdings.hands[s.turn]))
        elif s.holdings.full and viewer.player is not None and viewer.player in s.holdings.hands:
            lines.append(f"{viewer.player} holds: " + (" ".join(s.holdings.hands[viewer.player]) or "-"))
        return "\n".join(lines)


def _is_card(text: str) -> bool:
    try:
        DECK.parse(text)
    except CardNotInDeck:
        return False
    return True


def _hint(verb: str) -> str:
    return help_line(HELP, verb)


ENGINE = BeccaccinoEngine()
_CONTRACT: TableEngine = ENGINE  # mypy checks here that the engine meets the table's contract
_DISCREET: Discreet = ENGINE  # ...and that it says what each viewer may see
