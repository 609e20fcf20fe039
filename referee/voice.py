"""One voice for the referee: everything a player reads, in plain words.

The terminal scorekeeper (`referee play`), the web server and the dispute packages all say what
happened through this module, never through a `repr` or a dict dump:

* `say_events(engine, events, viewer)`: one sentence per event ("Carla shows three Orloff.",
  "Carla's Coccodé is right (three Orloff): the Dollars win an egg."), after
  `referee.secrecy.public_events` has taken out what `viewer` may not see;
* `say_action(engine, action, viewer)`: an action in words ("Anna passes a card on (face
  down).");
* `say_error(error)`: a refusal in words with its hint; the error's name stays in
  `error.name` (and `rule_in_words(error)` says it in words);
* `say_question(...)`: the table session's one-tap questions;
* `say_waiting(engine, state, viewer)`: what the referee waits for, with the command to type;
* `say_standings(engine, state, viewer)`: points, eggs (the Egg Pyramid worked out), Beccaccino
  points in thirds, Bestia chips and the pot;
* `suggest(word, choices)`: "did you mean ...?" for a misspelt command, name or card.

Pure: the standard library and the referee's own modules. The games' own names (breeds, eggs,
Guilds, the pyramid's rows) are read from their modules when a sentence needs them: those
packages import this module for `suggest`, so they are imported in the functions that use them.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from referee.core import Action, Engine, RefereeError
from referee.secrecy import PUBLIC, Viewer, public_action, public_events
from referee.signal_cards import BY_ID as SIGNAL_CARDS
from referee.tricks.cards import DECKS, ITALIAN_40, Deck

__all__ = [
    "say_events",
    "say_event",
    "say_action",
    "say_error",
    "say_question",
    "say_waiting",
    "say_standings",
    "waiting_phrase",
    "say_error_parts",
    "suggest",
    "closest",
    "rule_in_words",
    "and_list",
    "or_list",
]

Data = Mapping[str, Any]

# -- small words --------------------------------------------------------------------------

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def and_list(items: Iterable[Any], word: str = "and") -> str:
    """'Anna', 'Anna and Ben', 'Anna, Ben and Carla'."""
    names = [str(i) for i in items]
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" {word} " + names[-1]


def or_list(items: Iterable[Any]) -> str:
    return and_list(items, "or")


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _counted(n: int, one: str, many: str | None = None) -> str:
    """'one card', 'three cards': a small count in words."""
    return f"{number_word(n)} {one if n == 1 else (many or one + 's')}"


def _sentence(text: str) -> str:
    """A sentence: a capital letter first, a full stop (or ! ?) last."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _flat(value: Any) -> str:
    """Any JSON value in words, for a detail the sentences below do not know (no braces)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_flat(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_flat(v) for v in value) or "none"
    return str(value)


def _words_of(name: str) -> str:
    """'NotYourTurn' -> 'not your turn'; 'call_resolved' -> 'call resolved'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ")
    return spaced.lower().strip()


def _signed(n: int) -> str:
    return f"{n:+d}"


# -- did you mean -------------------------------------------------------------------------


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def closest(word: str, choices: Iterable[str], cutoff: float = 0.65) -> str | None:
    """The choice nearest to a misspelt `word` (case and accents ignored), or None."""
    options = [str(c) for c in choices]
    folded = {_fold(c): c for c in options}
    key = _fold(word)
    if not key:
        return None
    if key in folded:
        return folded[key]
    match = difflib.get_close_matches(key, list(folded), n=1, cutoff=cutoff)
    if match:
        return folded[match[0]]
    # a prefix typed short ("coc" for coccode) names one choice only when it fits one only
    starts = [c for f, c in folded.items() if len(key) >= 3 and f.startswith(key)]
    return starts[0] if len(starts) == 1 else None


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """'did you mean coccode?' for a misspelt word, or None when nothing is close."""
    match = closest(word, choices)
    if match is None or _fold(match) == _fold(word):
        return None
    return f"did you mean {match}?"


# -- cards, teams, eggs ---------------------------------------------------------------------

_BREED_WORDS = {"padovana": "Padovana", "cocincina": "Cocincina"}


def breed(name: str) -> str:
    """A chicken card or henhouse in words: 'orloff' -> 'Orloff'."""
    return _BREED_WORDS.get(name, name[:1].upper() + name[1:]) if name else "a card"


def chickens(cards: Sequence[str]) -> str:
    """Chicken cards counted: 'three Orloff', 'two Livornese and one Cocincina'."""
    if not cards:
        return "no card"
    counts = Counter(cards)
    order = sorted(counts, key=lambda c: (-counts[c], c))
    return and_list(f"{number_word(counts[c])} {breed(c)}" for c in order)


_GUILD_TEAMS = {"dollar": "the Dollars", "star": "the Stars", "moon": "the Moons", "sun": "the Suns"}


def team(name: Any) -> str:
    """A team as the table calls it: a Guild's name ('dollar') as 'the Dollars', a trick game's
    pair ('Anna+Carla') as 'Anna & Carla', any other name as given."""
    text = str(name)
    if text in _GUILD_TEAMS:
        return _GUILD_TEAMS[text]
    return text.replace("+", " & ")


def _team_called(name: Any) -> str:
    """A team after "for": 'the Stars', 'team Blues'."""
    said = team(name)
    return f"team {said}" if said == str(name) else said


def egg(name: Any) -> str:
    text = str(name)
    return "the Chick" if text == "chick" else f"egg {text}"


_PLACES = {
    "b1": "the base, left (b1)",
    "b2": "the base, middle (b2)",
    "b3": "the base, right (b3)",
    "m1": "the middle row, left (m1)",
    "m2": "the middle row, right (m2)",
    "top": "the top",
}


def place(name: Any) -> str:
    return _PLACES.get(str(name), str(name))


def _seat(name: Any) -> str:
    return "the imaginary seat" if name == "?" else str(name)


_CALL_NAMES = {"coccode": "Coccodé", "caught": "Caught!", "chicchirichi": "Chicchirichì"}


def _call_name(call: Any) -> str:
    return _CALL_NAMES.get(str(call), str(call))


def _deck_of(engine: Engine | None, state: Any = None, cards: Iterable[str] = ()) -> Deck | None:
    """The deck a trick game's cards are named from: the state's, the engine's, or the one
    the codes themselves point to (a French rank or the hearts: French; F, C or R as a rank
    or the bastoni: Italian)."""
    for holder in (state, engine):
        deck = getattr(holder, "deck", None)
        if isinstance(deck, Deck):
            return deck
    codes = [c for c in cards if isinstance(c, str) and len(c) >= 2]
    if any(c[-1] == "H" or c[:-1] in ("J", "Q", "K", "8", "9", "10") for c in codes):
        return DECKS["french-52"]
    if any(c[-1] == "B" or c[:-1] in ("F", "C", "R") for c in codes):
        return ITALIAN_40
    return None


