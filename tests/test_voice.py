"""The referee's one voice (`referee.voice`): every event, action, refusal, question, waiting
line and standing in plain words, never a dict dump, and never a secret in the public view."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.beccato.cards import CARD_NAMES
from referee.core import MalformedAction, RefereeError, get_engine
from referee.secrecy import PUBLIC, describe_action, resolve_viewer
from referee.signal_cards import SIGNAL_CARDS
from referee.voice import (
    EVENT_KINDS,
    breed,
    closest,
    say_action,
    say_error,
    say_error_parts,
    say_event,
    say_events,
    say_question,
    say_standings,
    say_waiting,
    suggest,
    thirds,
)
from tests.beccato.helpers import choose as beccato_choose
from tests.beccato.helpers import new_table, play

HENHOUSE_EGGS = ["egg moon-1", "egg moon-2", "egg moon-3", "egg moon-4", "egg moon-5"]

ROOT = Path(__file__).resolve().parent
DUMP = re.compile(r"[{}\[\]=]|\bkind\b")  # what a repr or a dict dump leaves in a sentence

SIGNALS = {"Reds": "touch_nose_left", "Blues": "wink_right"}
NEW_SIGNALS = ["talk_sport", "cards_only_two", "raise_hand_left"]
SECRET_WORDS = [s.id for s in SIGNAL_CARDS] + [s.text.rstrip(".") for s in SIGNAL_CARDS]
BECCATO = {
    "players": ["Nicola", "Simona", "Claudia", "Federico", "Cecilia"],
    "teams": {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico"]},
    "options": {"egg_pyramid": True, "signal_change": True, "calling_chickens": True},
    "signals": SIGNALS,
}
TRICK_SETUPS = {
    "beccaccino": {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"target": 31}},
    "bestia-classic": {"players": ["Anna", "Ben", "Carla", "Dan", "Eva"], "options": {"variant": "classic"}},
    "bestia-italian": {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"variant": "italian", "fee": 1}},
    "bestia-julepe": {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"variant": "julepe"}},
    "bestia-mauscheln": {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"variant": "mauscheln"}},
    "bestia-buco": {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"variant": "buco"}},
}


def assert_plain(sentence: str, what: Any) -> None:
    assert sentence.strip(), f"no words for {what}"
    assert not DUMP.search(sentence), f"{sentence!r} reads like a dump ({what})"
    assert sentence[0].isupper() or sentence[0].isdigit(), sentence
    assert sentence[-1] in ".!?", sentence


def assert_no_secret(sentence: str) -> None:
    low = sentence.casefold()
    for word in SECRET_WORDS:
        assert word.casefold() not in low, f"{sentence!r} names a secret signal ({word})"


# -- random legal playthroughs: every event in words, no secret in public --------------------------


def _beccato_action(state: Any, rng: random.Random) -> Any:
    from referee.beccato import ChangeSignal

    action = beccato_choose(state, rng, pass_bias=0.8)
    if isinstance(action, ChangeSignal) and rng.random() < 0.7:
        action = ChangeSignal(action.team, action.egg, rng.choice(NEW_SIGNALS))  # told to the referee
    return action


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_beccato_event_reads_plainly_and_the_public_never_hears_a_secret(seed: int) -> None:
    engine = get_engine("beccato")
    state = engine.new_game({**BECCATO, "seed": seed})
    rng = random.Random(seed)
    reds = resolve_viewer("Reds", state)
    for _ in range(400):
        if state.is_over:
            break
        waiting = say_waiting(engine, state)
        assert_plain(waiting, "waiting")
        assert_no_secret(waiting)
        action = _beccato_action(state, rng)
        data = engine.codec.to_dict(action)
        said = say_action(engine, data)
        assert_plain(said, data)
        assert_no_secret(said)
        if data["kind"] == "pass" and data.get("card"):
            assert breed(data["card"]).casefold() not in said.casefold()
        events = [e.to_dict() for e in state.apply(action)]
        for event in events:
            (public,) = say_events(engine, [event])  # one sentence for each event
            assert_plain(public, event)
            assert_no_secret(public)
            if event["kind"] == "passed" and event.get("card"):
                assert breed(event["card"]).casefold() not in public.casefold(), (public, event)
                passer = event["seat"] if event["seat"] != "?" else event["to"]  # the imaginary seat's: its drawer
                (own,) = say_events(engine, [event], resolve_viewer(passer, state))
                assert breed(event["card"]).casefold() in own.casefold()  # the passer sees it
            assert say_events(engine, [event], reds)  # a team's view reads too
        for line in say_standings(engine, state):
            assert_plain(line, "standings")
            assert_no_secret(line)
    assert state.is_over or state.round > 1


def _trick_engine(name: str) -> Any:
    return get_engine(name.split("-")[0])


@pytest.mark.parametrize("name", sorted(TRICK_SETUPS))
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_trick_game_event_reads_plainly_and_discards_stay_face_down(name: str, seed: int) -> None:
    engine = _trick_engine(name)
    state = engine.new_game({**TRICK_SETUPS[name], "seed": seed})
    rng = random.Random(seed)
    for sentence in say_events(engine, [e.to_dict() for e in getattr(state, "opening", [])], state=state):
        assert_plain(sentence, "opening")
    for _ in range(300):
        if state.is_over:
            break
        assert_plain(say_waiting(engine, state), "waiting")
        legal = state.legal_actions()
        small = [a for a in legal if a.kind != "gioco" or len(a.discards) <= 2]
        action = rng.choice(small or legal)
        data = engine.codec.to_dict(action)
        said = say_action(engine, data, state=state)
        assert_plain(said, data)
        for card in data.get("discards") or []:  # an exchange's discards go face down
            assert card not in said and state.deck.name_of(card, "symbol") not in said, said
        if data["kind"] == "rob" and data.get("discard"):
            assert state.deck.name_of(data["discard"], "symbol") not in said
        events = [e.to_dict() for e in state.apply(action)]
        sentences = say_events(engine, events, state=state)
        assert len(sentences) == len(events)
        for sentence, event in zip(sentences, events):
            assert_plain(sentence, event)
            assert say_event(engine, event, state=state) == sentence
        for line in say_standings(engine, state):
            assert_plain(line, "standings")


def test_the_frozen_playthroughs_use_every_sentence_the_voice_knows() -> None:
    """Replaying every frozen playthrough, with the events the random games above meet too,
    reaches each kind of event the voice has a sentence for: none is dead text."""
    seen: set[tuple[str, str]] = set()
    for game, folder in [("beccato", "beccato"), ("beccaccino", "beccaccino"), ("bestia", "bestia")]:
        engine = get_engine(game)
        for path in sorted((ROOT / folder / "playthroughs").glob("*.json")):
            frozen = json.loads(path.read_text())
            state = engine.new_game(frozen["setup"])
            events = [e.to_dict() for e in getattr(state, "opening", [])]
            for data in frozen.get("actions") or [s["action"] for s in frozen["steps"]]:
                events += [e.to_dict() for e in state.apply(engine.codec.from_dict(data))]
            for event, sentence in zip(events, say_events(engine, events, state=state)):
                assert_plain(sentence, event)
                seen.add((game, event["kind"]))
    known = {(game, kind) for game, kinds in EVENT_KINDS.items() if game for kind in kinds}
    rare = {
        ("beccato", "cards_seen"),
        ("beccato", "no_egg_left"),
        ("beccaccino", "foul"),
        ("beccaccino", "marafona"),
        ("beccaccino", "looked"),
        ("beccaccino", "called_out"),
        ("beccaccino", "tie_play_on"),
        ("bestia", "doctor_dealt"),
        ("bestia", "doctor_short"),
        ("bestia", "offence_revealed"),
    }
    assert known - seen <= rare, sorted(known - seen - rare)
    for game, kind in sorted(rare):  # the rare ones, from the fields their engines give them
        sentence = say_event(get_engine(game), RARE_EVENTS[kind])
        assert_plain(sentence, kind)


def test_every_event_an_engine_can_announce_has_its_sentence() -> None:
    """Read from the engines' source: each event kind they emit (`Event("kind", ...)`,
    `self._emit("kind", ...)`) has a sentence of its own, not the generic fallback."""
    emitted = re.compile(r'(?:Event\(\s*|_emit\(\s*)"(\w+)"')
    shared = set(EVENT_KINDS[""])
    for game in ("beccato", "beccaccino", "bestia"):
        files = sorted((ROOT.parent / "referee" / game).glob("*.py"))
        if game != "beccato":
            files.append(ROOT.parent / "referee" / "tricks" / "common.py")
        kinds = {k for f in files for k in emitted.findall(f.read_text(encoding="utf-8"))}
        assert len(kinds) >= 10, (game, kinds)
        missing = kinds - set(EVENT_KINDS[game]) - shared
        assert not missing, f"{game} events without a sentence: {sorted(missing)}"


RARE_EVENTS: dict[str, dict[str, Any]] = {
    "cards_seen": {"kind": "cards_seen", "player": "Anna", "cards": ["orloff", "orloff"]},
    "no_egg_left": {"kind": "no_egg_left", "team": "star"},
    "foul": {
        "kind": "foul",
        "hand": 1,
        "foul": "revealed_Revoke",
        "player": "Ben",
        "message": "Ben plays 3D after not following C in trick 2",
        "card": "3D",
        "trick": 2,
    },
    "looked": {"kind": "looked", "player": "Carla"},
    "marafona": {"kind": "marafona", "player": "Dan", "team": "Ben+Dan", "points": 3, "cards": ["3S", "2S", "AS"]},
    "called_out": {
        "kind": "called_out",
        "caller": "Anna",
        "calling_team": "Anna+Carla",
        "total": 38,
        "other_total": 30,
        "target": 41,
        "right": False,
    },
    "tie_play_on": {"kind": "tie_play_on", "scores": {"Anna+Carla": 41, "Ben+Dan": 41}},
    "doctor_dealt": {"kind": "doctor_dealt", "player": "Ben", "cards": 2, "owed": 1},
    "doctor_short": {"kind": "doctor_short", "players": ["Ben"], "owed": {"Ben": 1}},
    "offence_revealed": {
        "kind": "offence_revealed",
        "player": "Dan",
        "offence": "MustTrump",
        "trick": 2,
        "revealed_by": "KD",
        "penalised": True,
    },
}


# -- what the table hears, word for word -----------------------------------------------------------


def test_a_right_coccode_names_the_triple_and_the_egg() -> None:
    engine = get_engine("beccato")
    state = new_table()
    play(state, ["egg star-3", "egg dollar-1", "egg moon-2", "egg sun-5", "egg dollar-6"])
    events = play(state, ["coccode Nicola", "reveal Claudia orloff orloff orloff"])
    events += play(state, ["reveal Cecilia padovana brahma serama"])
    said = say_events(engine, [e.to_dict() for e in events])
    assert said[:4] == [
        "Nicola calls Coccodé: Claudia and Cecilia show their hands.",
        "Claudia shows three Orloff.",
        "Cecilia shows one Brahma, one Padovana and one Serama.",
        "Nicola's Coccodé is right (three Orloff): Reds win an egg.",
    ]
    assert "Reds take egg star-3 from the Orloff henhouse." in said


def test_a_wrong_coccode_says_what_was_shown() -> None:
    engine = get_engine("beccato")
    state = new_table()
    play(state, ["egg star-3", "egg dollar-1", "egg moon-2", "egg sun-5", "egg dollar-6"])
    events = play(state, ["coccode Nicola", "reveal Claudia orloff orloff brahma"])
    events += play(state, ["reveal Cecilia padovana brahma serama"])
    said = say_events(engine, [e.to_dict() for e in events])
    assert "Claudia shows two Orloff and one Brahma." in said
    assert "Nicola's Coccodé is wrong (nobody shows three of a breed): Blues get an egg from the deck." in said


def test_bestia_chips_and_beccaccino_thirds_in_words() -> None:
    bestia = get_engine("bestia")
    settled = {
        "kind": "settled",
        "deal": 1,
        "pot": 9,
        "won": {"Anna": 6, "Ben": 3},
        "bestia": ["Carla"],
        "paid": {"Carla": 9},
        "next_pot": 9,
    }
    assert say_event(bestia, settled) == (
        "Deal 1 is settled: Anna wins 6 chips, Ben 3; Carla is in bestia; Carla pays 9 chips into the pot; "
        "the pot now holds 9 chips."
    )
    alone = {**settled, "won": {"Ben": 9}, "bestia": [], "paid": {}, "next_pot": 0}
    assert say_event(bestia, alone) == "Deal 1 is settled: Ben wins the pot: 9 chips; the pot is empty."
    assert [thirds(n) for n in (0, 2, 3, 7)] == ["0 points", "2/3 of a point", "1 point", "2 1/3 points"]
    trick = {"kind": "trick_won", "trick": 10, "winner": "Ben", "team": "Ben+Dan", "thirds": 7, "last": True}
    assert say_event(get_engine("beccaccino"), trick) == "Ben takes trick 10, the last one: 2 1/3 points for Ben & Dan."


def test_cards_are_named_from_the_deck_in_play() -> None:
    beccaccino, bestia = get_engine("beccaccino"), get_engine("bestia")
    assert say_event(beccaccino, {"kind": "played", "player": "Dan", "card": "FS", "trick": 1, "call": "volo"}) == (
        "Dan plays Fante di spade and says Volo (fly)."
    )
    french = bestia.new_game({"players": ["A", "B", "C"], "seed": 1})
    assert say_events(bestia, [{"kind": "played", "player": "A", "card": "KS", "trick": 1}], state=french) == [
        "A plays K♠."
    ]
    italian = bestia.new_game({"players": ["A", "B", "C", "D"], "seed": 1, "options": {"variant": "italian"}})
    assert say_events(bestia, [{"kind": "played", "player": "A", "card": "RC", "trick": 1}], state=italian) == [
        "A plays Re di coppe."
    ]


def test_corrections_and_unknown_events_read_as_words() -> None:
    assert say_events(None, [{"kind": "undone", "entry": 4}]) == [
        "Entry #4 is undone: the game goes on as if it had not happened."
    ]
    assert say_events(None, [{"kind": "amended", "entry": 2}])[0].startswith("Entry #2 is corrected")
    odd = say_event(None, {"kind": "added", "player": "Ann", "amount": 2, "scores": {"Ann": 2}, "hands": [1, 2]})
    assert odd == "Added: player Ann; amount 2; scores Ann 2; hands 1, 2."
    broken = say_event(get_engine("beccato"), {"kind": "call_resolved", "caller": "Anna"})  # fields missing
    assert_plain(broken, "a broken event")


def test_actions_in_words_hide_what_the_viewer_may_not_see() -> None:
    beccato = get_engine("beccato")
    state = beccato.new_game({**BECCATO, "seed": 3})
    passed = {"kind": "pass", "player": "Nicola", "card": "orloff"}
    assert say_action(beccato, passed) == "Nicola passes a card on (face down)."
    assert say_action(beccato, passed, resolve_viewer("Nicola", state)) == "Nicola passes one Orloff on."
    signal = {"kind": "change_signal", "team": "Reds", "egg": "dollar-1", "signal": "hum"}
    assert "Hum" not in say_action(beccato, signal)
    assert "new signal: 'Hum'" in say_action(beccato, signal, resolve_viewer("Reds", state))
    assert "Hum" not in say_action(beccato, signal, resolve_viewer("Blues", state))
    bestia = get_engine("bestia")
    gioco = {"kind": "gioco", "player": "Anna", "discards": ["KS", "2H"], "count": None}
    assert say_action(bestia, gioco) == "Anna plays, changing two cards (face down)."
    # without an engine (describe_action's callers) the game is read from the action
    assert say_action(None, {"kind": "take_egg", "team": "star", "source": "orloff"}) == (
        "The Stars take their egg from the Orloff henhouse."
    )
    assert describe_action(passed, ["card"]).startswith("pass Nicola")  # the typed form stays


def test_the_waiting_line_names_the_command_to_type() -> None:
    engine = get_engine("beccato")
    state = new_table(options={"egg_pyramid": True})
    play(state, HENHOUSE_EGGS)
    play(state, ["caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"])
    waiting = say_waiting(engine, state)
    assert waiting == (
        "Blues to choose an egg from a henhouse (Orloff, Padovana, Brahma, Cocincina and Livornese) or the deck: "
        "`take Blues SOURCE`, SOURCE one of orloff, padovana, brahma, cocincina, livornese or deck."
    )
    assert "waiting for: Blues to choose an egg" in engine.render(state)  # the table says it too
    play(state, ["take Blues deck"])
    assert "`egg EGG`" in say_waiting(engine, state)
    play(state, ["egg star-1"])
    assert "`place Blues star-1 PLACE`" in say_waiting(engine, state)
    beccaccino = get_engine("beccaccino")
    assert "`declare PLAYER SUIT`" in say_waiting(beccaccino, beccaccino.new_game(TRICK_SETUPS["beccaccino"]))
    bestia = get_engine("bestia")
    speaking = bestia.new_game({**TRICK_SETUPS["bestia-italian"], "seed": 2})
    line = say_waiting(bestia, speaking)
    assert "`knock " in line and "`pass " in line and "`gioco " in line


def test_the_pyramid_is_worked_out_row_by_row() -> None:
    """The standings of a finished Egg Pyramid game: each team's rows add up to its points."""
    engine = get_engine("beccato")
    frozen = json.loads((ROOT / "beccato" / "playthroughs" / "five_players_pyramid_signal_change.json").read_text())
    state = engine.new_game(frozen["setup"])
    for step in frozen["steps"]:
        state.apply(engine.codec.from_dict(step["action"]))
    lines = say_standings(engine, state)
    scores = state.scores()
    assert len(lines) == len(scores)
    for line, score in zip(lines, scores.values()):
        rows = re.findall(r"(?:base|middle|top) [^;]*?: (\d+) points?", line)
        assert len(rows) == 3, line
        assert sum(int(r) for r in rows) == score["points"], line
        assert f", {score['points']} point" in line
    assert any("(doubled" in line for line in lines)


