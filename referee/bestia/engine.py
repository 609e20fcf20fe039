"""The Bestia engine object: makes states, reads scorekeeper lines, renders the table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.bestia.actions import CODEC, Buco, Doctor, Gioco, Knock, Pass, Play, Rob, Show, Terzo, TurnTrump
from referee.bestia.game import BestiaState
from referee.core import Action, GameState, MalformedAction, TableEngine
from referee.secrecy import PUBLIC, Discreet, Viewer, trick_public_setup, trick_view_for
from referee.tricks.cards import Language
from referee.tricks.commands import help_line, own_state, parse_card, parse_cards, player_named, split_command
from referee.voice import say_event

HELP = """\
trump CARD                 (deal not known) the card turned up for trumps
knock PLAYER               knock (3-card), busso (5-card: no exchange, declarations stop),
                           play (Julepe), "I play" then join (Mauscheln)
pass PLAYER                pass / passo / fold
gioco PLAYER [CARDS|N]     5-card: play, exchanging the cards named (or N unseen cards);
                           Julepe, Mauscheln: the exchange round ("change" is the same)
rob PLAYER [CARD]          Julepe: the dealer takes the trump card and discards CARD
terzo PLAYER               5-card Italian, first turn: "terzo se devo"
buco PLAYER                col buco: play with the spare hand
doctor PLAYER              3-card: a player who passed takes three new cards
decline PLAYER             3-card: ...or refuses them and is out
play PLAYER CARD           a card to the trick (KS, K♠, "king of spades", "re di coppe")
seen PLAYER CARD [CARD...] cards seen in a player's hand (the referee learns them)"""

_VERBS = {
    "trump": "trump",
    "briscola": "trump",
    "turn": "trump",
    "knock": "knock",
    "busso": "knock",
    "bussa": "knock",
    "tap": "knock",
    "tippe": "knock",
    "pass": "pass",
    "passo": "pass",
    "fold": "pass",
    "vado": "pass",
    "gioco": "gioco",
    "exchange": "gioco",
    "cambio": "gioco",
    "change": "gioco",
    "rob": "rob",
    "roba": "rob",
    "robo": "rob",
    "join": "knock",
    "play!": "knock",
    "mauschel": "knock",
    "terzo": "terzo",
    "buco": "buco",
    "doctor": "doctor",
    "dottore": "doctor",
    "new": "doctor",
    "decline": "decline",
    "refuse": "decline",
    "out": "decline",
    "play": "play",
    "gioca": "play",
    "p": "play",
    "seen": "seen",
    "show": "seen",
    "visto": "seen",
}