class _Words:
    """How one game's things are said: its cards (from the deck in play)."""

    def __init__(self, engine: Engine | None, state: Any, cards: Iterable[str] = ()) -> None:
        self.engine = engine
        self.deck = _deck_of(engine, state, cards)

    def card(self, code: Any) -> str:
        text = str(code)
        deck = self.deck
        if deck is None or text not in deck:
            return text
        if deck.style == "french":
            return deck.name_of(text, "symbol")
        return deck.name_of(text)

    def cards(self, codes: Iterable[Any]) -> str:
        return and_list(self.card(c) for c in codes)

    def suit(self, suit: Any) -> str:
        deck = self.deck
        text = str(suit)
        if deck is None or text not in deck.suits:
            return text
        if deck.style == "french":
            return f"{deck.suit_name(text, 'en')} ({deck.suit_name(text, 'symbol')})"
        return deck.suit_name(text)


def _codes_in(events: Iterable[Data]) -> list[str]:
    out: list[str] = []
    for e in events:
        for key in ("card", "trump_card", "revealed_by"):
            if isinstance(e.get(key), str):
                out.append(e[key])
        for key in ("cards", "discards"):
            if isinstance(e.get(key), (list, tuple)):
                out += [c for c in e[key] if isinstance(c, str)]
    return out


def _game(engine: Engine | str | None) -> str:
    """The game's name: an engine's, or the name itself (a game's own module names it)."""
    if isinstance(engine, str):
        return engine
    return str(getattr(engine, "name", "") or "")


# -- events ---------------------------------------------------------------------------------

EventSayer = Callable[[Data, _Words], str]


def say_events(
    engine: Engine | None,
    events: Sequence[Data],
    viewer: Viewer = PUBLIC,
    *,
    state: Any = None,
) -> list[str]:
    """One sentence per event, as `viewer` may see them (`referee.secrecy.public_events`
    first: a card passed face down is never named to the public). `state` (optional) names the
    deck a Bestia game is played with; without it the cards' codes say."""
    shown = public_events(engine, [dict(e) for e in events], viewer)
    words = _Words(engine, state, _codes_in(shown))
    return [say_event(engine, e, words=words) for e in shown]


def say_event(engine: Engine | None, event: Data, *, words: _Words | None = None, state: Any = None) -> str:
    """One event (already as its viewer may see it) in one sentence."""
    words = words or _Words(engine, state, _codes_in([event]))
    kind = str(event.get("kind", ""))
    game = _game(engine)
    sayer = _SAYERS.get((game, kind)) or _SAYERS.get(("", kind))
    try:
        text = sayer(event, words) if sayer else _generic(event)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        text = _generic(event)  # an event of an older engine lacking a field still reads
    return _sentence(text)


def _generic(event: Data) -> str:
    kind = _words_of(str(event.get("kind") or "something happened"))
    details = "; ".join(f"{_words_of(str(k))} {_flat(v)}" for k, v in event.items() if k != "kind" and v is not None)
    return f"{kind}: {details}" if details else kind


# the scorekeeper's corrections


def _undone(e: Data, w: _Words) -> str:
    return f"entry #{e['entry']} is undone: the game goes on as if it had not happened"


def _amended(e: Data, w: _Words) -> str:
    return f"entry #{e['entry']} is corrected: the game goes on from the corrected action"


# Beccato!


def _b_passed(e: Data, w: _Words) -> str:
    card = e.get("card")
    what = f"one {breed(card)}" if card else "a card"
    if e.get("seat") == "?":
        return f"{_seat(e['to'])} draws {what} from the imaginary seat"
    hidden = "" if card else " (face down)"
    return f"{_seat(e['seat'])} passes {what} to {_seat(e['to'])}{hidden}"


def _b_call(e: Data, w: _Words) -> str:
    call, caller = e["call"], e["caller"]
    show = list(e.get("to_reveal") or [])
    if call == "coccode":
        head = f"{caller} calls Coccodé" + (f" for {breed(e['breed'])}" if e.get("breed") else "")
    elif call == "caught":
        head = f"{caller} calls Caught! on {e.get('target')}"
    else:
        head = f"{caller} calls Chicchirichì (four Serama)"
    if not show:
        return head
    if show == [caller]:
        return f"{head} and shows their hand"
    verb = "shows their hand" if len(show) == 1 else "show their hands"
    return f"{head}: {and_list(show)} {verb}"


def _b_revealed(e: Data, w: _Words) -> str:
    return f"{e['player']} shows {chickens(e.get('cards') or [])}"


def _b_cards_seen(e: Data, w: _Words) -> str:
    return f"seen in {e['player']}'s hand: {chickens(e.get('cards') or [])}"


def _b_reason(reason: str) -> str:
    """The engine's reason for a call's verdict in words ('triple of orloff' -> 'three Orloff')."""
    m = re.fullmatch(r"triple of (.+)", reason)
    if m:
        return or_list(f"three {breed(b.strip())}" for b in m.group(1).split(","))
    m = re.fullmatch(r"no triple(?: of (.+))?", reason)
    if m:
        return f"nobody shows three {breed(m.group(1))}" if m.group(1) else "nobody shows three of a breed"
    m = re.fullmatch(r"(.+) held (.+) x3", reason)
    if m:
        return f"{m.group(1)} held three {breed(m.group(2))}"
    m = re.fullmatch(r"(.+) held no triple", reason)
    if m:
        return f"{m.group(1)} held no three of a breed"
    return reason


def _b_call_resolved(e: Data, w: _Words) -> str:
    call = f"{e['caller']}'s {_call_name(e['call'])}"
    teams = [team(t) for t in e.get("awarded_to") or []]
    reason = _b_reason(str(e.get("reason") or ""))
    if e.get("correct"):
        return f"{call} is right ({reason}): {and_list(teams)} win an egg"
    if len(teams) > 1:
        return f"{call} is wrong ({reason}): {and_list(teams)} each get an egg from the deck"
    return f"{call} is wrong ({reason}): {and_list(teams)} get an egg from the deck"


def _b_egg_awarded(e: Data, w: _Words) -> str:
    source = str(e.get("source") or "")
    who = team(e["team"])
    if source == "chick":
        return f"{who} take the Chick: it crowns the top of their pyramid"
    if source.startswith("henhouse "):
        return f"{who} take {egg(e['egg'])} from the {breed(source.removeprefix('henhouse '))} henhouse"
    return f"{who} get {egg(e['egg'])} from the top of the egg deck"