def test_trick_game_standings() -> None:
    beccaccino = get_engine("beccaccino")
    state = beccaccino.new_game({**TRICK_SETUPS["beccaccino"], "seed": 5})
    rng = random.Random(5)
    for _ in range(8):
        state.apply(rng.choice([a for a in state.legal_actions() if a.kind in ("declare", "play")]))
    lines = say_standings(beccaccino, state)
    assert any("thirds" in line for line in lines) and lines[-1] == "Playing to 31 points."
    bestia = get_engine("bestia")
    state = bestia.new_game({**TRICK_SETUPS["bestia-classic"], "seed": 5})
    lines = say_standings(bestia, state)
    assert lines[0].startswith("The pot holds ") and len(lines) == 6
    assert "Anna: " in lines[1] and " chips (" in lines[1]


# -- refusals and "did you mean" -----------------------------------------------------------------


def refusal(game: str, setup: dict[str, Any], lines: list[str]) -> RefereeError:
    engine = get_engine(game)
    state = engine.new_game(setup)
    *before, last = lines
    for line in before:
        state.apply(engine.parse_command(state, line))
    try:
        state.apply(engine.parse_command(state, last))
    except RefereeError as error:
        return error
    raise AssertionError(f"{last!r} was accepted")


BECCATO_TABLE = {
    "players": ["Nicola", "Simona", "Claudia", "Federico"],
    "teams": {"Reds": ["Nicola", "Claudia"], "Blues": ["Simona", "Federico"]},
}
EGGS_UP = ["egg star-3", "egg dollar-1", "egg moon-2"]