class BestiaEngine:
    name = "bestia"
    version = "1.1"
    codec = CODEC
    lead_calls: tuple[str, ...] = ()  # a Bestia play carries no announcement

    def new_game(self, setup: Mapping[str, Any]) -> BestiaState:
        return BestiaState(setup)

    def command_help(self) -> str:
        return HELP

    def parse_command(self, state: GameState, text: str) -> Action:
        verb, words = split_command(text, _VERBS, HELP)
        s = own_state(state, BestiaState)
        deck = s.variant.deck
        if verb == "trump":
            return TurnTrump(parse_card(deck, words[1:]))
        if len(words) < 2:
            raise MalformedAction(f"{verb}: whose?", hint=_hint(verb))
        player = player_named(s.players, words[1])
        rest = words[2:]
        simple: dict[str, type[Knock | Pass | Terzo | Buco]] = {
            "knock": Knock,
            "pass": Pass,
            "terzo": Terzo,
            "buco": Buco,
        }
        if verb in simple:
            return simple[verb](player)
        if verb == "doctor":
            return Doctor(player, True)
        if verb == "decline":
            return Doctor(player, False)
        if verb == "seen":
            if not rest:
                raise MalformedAction("seen: which cards?", hint=_hint("seen"))
            return Show(player, tuple(parse_cards(deck, rest, _hint("gioco"))))
        if verb == "rob":
            return Rob(player, parse_card(deck, rest) if rest else None)
        if verb == "gioco":
            if len(rest) == 1 and rest[0].isdigit():
                return Gioco(player, (), int(rest[0]))
            return Gioco(player, tuple(parse_cards(deck, rest, _hint("gioco"))))
        return Play(player, parse_card(deck, rest))

    def render(self, state: GameState) -> str:
        """The table as everyone at it may see it (no hand)."""
        return self.render_for(state, PUBLIC)

    # -- who sees what (referee.secrecy) ---------------------------------------------------
    def view_for(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        return trick_view_for(own_state(state, BestiaState), viewer)

    def public_setup(self, setup: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        return trick_public_setup(setup, viewer)

    def public_action(self, action: Mapping[str, Any], viewer: Viewer) -> tuple[dict[str, Any], list[str]]:
        """The cards discarded in an exchange (and the dealer's discard when robbing) go face
        down: only their player sees them; an exchange shows how many."""
        out = dict(action)
        if viewer.sees_player(action.get("player")):
            return out, []
        if action.get("kind") == "gioco" and action.get("discards"):
            out["discards"] = []
            out["count"] = len(action["discards"])
            return out, ["discards"]
        if action.get("kind") == "rob" and action.get("discard") is not None:
            out["discard"] = None
            return out, ["discard"]
        return out, []

    def public_event(self, event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        return dict(event)  # the events name only cards played, shown or turned up

    def render_for(self, state: GameState, viewer: Viewer) -> str:
        s = own_state(state, BestiaState)
        deck = s.variant.deck
        style: Language = "symbol" if deck.style == "french" else "it"
        lines = [
            f"{s.variant.title}, deal {s.deal_no + 1}, dealer {s.dealer}; pot {s.pot}"
            + (
                f"; trumps {deck.name_of(s.trump_card, style)} ({deck.suit_name(s.trump)})"
                if s.trump_card and s.trump
                else ""
            )
        ]
        lines.append("chips: " + ", ".join(f"{p} {n}" for p, n in s.stacks.items()))
        if s.is_over and s.result is not None:
            r = s.result
            lines.append(
                "GAME OVER after {} deals: ".format(r["deals"])
                + ", ".join(f"{p} {g:+d}" for p, g in r["gained"].items())
                + f"; pot left {r['pot_left']}; "
                f"winner(s): {', '.join(r['winners'])}"
            )
            return "\n".join(lines)
        lines.append(
            "said: " + ", ".join(f"{p} {'/'.join(w)}" for p, w in s.said.items() if w)
            if any(s.said.values())
            else "nobody has spoken"
        )
        if s.busser:
            role = "Mauschler" if s.variant.bidding == "mauscheln" else "busser"
            lines.append(f"{role}: {s.busser}")
        if s.phase == "trump":
            lines.append("waiting for the trump card: trump CARD")
        elif s.phase in ("speak", "doctor", "exchange"):
            what = {
                "speak": "joins or passes" if s.joining else "speaks",
                "doctor": "is offered new cards",
                "exchange": "takes the trump card (rob)"
                if s.rob_pending and s.queue[0] == s.dealer
                else "may change cards",
            }[s.phase]
            lines.append(f"{s.queue[0]} {what}" + (f" (round {s.round_no})" if s.round_no > 1 else ""))
        elif s.phase == "play":
            table = ", ".join(f"{p} {deck.name_of(c, style)}" for p, c in s.trick) or "(empty)"
            lines.append(f"trick {s.trick_no + 1}/{s.variant.tricks}: {table}; {s.turn} to play")
            lines.append("tricks: " + ", ".join(f"{p} {s.tricks_won[p]}" for p in s.in_players()))
            if s.holdings.full and s.turn is not None and viewer.everything:
                lines.append(f"{s.turn} holds: " + " ".join(deck.name_of(c, style) for c in s.holdings.hands[s.turn]))
        if s.history:
            h = s.history[-1]
            lines.append("last deal: " + say_event(self, {"kind": "settled", **h}, state=s))
        for off in s.offences:
            lines.append("offence: " + say_event(self, {"kind": "offence_revealed", **off}, state=s))
        if s.holdings.full and viewer.player is not None and viewer.player in s.holdings.hands:
            cards = " ".join(deck.name_of(c, style) for c in s.holdings.hands[viewer.player]) or "-"
            lines.append(f"{viewer.player} holds: {cards}")
        return "\n".join(lines)


def _hint(verb: str) -> str:
    return help_line(HELP, verb)


ENGINE = BestiaEngine()
_CONTRACT: TableEngine = ENGINE  # mypy checks here that the engine meets the table's contract
_DISCREET: Discreet = ENGINE  # ...and that it says what each viewer may see