def _b_egg_placed(e: Data, w: _Words) -> str:
    return f"{team(e['team'])} place {egg(e['egg'])} in their pyramid at {place(e['place'])}"


def _b_henhouse_filled(e: Data, w: _Words) -> str:
    return f"{egg(e['egg'])} is turned up from the deck onto the {breed(e['breed'])} henhouse"


def _b_signal_changed(e: Data, w: _Words) -> str:
    told = "" if e.get("known") else " (they keep the new one from the referee)"
    return f"{team(e['team'])} turn {egg(e['egg'])} face down and take a new secret signal{told}"


def _b_no_egg_left(e: Data, w: _Words) -> str:
    return f"no egg is left for {team(e['team'])} anywhere: the game ends (B9)"


def _b_round_started(e: Data, w: _Words) -> str:
    return f"round {e['round']}: {e['dealer']} deals"


def _b_game_over(e: Data, w: _Words) -> str:
    scores: Mapping[str, Any] = e.get("scores") or {}
    winners = list(e.get("winners") or [])
    reason = str(e.get("reason") or "")
    m = re.fullmatch(r"(.+) reached (\d+) eggs", reason)
    if m:
        reason = f"{and_list(team(t) for t in m.group(1).split(', '))} reached {m.group(2)} eggs"
    reason = reason.replace(" (B9)", "")

    def points(t: str) -> str:
        s = scores.get(t) or {}
        out = _plural(int(s.get("points", 0)), "point")
        return out + (" (excluded: their pyramid could not be filled)" if s.get("excluded") else "")

    if not winners:
        verdict = "nobody wins"
    elif len(winners) == 1:
        verdict = f"{team(winners[0])} win with {points(winners[0])}"
    else:
        verdict = f"{and_list(team(t) for t in winners)} share the win with {points(winners[0])}"
    others = [f"{team(t)} {points(t)}" for t in scores if t not in winners]
    return f"game over: {reason}. {_sentence(verdict)[:-1]}" + (f" ({'; '.join(others)})" if others else "")


# the trick games


def _t_seen(e: Data, w: _Words) -> str:
    return f"seen in {e['player']}'s hand: {w.cards(e.get('cards') or [])}"


def _t_played(e: Data, w: _Words) -> str:
    text = f"{e['player']} plays {w.card(e['card'])}"
    call = e.get("call")
    if call:
        text += f" and says {_LEAD_CALLS.get(str(call), str(call))}"
    return text


_LEAD_CALLS = {"busso": "Busso (knock)", "volo": "Volo (fly)", "striscio": "Striscio (slide)"}


def thirds(n: int) -> str:
    """Beccaccino points counted in thirds: 7 -> '2 1/3 points'."""
    whole, part = divmod(int(n), 3)
    if not part:
        return _plural(whole, "point")
    if not whole:
        return f"{part}/3 of a point"
    return f"{whole} {part}/3 points"


def _c_trump_declared(e: Data, w: _Words) -> str:
    return f"hand {e['hand']}: {e['player']} names {w.suit(e['trump'])} as trumps"


def _c_looked(e: Data, w: _Words) -> str:
    return f"{e['player']} looked at their cards before the trump was named"


def _c_foul(e: Data, w: _Words) -> str:
    message = str(e.get("message") or _words_of(str(e.get("foul", ""))))
    card = e.get("card")
    if isinstance(card, str) and w.deck is not None and card in w.deck:
        message = re.sub(rf"\b{re.escape(card)}\b", w.card(card), message)
    return f"foul by {e['player']}: {message}"


def _c_trick_won(e: Data, w: _Words) -> str:
    last = ", the last one" if e.get("last") else ""
    worth = thirds(int(e.get("thirds", 0)))
    return f"{e['winner']} takes trick {e['trick']}{last}: {worth} for {team(e['team'])}"


def _c_hand_scored(e: Data, w: _Words) -> str:
    points: Mapping[str, int] = e.get("points") or {}
    bonus: Mapping[str, int] = e.get("marafona") or {}
    scores: Mapping[str, int] = e.get("scores") or {}
    gained = ", ".join(
        f"{team(t)} {_plural(int(p), 'point')}" + (f" (+{bonus[t]} Marafona)" if bonus.get(t) else "")
        for t, p in points.items()
    )
    calls: Mapping[str, Any] = e.get("calls") or {}
    said = [
        f"{p}'s {c.get('call')} was {'true' if c.get('true') else 'false'}"
        for p, c in calls.items()
        if isinstance(c, Mapping) and c.get("true") is not None
    ]
    total = " to ".join(f"{team(t)} {s}" for t, s in scores.items())
    text = f"hand {e['hand']} is scored: {gained}; the score is {total}"
    return text + (f" ({'; '.join(said)})" if said else "")


def _c_new_hand(e: Data, w: _Words) -> str:
    names = e.get("battezzante")
    who = f"{names} names the trump" if names else "the holder of the 4 di denari names the trump"
    return f"hand {e['hand']}: {e['dealer']} deals, {who}"


def _c_game_over(e: Data, w: _Words) -> str:
    scores: Mapping[str, int] = e.get("scores") or {}
    total = " to ".join(f"{team(t)} {s}" for t, s in scores.items())
    winner = team(e.get("winner"))
    reason = e.get("reason")
    if reason == "target":
        return f"game over: {winner} win, {total}"
    if reason == "chiamata_fuori":
        return f"game over: {e.get('caller')} called out rightly, {winner} win ({total})"
    if reason == "chiamata_fuori_sbagliata":
        return f"game over: {e.get('caller')} called out wrongly, {winner} win ({total})"
    return f"game over: {winner} win ({total})"


def _c_marafona(e: Data, w: _Words) -> str:
    cards = list(e.get("cards") or [])
    return f"{e['player']} shows the Marafona ({w.cards(cards)}): +{e.get('points', 3)} for {team(e['team'])}"


def _c_called_out(e: Data, w: _Words) -> str:
    caller, mine = e["caller"], team(e["calling_team"])
    total, other, target = e.get("total"), e.get("other_total"), e.get("target")
    if e.get("right"):
        return f"{caller} calls out with {total} (the target is {target}, the others have {other}): right, {mine} win"
    if isinstance(total, int) and isinstance(target, int) and total >= target:
        return f"{caller} calls out with {total} but the others have {other}: not ahead, so wrong; {mine} lose"
    return f"{caller} calls out with {total} of {target}: wrong, {mine} lose"


def _c_tie(e: Data, w: _Words) -> str:
    scores: Mapping[str, int] = e.get("scores") or {}
    level = " to ".join(f"{team(t)} {s}" for t, s in scores.items())
    return f"both teams reached the target with the same score ({level}): play goes on"


# Bestia


def _s_chips(n: int) -> str:
    return _plural(int(n), "chip")


