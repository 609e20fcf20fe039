"""The Bestia engine object: makes states, reads scorekeeper lines, renders the table."""

from __future__ import annotations

from typing import Any, Mapping

from referee.core import MalformedAction
from referee.tricks import CardNotInDeck
from referee.bestia.actions import CODEC, Buco, Doctor, Gioco, Knock, Pass, Play, Rob, Show, Terzo, TurnTrump
from referee.bestia.game import BestiaState

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
    "trump": "trump", "briscola": "trump", "turn": "trump",
    "knock": "knock", "busso": "knock", "bussa": "knock", "tap": "knock", "tippe": "knock",
    "pass": "pass", "passo": "pass", "fold": "pass", "vado": "pass",
    "gioco": "gioco", "exchange": "gioco", "cambio": "gioco", "change": "gioco",
    "rob": "rob", "roba": "rob", "robo": "rob",
    "join": "knock", "play!": "knock", "mauschel": "knock",
    "terzo": "terzo",
    "buco": "buco",
    "doctor": "doctor", "dottore": "doctor", "new": "doctor",
    "decline": "decline", "refuse": "decline", "out": "decline",
    "play": "play", "gioca": "play", "p": "play",
    "seen": "seen", "show": "seen", "visto": "seen",
}


class BestiaEngine:
    name = "bestia"
    version = "1.0"
    codec = CODEC

    def new_game(self, setup: Mapping[str, Any]) -> BestiaState:
        return BestiaState(setup)

    def command_help(self) -> str:
        return HELP

    def parse_command(self, state: BestiaState, text: str):
        words = text.split()
        if not words:
            raise MalformedAction("an empty line", hint=HELP)
        verb = _VERBS.get(words[0].lower())
        if verb is None:
            raise MalformedAction(f"unknown command {words[0]!r}", hint=HELP)
        deck = state.variant.deck
        if verb == "trump":
            return TurnTrump(_card(deck, words[1:]))
        if len(words) < 2:
            raise MalformedAction(f"{verb}: whose?", hint=_hint(verb))
        player = _player(state, words[1])
        rest = words[2:]
        simple = {"knock": Knock, "pass": Pass, "terzo": Terzo, "buco": Buco}
        if verb in simple:
            return simple[verb](player)
        if verb == "doctor":
            return Doctor(player, True)
        if verb == "decline":
            return Doctor(player, False)
        if verb == "seen":
            if not rest:
                raise MalformedAction("seen: which cards?", hint=_hint("seen"))
            return Show(player, tuple(_cards(deck, rest)))
        if verb == "rob":
            return Rob(player, _card(deck, rest) if rest else None)
        if verb == "gioco":
            if len(rest) == 1 and rest[0].isdigit():
                return Gioco(player, (), int(rest[0]))
            return Gioco(player, tuple(_cards(deck, rest)))
        return Play(player, _card(deck, rest))

    def render(self, state: BestiaState) -> str:
        s = state
        deck = s.variant.deck
        style = "symbol" if deck.style == "french" else "it"
        lines = [f"{s.variant.title}, deal {s.deal_no + 1}, dealer {s.dealer}; pot {s.pot}"
                 + (f"; trumps {deck.name_of(s.trump_card, style)} "
                    f"({deck.suit_name(s.trump)})" if s.trump_card else "")]
        lines.append("chips: " + ", ".join(f"{p} {n}" for p, n in s.stacks.items()))
        if s.is_over:
            r = s.result
            lines.append("GAME OVER after {} deals: ".format(r["deals"]) + ", ".join(
                f"{p} {g:+d}" for p, g in r["gained"].items()) + f"; pot left {r['pot_left']}; "
                f"winner(s): {', '.join(r['winners'])}")
            return "\n".join(lines)
        lines.append("said: " + ", ".join(f"{p} {'/'.join(w)}" for p, w in s.said.items() if w)
                     if any(s.said.values()) else "nobody has spoken")
        if s.busser:
            role = "Mauschler" if s.variant.bidding == "mauscheln" else "busser"
            lines.append(f"{role}: {s.busser}")
        if s.phase == "trump":
            lines.append("waiting for the trump card: trump CARD")
        elif s.phase in ("speak", "doctor", "exchange"):
            what = {"speak": "joins or passes" if s.joining else "speaks",
                    "doctor": "is offered new cards",
                    "exchange": "takes the trump card (rob)" if s.rob_pending
                    and s.queue[0] == s.dealer else "may change cards"}[s.phase]
            lines.append(f"{s.queue[0]} {what}" + (f" (round {s.round_no})"
                                                   if s.round_no > 1 else ""))
        elif s.phase == "play":
            table = ", ".join(f"{p} {deck.name_of(c, style)}" for p, c in s.trick) or "(empty)"
            lines.append(f"trick {s.trick_no + 1}/{s.variant.tricks}: {table}; {s.turn} to play")
            lines.append("tricks: " + ", ".join(f"{p} {s.tricks_won[p]}" for p in s.in_players()))
            if s.holdings.full:
                lines.append(f"{s.turn} holds: " + " ".join(
                    deck.name_of(c, style) for c in s.holdings.hand(s.turn)))
        if s.history:
            h = s.history[-1]
            lines.append(f"last deal: pot {h['pot']}, won {h['won']}, bestia {h['bestia']}, "
                         f"paid {h['paid']}, next pot {h['next_pot']}")
        for off in s.offences:
            lines.append(f"offence: {off['player']} {off['offence']} in trick {off['trick']}")
        return "\n".join(lines)


def _card(deck, words: list[str]) -> str:
    if not words:
        raise MalformedAction("which card?", hint=deck.example())
    try:
        return deck.parse(" ".join(words))
    except CardNotInDeck as exc:
        raise MalformedAction(exc.message, hint=deck.example()) from None


def _cards(deck, words: list[str]) -> list[str]:
    """Several cards: "3D RC", "3 di denari re di coppe", "K♠ 4♥"."""
    out, i = [], 0
    while i < len(words):
        take = 3 if i + 2 < len(words) and words[i + 1].lower() in ("di", "of") else 1
        try:
            out.append(deck.parse(" ".join(words[i:i + take])))
        except CardNotInDeck as exc:
            raise MalformedAction(exc.message, hint=_hint("gioco")) from None
        i += take
    return out


def _player(state: BestiaState, word: str) -> str:
    for p in state.players:
        if p.lower() == word.lower():
            return p
    return word


def _hint(verb: str) -> str:
    return next((line for line in HELP.splitlines() if line.startswith(verb)), HELP)


ENGINE = BestiaEngine()