@pytest.mark.parametrize(
    "game, setup, lines, name, words",
    [
        ("beccato", BECCATO_TABLE, ["cocode Nicola"], "MalformedAction", "did you mean coccode?"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "coccode Nicla"], "CallerNotInGame", "did you mean Nicola?"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "caught Simona Claudai"], "PlayerNotInGame", "did you mean Claudia?"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "coccode Zorro"], "CallerNotInGame", "the players are Nicola,"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "pass Nicola orlof"], "CardNotInDeck", "did you mean orloff?"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "pass Nicola orlof"], "CardNotInDeck", "brahma, orloff, padovana"),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "pass Nicola unicorn"], "CardNotInDeck", "cards of this game: brahma"),
        ("beccato", BECCATO_TABLE, ["egg star3"], "EggNotInDeck", "did you mean star-3?"),
        ("beccato", BECCATO_TABLE, ["egg zebra-9"], "EggNotInDeck", "dollar-1 to dollar-7, star-1 to star-7"),
        (
            "beccato",
            BECCATO_TABLE,
            [*EGGS_UP, "caught Simona Claudia", "reveal Claudia orloff orloff orloff", "take Blues dek"],
            "EggSourceNotAllowed",
            "did you mean deck?",
        ),
        ("beccato", BECCATO_TABLE, [*EGGS_UP, "signal Blus star-1"], "VariantNotInPlay", "not played here"),
        ("beccaccino", TRICK_SETUPS["beccaccino"], ["declar Anna spade"], "MalformedAction", "did you mean declare?"),
        ("beccaccino", TRICK_SETUPS["beccaccino"], ["declare Ana spade"], "PlayerNotInGame", "did you mean Anna?"),
        ("beccaccino", TRICK_SETUPS["beccaccino"], ["declare Anna spad"], "MalformedAction", "did you mean spade?"),
        (
            "beccaccino",
            TRICK_SETUPS["beccaccino"],
            ["declare Anna spade", "play Anna re di copppe"],
            "MalformedAction",
            "did you mean Re di coppe (RC)?",
        ),
        (
            "beccaccino",
            TRICK_SETUPS["beccaccino"],
            ["declare Anna spade", "play Anna RC vollo"],
            "MalformedAction",
            "did you mean volo?",
        ),
        ("bestia", TRICK_SETUPS["bestia-classic"], ["knok Ben"], "MalformedAction", "did you mean knock?"),
        ("bestia", TRICK_SETUPS["bestia-classic"], ["trump 10Z"], "MalformedAction", "ranks A 2 3 4 5 6 7 J Q K"),
        ("bestia", TRICK_SETUPS["bestia-classic"], ["trump kign of spades"], "MalformedAction", "King of spades (KS)"),
    ],
)
def test_a_refusal_says_what_was_meant(game: str, setup: dict, lines: list[str], name: str, words: str) -> None:
    error = refusal(game, setup, lines)
    assert error.name == name
    text = say_error(error)
    assert words in text, text
    assert name not in text and "Error" not in text  # the rule's name stays in error.name
    assert text[-1] in ".?!" and "{" not in text and "=" not in text, text