def _s_ante(e: Data, w: _Words) -> str:
    paid: Mapping[str, int] = e.get("paid") or {}
    if len(paid) == 1:
        (who, amount), *_ = paid.items()
        return (
            f"deal {e['deal']}: {e['dealer']} deals and puts {_s_chips(amount)} in the pot (the pot holds {e['pot']})"
        )
    each = ", ".join(f"{p} {n}" for p, n in paid.items())
    return f"deal {e['deal']}: {e['dealer']} deals; everyone antes ({each}); the pot holds {_s_chips(e['pot'])}"


def _s_dealt(e: Data, w: _Words) -> str:
    forced = "; this is a forced round: everyone plays" if e.get("forced") else ""
    return f"each player gets {number_word(int(e['cards_each']))} cards{forced}"


def _s_trump_turned(e: Data, w: _Words) -> str:
    return f"{w.card(e['card'])} is turned up: {w.suit(e['trump'])} are trumps"


_SAID = {
    "pass": "{p} passes",
    "knock": "{p} knocks and plays with these cards",
    "busso": "{p} says busso: no exchanges, the declarations stop",
    "join": "{p} joins the Mauschler",
    "I play": "{p} says 'I play' and is the Mauschler",
    "terzo se devo": "{p} says 'terzo se devo' (plays only if fewer than three are in)",
    "buco": "{p} takes the spare hand (buco) and plays with it",
}


def _s_spoke(e: Data, w: _Words) -> str:
    p, said = e["player"], str(e.get("said"))
    if said == "gioco":
        n = int(e.get("exchanged") or 0)
        return f"{p} plays (gioco)" + (f" and changes {_counted(n, 'card')}" if n else " with the cards dealt")
    if said == "knock" and e.get("doctor_short"):
        return f"{p} plays their own hand after all: the doctor cannot deal"
    return _SAID.get(said, "{p} says " + said).format(p=p)


def _s_compulsory(e: Data, w: _Words) -> str:
    reason = str(e.get("reason") or "")
    reason = re.sub(r"^(.+) bussa$", r"\1 said busso", reason)
    players = e.get("players")
    if players:
        verb = "must" if len(players) > 1 else "must"
        return f"{and_list(players)} {verb} play: {reason}"
    return f"everyone plays this deal: {reason}"


def _s_doctor(e: Data, w: _Words) -> str:
    offered = list(e.get("offered") or [])
    verb = "passed" if offered else ""
    return f"{and_list(offered)} {verb}: the doctor offers them three new cards each (doctor or decline)"


def _s_doctor_answer(e: Data, w: _Words) -> str:
    if not e.get("accept"):
        return f"{e['player']} declines the doctor and is out of this deal"
    owed = e.get("owed")
    later = f" ({number_word(int(owed))} still to come)" if owed else ""
    return f"{e['player']} goes to the doctor and takes new cards{later}"


def _s_doctor_dealt(e: Data, w: _Words) -> str:
    owed = int(e.get("owed") or 0)
    later = f", {number_word(owed)} still to come" if owed else ""
    return f"{e['player']} gets {_plural(int(e['cards']), 'more card')}{later}"


def _s_doctor_short(e: Data, w: _Words) -> str:
    players = list(e.get("players") or [])
    return (
        f"the doctor cannot deal all the cards owed to {and_list(players)}: they play their own hand "
        "(knock) or stay out (decline)"
    )


def _s_next_round(e: Data, w: _Words) -> str:
    speakers = list(e.get("speakers") or [])
    verb = "speaks" if len(speakers) == 1 else "speak"
    return f"round {e['round']} of the declarations: {and_list(speakers)} {verb} again"


def _s_fee(e: Data, w: _Words) -> str:
    paid: Mapping[str, int] = e.get("paid") or {}
    amounts = set(paid.values())
    if len(paid) == 1:
        (who, amount), *_ = paid.items()
        return f"{who} pays {_s_chips(amount)} to play; the pot holds {_s_chips(e['pot'])}"
    if len(amounts) == 1:
        return f"{and_list(paid)} pay {_s_chips(amounts.pop())} each to play; the pot holds {_s_chips(e['pot'])}"
    each = ", ".join(f"{p} {n}" for p, n in paid.items())
    return f"the players in pay to play ({each}); the pot holds {_s_chips(e['pot'])}"


def _s_exchange(e: Data, w: _Words) -> str:
    return f"{and_list(e.get('players') or [])} may change up to {_counted(int(e['up_to']), 'card')}, in turn"


def _s_exchanged(e: Data, w: _Words) -> str:
    n = int(e.get("exchanged") or 0)
    return f"{e['player']} changes {_counted(n, 'card')}" if n else f"{e['player']} keeps the cards"


def _s_robbed(e: Data, w: _Words) -> str:
    return f"{e['player']}, the dealer, takes the trump card ({w.card(e['trump_card'])}) and discards a card"


def _s_play_starts(e: Data, w: _Words) -> str:
    players = list(e.get("players") or [])
    return f"play starts: {and_list(players)} are in; {e['leader']} leads; the pot holds {_s_chips(e['pot'])}"


def _s_trick_won(e: Data, w: _Words) -> str:
    return f"{e['winner']} takes trick {e['trick']}"


def _s_offence(e: Data, w: _Words) -> str:
    cost = "; it costs the pot" if e.get("penalised") else ""
    rule = _words_of(str(e.get("offence", "")))
    return f"{w.card(e['revealed_by'])} shows that {e['player']} broke a rule in trick {e['trick']} ({rule}){cost}"


def _s_settled(e: Data, w: _Words) -> str:
    won: Mapping[str, int] = e.get("won") or {}
    paid: Mapping[str, int] = e.get("paid") or {}
    bestia = list(e.get("bestia") or [])
    pot = int(e.get("pot") or 0)
    amounts = set(won.values())
    if len(won) == 1 and next(iter(won.values())) == pot and pot:
        (who, amount), *_ = won.items()
        parts = [f"{who} wins the pot: {_s_chips(amount)}"]
    elif len(won) > 1 and len(amounts) == 1:
        parts = [f"{and_list(won)} win {_s_chips(amounts.pop())} each"]
    elif won:
        ranked = sorted(won.items(), key=lambda kv: -kv[1])
        first, rest = ranked[0], ranked[1:]
        parts = [f"{first[0]} wins {_s_chips(first[1])}" + "".join(f", {p} {n}" for p, n in rest)]
    else:
        parts = ["nobody wins from the pot"]
    if bestia:
        parts.append(f"{and_list(bestia)} {'is' if len(bestia) == 1 else 'are'} in bestia")
    for p, n in paid.items():
        parts.append(f"{p} pays {_s_chips(n)} into the pot")
    left = int(e.get("next_pot") or 0)
    parts.append(f"the pot now holds {_s_chips(left)}" if left else "the pot is empty")
    return f"deal {e['deal']} is settled: " + "; ".join(parts)


