"""The scorekeeper's side of the Beccato! engine: typed lines to actions, the table as text.

A misspelt command or pyramid place is refused here with "did you mean" (`referee.voice.suggest`).
Names the line carries (players, teams, cards, eggs, egg sources) go to the state as typed: the
state refuses an unknown one by name (PlayerNotInGame, CardNotInDeck, ...) with the choices in
its details, and `referee.voice.say_error` says the nearest one and lists them."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from referee.beccato import actions as A
from referee.beccato.cards import fold
from referee.beccato.scoring import PLACES
from referee.beccato.state import BeccatoState
from referee.core import Action, MalformedAction
from referee.secrecy import PUBLIC, Viewer
from referee.voice import suggest, waiting_phrase

HELP = """\
coccode PLAYER [BREED]          Coccodé (also coccodé, coccodè); BREED under Calling Chickens
caught PLAYER TARGET            Caught! (also beccato): PLAYER points at TARGET
chicchirichi PLAYER             Chicchirichì: PLAYER claims four Serama
reveal PLAYER CARD CARD CARD [CARD]   PLAYER shows their hand (e.g. reveal Claudia orloff orloff orloff serama)
seen PLAYER CARD [CARD...]      cards seen in PLAYER's hand during play (the referee learns them)
pass PLAYER [CARD]              PLAYER passes a card on (name it when seen; required in a simulated game)
pile [CARD]                     five players: the card drawn from the imaginary seat
egg EGG                         the egg turned up from the deck (e.g. egg star-3; also: egg deck star-3)
take TEAM SOURCE                TEAM takes its egg from a henhouse (its breed), the deck, or the chick
place TEAM EGG PLACE            Egg Pyramid: PLACE is b1 b2 b3 (base), m1 m2 (middle) or top
signal TEAM EGG [SIGNAL]        Signal Change: TEAM turns EGG face down (SIGNAL: a Signal card id)
(TEAM may also be given as one of its players.)"""

USAGE = {line.split()[0]: line.split("  ")[0].strip() for line in HELP.splitlines() if not line.startswith("(")}

VERBS = {
    "coccode": "coccode",
    "caught": "caught",
    "beccato": "caught",
    "catch": "caught",
    "chicchirichi": "chicchirichi",
    "reveal": "reveal",
    "seen": "seen",
    "pass": "pass",
    "pile": "pile",
    "egg": "egg",
    "draw": "egg",
    "take": "take",
    "place": "place",
    "signal": "signal",
}
PLACE_ALIASES = {"t": "top", "base1": "b1", "base2": "b2", "base3": "b3", "middle1": "m1", "middle2": "m2"}


def parse_command(state: BeccatoState, text: str) -> Action:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise MalformedAction(f"cannot read {text!r}: {exc}", hint="quote names with spaces") from None
    if not words:
        raise MalformedAction("an empty line", hint=HELP)
    verb = VERBS.get(fold(words[0]).rstrip("!"))
    if verb is None:
        mean = suggest(fold(words[0]).rstrip("!"), VERBS)
        raise MalformedAction(f"unknown command {words[0]!r}" + (f"; {mean}" if mean else ""), hint=HELP)
    args = words[1:]
    return _PARSERS[verb](state, verb, args)


def _usage(verb: str, args: list[str], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise MalformedAction(f"{verb} takes {low}-{high} words, got {len(args)}", hint=f"usage: {USAGE[verb]}")


def _player(state: BeccatoState, name: str) -> str:
    for p in state.table.players:
        if fold(p) == fold(name):
            return p
    return name  # the state names the unknown player (and `referee.voice.say_error` the nearest)


def _team(state: BeccatoState, name: str) -> str:
    for t in state.table.teams:
        if fold(t) == fold(name):
            return t
    player = _player(state, name)
    if player in state.table.players:
        return state.table.team_of(player)
    return name


def _coccode(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("coccode", args, 1, 2)
    return A.Coccode(_player(state, args[0]), args[1] if len(args) > 1 else None)


def _caught(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("caught", args, 2, 2)
    return A.Caught(_player(state, args[0]), _player(state, args[1]))


def _chicchirichi(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("chicchirichi", args, 1, 1)
    return A.Chicchirichi(_player(state, args[0]))


def _reveal(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("reveal", args, 2, 6)
    return A.Reveal(_player(state, args[0]), tuple(args[1:]))


def _seen(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("seen", args, 2, 5)
    return A.ShowCards(_player(state, args[0]), tuple(args[1:]))


def _pass(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("pass", args, 1, 2)
    return A.Pass(_player(state, args[0]), args[1] if len(args) > 1 else None)


def _pile(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("pile", args, 0, 1)
    return A.DrawFromPile(args[0] if args else None)


def _egg(state: BeccatoState, verb: str, args: list[str]) -> Action:
    if args and fold(args[0]) in ("deck", "top"):
        args = args[1:]
    _usage("egg", args, 1, 1)
    return A.DrawEgg(args[0])


def _take(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("take", args, 2, 2)
    return A.TakeEgg(_team(state, args[0]), args[1])


def _place(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("place", args, 3, 3)
    place = PLACE_ALIASES.get(fold(args[2]), fold(args[2]))
    if place not in PLACES:
        mean = suggest(place, [*PLACES, *PLACE_ALIASES])
        raise MalformedAction(
            f"no pyramid place {args[2]!r}" + (f"; {mean}" if mean else ""),
            hint="the places are b1 b2 b3 (base), m1 m2 (middle), top",
        )
    return A.PlaceEgg(_team(state, args[0]), args[1], place)


def _signal(state: BeccatoState, verb: str, args: list[str]) -> Action:
    _usage("signal", args, 2, 3)
    return A.ChangeSignal(_team(state, args[0]), args[1], args[2] if len(args) > 2 else None)


_PARSERS: dict[str, Callable[[BeccatoState, str, list[str]], Action]] = {
    "coccode": _coccode,
    "caught": _caught,
    "chicchirichi": _chicchirichi,
    "reveal": _reveal,
    "seen": _seen,
    "pass": _pass,
    "pile": _pile,
    "egg": _egg,
    "take": _take,
    "place": _place,
    "signal": _signal,
}


def render(state: BeccatoState, viewer: Viewer = PUBLIC) -> str:
    """The table as `viewer` may see it: the public view shows no hand and no signal; a
    player's view adds their own hand and their team's signal, a team's view its signal, the
    full record ("all") every signal and every hand the referee knows."""
    t = state.table
    lines = [
        f"Beccato!  round {state.round}  dealer {state.dealer}  passing {t.options['pass_direction']}"
        f"  ({'full' if t.full else 'partial'} knowledge)",
        "henhouses: " + "  ".join(f"{b} [{egg or '-'}]" for b, egg in state.henhouses.items()),
        f"egg deck: {len(state.deck)} left" + ("   chick: on the table" if state.chick_available else ""),
    ]
    scores = state.scores()
    for team, members in t.teams.items():
        entries = state.collections[team]
        eggs = (
            ", ".join(
                e["egg"] + ("" if e["face_up"] else " (down)") + (f"@{e['place']}" if e["place"] else "")
                for e in entries
            )
            or "-"
        )
        score = scores[team]
        lines.append(
            f"  {team} ({t.guilds[team]}): {', '.join(members)} | eggs {len(entries)}: {eggs} | "
            f"points {score['points']}" + (" (excluded)" if score["excluded"] else "")
        )
    result = state.result
    if result is not None:
        who = " and ".join(result["winners"]) or "nobody"
        lines.append(f"GAME OVER ({result['reason']}): {'shared win: ' if result['shared'] else 'winner: '}{who}")
    else:
        lines.append("waiting for: " + waiting_phrase("beccato", state, viewer))
    for team, signal in state.signals.items():
        if viewer.sees_team(team):
            lines.append(f"  signal of {team}: {signal or '(not told to the referee)'}")
    for seat in t.ring:
        if viewer.sees_player(seat):
            cards = " ".join(sorted(state.hands.get(seat) or [])) or "-"
            lines.append(f"  {seat} holds: {cards}" if t.full else f"  {seat} is known to hold: {cards}")
    return "\n".join(lines)


def command_help() -> str:
    return HELP