def test_a_refusal_never_says_a_card_it_must_keep_secret() -> None:
    """A refused card names the rule broken, never the card the rule required (it stays in
    the details, which say_error does not read) nor a hand."""
    from referee.tricks.policies import HIDDEN_DETAILS

    error = RefereeError("Anna must play her highest trump", required="AS", hand=["AS", "KS"], player="Anna")
    assert "AS" not in say_error(error) and "KS" not in say_error(error)
    assert "required" in HIDDEN_DETAILS


def test_the_hint_is_a_usage_line_or_help() -> None:
    reason, advice = say_error_parts(MalformedAction("take takes 2-2 words, got 1", hint="usage: take TEAM SOURCE"))
    assert (reason, advice) == ("Take takes 2-2 words, got 1.", "Usage: take TEAM SOURCE.")
    _, advice = say_error_parts(MalformedAction("unknown command 'x'", hint="a  b\nc  d"))
    assert advice == "Type 'help' for the commands."
    _, advice = say_error_parts(MalformedAction("x", hint="play PLAYER CARD     a card"))
    assert advice == "Usage: play PLAYER CARD: a card."


def test_suggest() -> None:
    assert suggest("cocode", ["coccode", "caught"]) == "did you mean coccode?"
    assert suggest("CLAUDIA", ["Claudia"]) is None  # the same name, only in another case
    assert suggest("zzz", ["coccode", "caught"]) is None
    assert closest("coccodè", ["coccode"]) == "coccode"
    assert closest("Greens", ["Reds", "Blues"]) is None
    assert closest("padovan", CARD_NAMES) == "padovana"


def test_a_question_is_a_one_tap_yes_or_no() -> None:
    engine = get_engine("beccaccino")
    question = say_question(
        engine,
        12,
        {"kind": "play", "player": "Anna", "card": "RC", "call": "volo"},
        reasoning="RC was laid face up in the trick zone; it is Anna's turn",
        confidence=0.72,
        alternative={"kind": "play", "player": "Anna", "card": "RC", "call": None},
    )
    assert question == (
        "Question 12: Anna plays Re di coppe and says Volo (fly)? The referee is 72% sure. RC was laid face up "
        "in the trick zone; it is Anna's turn. Answer yes 12 or no 12. No records instead: Anna plays Re di coppe."
    )
    unread = say_question(engine, 3, None, reasoning="2 of the cards could not be read")
    assert unread.startswith("Question 3: the referee could not tell") and "Type it" in unread
    beccato = get_engine("beccato")
    hidden = say_question(beccato, 4, {"kind": "pass", "player": "Anna", "card": "orloff"}, viewer=PUBLIC)
    assert "rloff" not in hidden