def _s_game_over(e: Data, w: _Words) -> str:
    gained: Mapping[str, int] = e.get("gained") or {}
    winners = list(e.get("winners") or [])
    verb = "wins" if len(winners) == 1 else "win"
    best = _signed(gained[winners[0]]) if winners and winners[0] in gained else ""
    others = ", ".join(f"{p} {_signed(n)}" for p, n in gained.items() if p not in winners)
    left = int(e.get("pot_left") or 0)
    return (
        f"game over after {_plural(int(e['deals']), 'deal')}: {and_list(winners)} {verb} ({best} chips)"
        + (f"; {others}" if others else "")
        + (f"; {_s_chips(left)} left in the pot" if left else "")
    )


_SAYERS: dict[tuple[str, str], EventSayer] = {
    ("", "undone"): _undone,
    ("", "amended"): _amended,
    ("", "seen"): _t_seen,
    ("beccato", "passed"): _b_passed,
    ("beccato", "call"): _b_call,
    ("beccato", "revealed"): _b_revealed,
    ("beccato", "cards_seen"): _b_cards_seen,
    ("beccato", "call_resolved"): _b_call_resolved,
    ("beccato", "egg_awarded"): _b_egg_awarded,
    ("beccato", "egg_placed"): _b_egg_placed,
    ("beccato", "henhouse_filled"): _b_henhouse_filled,
    ("beccato", "signal_changed"): _b_signal_changed,
    ("beccato", "no_egg_left"): _b_no_egg_left,
    ("beccato", "round_started"): _b_round_started,
    ("beccato", "game_over"): _b_game_over,
    ("beccaccino", "trump_declared"): _c_trump_declared,
    ("beccaccino", "looked"): _c_looked,
    ("beccaccino", "foul"): _c_foul,
    ("beccaccino", "played"): _t_played,
    ("beccaccino", "trick_won"): _c_trick_won,
    ("beccaccino", "hand_scored"): _c_hand_scored,
    ("beccaccino", "new_hand"): _c_new_hand,
    ("beccaccino", "game_over"): _c_game_over,
    ("beccaccino", "marafona"): _c_marafona,
    ("beccaccino", "called_out"): _c_called_out,
    ("beccaccino", "tie_play_on"): _c_tie,
    ("bestia", "ante"): _s_ante,
    ("bestia", "dealt"): _s_dealt,
    ("bestia", "trump_turned"): _s_trump_turned,
    ("bestia", "compulsory"): _s_compulsory,
    ("bestia", "spoke"): _s_spoke,
    ("bestia", "doctor"): _s_doctor,
    ("bestia", "doctor_answer"): _s_doctor_answer,
    ("bestia", "doctor_dealt"): _s_doctor_dealt,
    ("bestia", "doctor_short"): _s_doctor_short,
    ("bestia", "next_round"): _s_next_round,
    ("bestia", "fee"): _s_fee,
    ("bestia", "exchange"): _s_exchange,
    ("bestia", "exchanged"): _s_exchanged,
    ("bestia", "robbed"): _s_robbed,
    ("bestia", "play_starts"): _s_play_starts,
    ("bestia", "played"): _t_played,
    ("bestia", "trick_won"): _s_trick_won,
    ("bestia", "offence_revealed"): _s_offence,
    ("bestia", "settled"): _s_settled,
    ("bestia", "game_over"): _s_game_over,
}
EVENT_KINDS: dict[str, tuple[str, ...]] = {
    game: tuple(sorted(k for g, k in _SAYERS if g == game)) for game in ("", "beccato", "beccaccino", "bestia")
}


# -- actions ----------------------------------------------------------------------------------

ActionSayer = Callable[[Data, _Words, Sequence[str]], str]

_BECCATO_KINDS = frozenset(
    {
        "draw_from_pile",
        "coccode",
        "caught",
        "chicchirichi",
        "reveal",
        "show_cards",
        "draw_egg",
        "take_egg",
        "place_egg",
        "change_signal",
    }
)
_BECCACCINO_KINDS = frozenset({"declare", "look", "marafona", "fuori"})
_BESTIA_KINDS = frozenset({"trump", "knock", "gioco", "terzo", "buco", "doctor", "rob"})


def _guess_game(action: Data) -> str:
    """The game an action dict belongs to, read from its kind and fields (for callers that
    have no engine at hand: `referee.secrecy.describe_action`)."""
    kind = action.get("kind")
    if kind in _BECCATO_KINDS or (kind == "pass" and "card" in action):
        return "beccato"
    if kind in _BECCACCINO_KINDS or (kind == "play" and "call" in action):
        return "beccaccino"
    if kind in _BESTIA_KINDS or kind in ("pass", "play"):
        return "bestia"
    return ""


def say_action(
    engine: Engine | None,
    action: Action | Data,
    viewer: Viewer = PUBLIC,
    *,
    hidden: Sequence[str] = (),
    state: Any = None,
) -> str:
    """An action in words, as `viewer` may see it: "Anna passes a card on (face down)".
    `hidden` names fields already taken out (`referee.secrecy.public_action`'s second
    value); with an engine, the fields `viewer` may not see are taken out here."""
    data: dict[str, Any] = action.to_dict() if isinstance(action, Action) else dict(action)
    shown, more = public_action(engine, data, viewer) if engine is not None else (data, [])
    gone = [*hidden, *(f for f in more if f not in hidden)]
    game = _game(engine) or _guess_game(shown)
    words = _Words(engine, state, _codes_in([shown]))
    kind = str(shown.get("kind", ""))
    sayer = _ACTION_SAYERS.get((game, kind)) or _ACTION_SAYERS.get(("", kind))
    try:
        text = sayer(shown, words, gone) if sayer else _generic(shown)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        text = _generic(shown)
    if gone and not sayer:
        text += f" ({and_list(_words_of(f) for f in gone)} hidden)"
    return _sentence(text)


def _a_seen(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"seen in {a['player']}'s hand: {w.cards(a.get('cards') or [])}"


def _ab_pass(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    card = a.get("card")
    if card:
        return f"{a['player']} passes one {breed(card)} on"
    return f"{a['player']} passes a card on" + (" (face down)" if "card" in hidden else "")


def _ab_pile(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    card = a.get("card")
    what = f"one {breed(card)}" if card else "a card" + (" (face down)" if "card" in hidden else "")
    return f"{what} drawn from the imaginary seat"


def _ab_coccode(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['caller']} calls Coccodé" + (f" for {breed(a['breed'])}" if a.get("breed") else "")


def _ab_caught(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['caller']} calls Caught! on {a['target']}"


def _ab_chicchirichi(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['caller']} calls Chicchirichì"


def _ab_reveal(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} shows {chickens([str(c).lower() for c in a.get('cards') or []])}"


def _ab_show_cards(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"seen in {a['player']}'s hand: {chickens([str(c).lower() for c in a.get('cards') or []])}"


def _ab_draw_egg(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{egg(a['egg'])} turned up from the egg deck"


def _ab_take_egg(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    source = str(a.get("source"))
    where = {"deck": "the top of the egg deck", "top": "the top of the egg deck", "chick": "the Chick"}.get(
        source.lower(), f"the {breed(source.lower())} henhouse"
    )
    return f"{team(a['team'])} take their egg from {where}"


def _ab_place_egg(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{team(a['team'])} place {egg(a['egg'])} at {place(a['place'])} of their pyramid"


def _ab_change_signal(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    text = f"{team(a['team'])} turn {egg(a['egg'])} face down and change their secret signal"
    signal = a.get("signal")
    if signal and "signal" not in hidden:
        card = SIGNAL_CARDS.get(str(signal))
        new = f"'{card.text.rstrip('.')}'" if card else "a Free Signal of their own"
        text += f" (new signal: {new})"
    return text


def _ac_declare(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} names {w.suit(a['suit'])} as trumps"


def _ac_look(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} was seen looking at their cards before the trump was named"


def _a_play(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return _t_played(a, w)


def _ac_marafona(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} shows the Marafona (the 3, 2 and Asso of trumps)"


def _ac_fuori(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} calls out (chiamarsi fuori): their team claims the target"


def _as_trump(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{w.card(a['card'])} turned up for trumps"


def _as_knock(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} knocks (plays)"


def _as_pass(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} passes"


def _as_gioco(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    discards = list(a.get("discards") or [])
    count = a.get("count")
    if discards:
        return f"{a['player']} plays, changing {w.cards(discards)}"
    n = int(count) if count is not None else 0
    down = " (face down)" if "discards" in hidden else ""
    return f"{a['player']} plays, changing {_counted(n, 'card')}{down}" if n else f"{a['player']} plays, changing none"


def _as_terzo(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} says 'terzo se devo'"


def _as_buco(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    return f"{a['player']} takes the spare hand (buco)"


def _as_doctor(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    if a.get("accept", True):
        return f"{a['player']} goes to the doctor for three new cards"
    return f"{a['player']} declines the doctor and goes out"


def _as_rob(a: Data, w: _Words, hidden: Sequence[str]) -> str:
    discard = a.get("discard")
    if discard:
        return f"{a['player']} takes the trump card and discards {w.card(discard)}"
    return f"{a['player']} takes the trump card and discards a card" + (" (face down)" if "discard" in hidden else "")


_ACTION_SAYERS: dict[tuple[str, str], ActionSayer] = {
    ("", "seen"): _a_seen,
    ("beccato", "pass"): _ab_pass,
    ("beccato", "draw_from_pile"): _ab_pile,
    ("beccato", "coccode"): _ab_coccode,
    ("beccato", "caught"): _ab_caught,
    ("beccato", "chicchirichi"): _ab_chicchirichi,
    ("beccato", "reveal"): _ab_reveal,
    ("beccato", "show_cards"): _ab_show_cards,
    ("beccato", "draw_egg"): _ab_draw_egg,
    ("beccato", "take_egg"): _ab_take_egg,
    ("beccato", "place_egg"): _ab_place_egg,
    ("beccato", "change_signal"): _ab_change_signal,
    ("beccaccino", "declare"): _ac_declare,
    ("beccaccino", "look"): _ac_look,
    ("beccaccino", "play"): _a_play,
    ("beccaccino", "marafona"): _ac_marafona,
    ("beccaccino", "fuori"): _ac_fuori,
    ("bestia", "trump"): _as_trump,
    ("bestia", "knock"): _as_knock,
    ("bestia", "pass"): _as_pass,
    ("bestia", "gioco"): _as_gioco,
    ("bestia", "terzo"): _as_terzo,
    ("bestia", "buco"): _as_buco,
    ("bestia", "doctor"): _as_doctor,
    ("bestia", "rob"): _as_rob,
    ("bestia", "play"): _a_play,
}


# -- refusals ----------------------------------------------------------------------------------


def rule_in_words(error: RefereeError) -> str:
    """The error's name in words: NotYourTurn -> 'Not your turn'."""
    return _sentence(_words_of(error.name))[:-1]


# The details of a refusal that name the choices the table had (all public), in words; a
# detail not listed here (a hand, a card a rule required) is never said.
_CHOICES = {
    "players": "the players are {}",
    "teams": "the teams are {}",
    "deck": "the cards of this game: {}",
    "options": "offered: {}",
    "allowed": "the free places: {}",
    "face_up": "their face-up eggs: {}",
    "supported": "the choices: {}",
    "suits": "the suits: {}",
}
_TYPED = ("player", "viewer", "card", "suit", "option", "value")  # details that hold the word typed
_QUOTED = re.compile(r"'([^']+)'")
_USAGE = re.compile(r"^[a-z][a-z!-]* [A-Z]")  # a help line: "coccode PLAYER [BREED] ..."


def _typed(error: RefereeError) -> str | None:
    """The word the refused line named: a detail that holds it, else the first one the
    message quotes ("'Zorro' is not playing")."""
    for key in _TYPED:
        value = error.details.get(key)
        if isinstance(value, str) and value:
            return value
    m = _QUOTED.search(error.message)
    return m.group(1) if m else None


def _choices(error: RefereeError) -> tuple[str, list[str]] | None:
    """The names the table would have taken instead, from the refusal's details."""
    for key in _CHOICES:
        value = error.details.get(key)
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            return key, [str(v) for v in value]
    if error.name == "EggNotInDeck":
        from referee.beccato.cards import EGGS  # deferred: the Beccato! package imports this module

        return "eggs", list(EGGS)
    return None


def say_error_parts(error: RefereeError) -> tuple[str, str]:
    """A refusal as (the reason, what to do about it). The reason is the message in words, with
    "did you mean ...?" when the word it names is close to one of the choices its details give
    (a player, a team, a card of this game, an egg, a source offered), else those choices; what
    to do is the hint (a usage line, how cards are written), "type 'help' for the commands"
    when the hint is the whole list of commands, or '' when there is none."""
    reason = error.message.strip() or rule_in_words(error)
    found = _choices(error)
    typed = _typed(error)
    if found is not None and "did you mean" not in reason:
        key, names = found
        mean = suggest(typed, names) if typed else None
        if key == "eggs":
            guilds = sorted({n.rpartition("-")[0] for n in names}, key=lambda g: names.index(f"{g}-1"))
            listing = "the eggs are " + and_list(f"{g}-1 to {g}-7" for g in guilds)
        else:
            listing = _CHOICES[key].format(and_list(team(n) if key == "teams" else n for n in names))
        if mean:
            reason += f"; {mean}"
            if key in ("deck", "eggs"):  # the cards and eggs are listed all the same
                reason += " " + _sentence(listing)[:-1]
        elif key == "eggs" or not all(n in reason for n in names):
            reason += f" ({listing})"
    advice = error.details.get("hint")
    raw = advice.strip() if isinstance(advice, str) else ""
    text = " ".join(raw.split())
    if "\n" in raw:
        text = "type 'help' for the commands"
    elif _USAGE.match(text):
        text = " ".join(("usage: " + re.sub(r"(\S)  +", r"\1: ", raw, count=1)).split())
    return _sentence(reason), (_sentence(text) if text else "")


def say_error(error: RefereeError) -> str:
    """The refusal in plain words with its hint: "It is Bob's turn, not Ann's." (the rule's
    name stays in `error.name`; `rule_in_words` says it in words)."""
    reason, advice = say_error_parts(error)
    return f"{reason} {advice}".strip()


# -- questions ---------------------------------------------------------------------------------


def say_question(
    engine: Engine | None,
    ask: int,
    action: Action | Data | None,
    *,
    reasoning: str = "",
    confidence: float | None = None,
    alternative: Action | Data | None = None,
    viewer: Viewer = PUBLIC,
    state: Any = None,
) -> str:
    """A question of the table session (`referee.table.session`, `type: ask`) as a one-tap
    yes/no: "Question 12: did Anna play the Re di coppe and say Volo? The camera is 72% sure:
    ... Answer yes 12 or no 12." With no action (the cards could not be read) it asks the
    scorekeeper to type what happened."""
    why = f" {_sentence(reasoning)}" if reasoning.strip() else ""
    if action is None:
        return f"Question {ask}: the referee could not tell what happened.{why} Type it, as a command."
    said = say_action(engine, action, viewer, state=state)[:-1]
    sure = f" The referee is {round(100 * confidence)}% sure." if confidence is not None else ""
    instead = ""
    if alternative is not None:
        instead = f" No records instead: {say_action(engine, alternative, viewer, state=state)[:-1]}."
    return f"Question {ask}: {said}?{sure}{why} Answer yes {ask} or no {ask}.{instead}"


# -- what the referee waits for -------------------------------------------------------------------


def say_waiting(engine: Engine | str | None, state: Any, viewer: Viewer = PUBLIC) -> str:
    """What the referee waits for (`state.waiting_for()`), in words, with the command that
    gives it: "Blues to choose an egg from the Orloff henhouse or the deck: `take Blues
    orloff`, or `take Blues deck`." Nothing in it is secret."""
    return _sentence(waiting_phrase(engine, state, viewer))


def waiting_phrase(engine: Engine | str | None, state: Any, viewer: Viewer = PUBLIC) -> str:
    """`say_waiting` as a phrase to follow "waiting for: " (no capital, no full stop)."""
    wait: Mapping[str, Any] = state.waiting_for()
    game = _game(engine)
    step = str(wait.get("step"))
    if step == "over":
        return "nothing more: the game is over"
    sayer = _WAITERS.get((game, step)) or _WAITERS.get(("", step))
    try:
        text = (
            sayer(wait, state) if sayer else _generic({"kind": step, **{k: v for k, v in wait.items() if k != "step"}})
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        text = _generic({"kind": step})
    return text


def _command(text: str) -> str:
    return f"`{text}`"


def _wb_play(w: Data, state: Any) -> str:
    holder = w.get("holder")
    calls = "or a call (coccode, caught, chicchirichi)"
    if holder == "?":
        return f"the card drawn from the imaginary seat ({_command('pile')}, or {_command('pile CARD')}) {calls}"
    passing = f"{_command(f'pass {holder}')}, or {_command(f'pass {holder} CARD')} when the card is seen"
    return f"play to go on: {holder} holds four cards and passes one ({passing}), {calls}"


def _wb_reveal(w: Data, state: Any) -> str:
    players = list(w.get("players") or [])
    first = players[0] if players else "PLAYER"
    return f"the hand of {and_list(players)}: {_command(f'reveal {first} CARD CARD CARD')}"


def _wb_choose(w: Data, state: Any) -> str:
    options = [str(o) for o in w.get("options") or []]
    houses = [o for o in options if o not in ("deck", "chick")]
    others = [{"deck": "the deck", "chick": "the Chick"}[o] for o in options if o in ("deck", "chick")]
    if len(houses) == 1:
        places = [f"the {breed(houses[0])} henhouse"]
    elif houses:
        places = [f"a henhouse ({and_list(breed(h) for h in houses)})"]
    else:
        places = []
    who = str(w.get("team"))
    if len(options) <= 2:
        commands = ", or ".join(_command(f"take {who} {o}") for o in options)
    else:
        commands = f"{_command(f'take {who} SOURCE')}, SOURCE one of {or_list(options)}"
    return f"{team(who)} to choose an egg from {or_list(places + others)}: {commands}"


def _wb_draw(w: Data, state: Any) -> str:
    target = f"the {breed(str(w.get('breed')))} henhouse" if w.get("to") == "henhouse" else _team_called(w.get("team"))
    return f"the egg turned up from the deck for {target}: {_command('egg EGG')} (e.g. egg star-3)"


def _wb_place(w: Data, state: Any) -> str:
    who, what = w.get("team"), w.get("egg")
    free = getattr(state, "_free_places", None)
    places = list(free(who)) if callable(free) else ["b1", "b2", "b3", "m1", "m2", "top"]
    return f"{team(who)} to place {what} in their pyramid: {_command(f'place {who} {what} PLACE')}, PLACE " + (
        f"one of {or_list(places)}" if len(places) > 1 else f"{or_list(places)}"
    )


def _wc_declare(w: Data, state: Any) -> str:
    who = w.get("player")
    name = who or "the holder of the 4 di denari"
    line = f"declare {who or 'PLAYER'} SUIT"
    return f"{name} to name the trump: {_command(line)} (coppe, denari, spade or bastoni)"


def _wt_play(w: Data, state: Any) -> str:
    who = w.get("player")
    return f"{who} to play a card to trick {w.get('trick')}: {_command(f'play {who} CARD')}"


def _ws_trump(w: Data, state: Any) -> str:
    return f"the card turned up for trumps: {_command('trump CARD')}"


def _bestia_verbs(state: Any, player: str) -> list[str]:
    """The commands `player` may give now (from the legal actions)."""
    kinds: list[str] = []
    try:
        legal = state.legal_actions()
    except (AttributeError, RuntimeError, ValueError):
        return kinds
    words = {"knock": "knock", "pass": "pass", "gioco": "gioco", "terzo": "terzo", "buco": "buco", "rob": "rob"}
    for action in legal:
        if getattr(action, "player", None) != player:
            continue
        kind = action.kind
        if kind == "doctor":
            word = "doctor" if getattr(action, "accept", True) else "decline"
        else:
            word = words.get(kind, kind)
        if word not in kinds:
            kinds.append(word)
    return kinds


def _ws_speak(w: Data, state: Any) -> str:
    who = str(w.get("player"))
    verbs = _bestia_verbs(state, who) or ["knock", "pass"]
    doing = {"join": "join or pass", "doctor": "take new cards or not", "exchange": "change cards", "rob": "rob"}.get(
        str(w.get("step")), "speak"
    )
    if w.get("step") == "rob":
        return f"{who}, the dealer, to take the trump card and discard one: {_command(f'rob {who} CARD')}"
    if w.get("step") == "exchange":
        named, counted = _command(f"gioco {who} CARD CARD"), _command(f"gioco {who} N")
        return f"{who} to change cards: {named} (the cards discarded) or {counted}"
    owed = w.get("owed")
    extra = f" ({number_word(int(owed))} cards are still owed and the doctor cannot deal them)" if owed else ""
    return f"{who} to {doing}{extra}: " + ", ".join(_command(f"{v} {who}") for v in verbs)


_WAITERS: dict[tuple[str, str], Callable[[Data, Any], str]] = {
    ("beccato", "play"): _wb_play,
    ("beccato", "reveal"): _wb_reveal,
    ("beccato", "choose"): _wb_choose,
    ("beccato", "draw"): _wb_draw,
    ("beccato", "place"): _wb_place,
    ("beccaccino", "declare"): _wc_declare,
    ("", "play"): _wt_play,
    ("bestia", "trump"): _ws_trump,
    ("bestia", "speak"): _ws_speak,
    ("bestia", "join"): _ws_speak,
    ("bestia", "doctor"): _ws_speak,
    ("bestia", "exchange"): _ws_speak,
    ("bestia", "rob"): _ws_speak,
}


# -- standings ---------------------------------------------------------------------------------


def say_standings(engine: Engine | None, state: Any, viewer: Viewer = PUBLIC) -> list[str]:
    """The score so far, one line per team or player: Beccato! eggs and points (the Egg
    Pyramid worked out row by row), Beccaccino points with this hand's thirds, Bestia chips
    and the pot. Nothing in it is secret: no hand, no signal."""
    game = _game(engine)
    if game == "beccato":
        return _standings_beccato(state)
    if game == "beccaccino":
        return _standings_beccaccino(state)
    if game == "bestia":
        return _standings_bestia(state)
    standings: Mapping[str, Any] = state.standings()
    return [_sentence(f"{who}: {_flat(value)}") for who, value in standings.items()]


def _standings_beccato(state: Any) -> list[str]:
    from referee.beccato.scoring import (  # deferred: the Beccato! package imports this module for `suggest`
        GUILD_CARD,
        ROWS,
        Card,
        bears_team_guild,
        card_points,
    )

    table = state.table
    scores: Mapping[str, Mapping[str, Any]] = state.scores()
    pyramid = bool(table.options.get("egg_pyramid"))
    lines = []
    for name, members in table.teams.items():
        entries = state.collections[name]
        guild = table.guilds[name]
        score = scores[name]
        down = sum(1 for e in entries if not e["face_up"])
        eggs = _plural(len(entries), "egg") + (f" ({down} face down)" if down else "")
        head = f"{team(name)} ({and_list(members)}; Guild {guild}): {eggs}, {_plural(int(score['points']), 'point')}"
        if not pyramid:
            listed = ", ".join(str(e["egg"]) for e in entries)
            lines.append(_sentence(head + (f": {listed}" if listed else "")))
            continue
        slots = {e["place"]: Card(e["egg"], e["face_up"]) for e in entries if e["place"]}
        empty = [p for r in ROWS for p in r if p not in slots]
        fill = bool(table.options.get("pyramid_guild_fill"))
        bonus = bool(table.options.get("pyramid_level_bonus"))
        if fill and len(empty) <= 3:
            slots.update({p: Card(GUILD_CARD) for p in empty})
        rows = []
        for row, title in zip(ROWS, ("base", "middle", "top")):
            cards = [slots[p] for p in row if p in slots]
            value = sum(card_points(c, guild) for c in cards)
            shown = ", ".join("a Guild card" if c.card == GUILD_CARD else str(c.card) for c in cards) or "empty"
            doubled = (
                bonus and len(cards) == len(row) and (len(row) == 1 or all(bears_team_guild(c, guild) for c in cards))
            )
            worth = _plural(value * 2 if doubled else value, "point")
            rows.append(
                f"{title} {shown}: {worth}" + (" (doubled: a full row of their Guild)" if doubled and value else "")
            )
        text = head + "; pyramid: " + "; ".join(rows)
        if score.get("excluded"):
            text += f"; excluded: {len(empty)} empty places, more than the 3 Guild cards can fill"
        elif fill and empty:
            text += f"; {number_word(len(empty))} empty places filled with Guild cards"
        lines.append(_sentence(text))
    return lines


def _standings_beccaccino(state: Any) -> list[str]:
    lines = []
    target = state.options.get("target")
    for name, members in state.teams.items():
        now = int(state.thirds.get(name, 0))
        tricks = ", ".join(f"{p} {state.tricks_taken.get(p, 0)}" for p in members)
        line = f"{team(name)}: {_plural(int(state.scores[name]), 'point')}"
        if not state.is_over:
            line += f"; this hand so far {thirds(now)} ({now} thirds); tricks {tricks}"
        lines.append(_sentence(line))
    if target is not None:
        lines.append(_sentence(f"playing to {target} points"))
    return lines


def _standings_bestia(state: Any) -> list[str]:
    start = int(state.options.get("chips", 0))
    status_words = {
        "in": "in",
        "out": "out",
        "passed": "passed",
        "terzo": "terzo se devo",
        "waiting": "to speak",
    }
    lines = [_sentence(f"the pot holds {_s_chips(state.pot)}")]
    for p in state.players:
        chips = int(state.stacks[p])
        line = f"{p}: {_s_chips(chips)} ({_signed(chips - start)})"
        if not state.is_over and state.phase != "deal":
            line += f", {status_words.get(state.status.get(p), str(state.status.get(p)))}"
            if state.phase == "play" and state.status.get(p) == "in":
                line += f", {_plural(int(state.tricks_won.get(p, 0)), 'trick')}"
        lines.append(_sentence(line))
    return lines
