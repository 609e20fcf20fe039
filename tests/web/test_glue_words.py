"""What the screens read: each sentence of an event once, and the waiting line in words only (the
phones have buttons; the terminal's commands are the terminal's)."""

from __future__ import annotations

import pytest

from referee.core import RefereeError, get_engine
from tablereferee.web import words
from tablereferee.web.auth import PUBLIC_GRANT
from tests.web.conftest import EGGS


def test_an_event_says_each_sentence_once(hub, keeper) -> None:
    for line in [*EGGS, "coccode Anna", "reveal Carla orloff orloff orloff"]:
        assert keeper.submit(line, time=1_001.0).accepted, line
    hub.changed()
    events = hub.table_view(PUBLIC_GRANT)["events"]
    called, shown = events[-2], events[-1]
    assert called["text"] == "Anna calls Coccodé: Carla shows their hand."
    assert called["lines"] == [called["text"]]
    assert shown["text"].count("Carla shows three Orloff.") == 1
    assert shown["text"].startswith("Carla shows three Orloff. Anna's Coccodé is right (three Orloff)")
    assert shown["lines"][0] == "Carla shows three Orloff." and shown["lines"][1].startswith("Anna's Coccodé")
    for event in events:
        assert len(event["lines"]) == len(set(event["lines"])), event


@pytest.mark.parametrize(
    "phrase, said",
    [
        (
            "Blues to choose an egg from the Orloff henhouse or the deck: `take Blues orloff`, or `take Blues deck`",
            "Blues to choose an egg from the Orloff henhouse or the deck.",
        ),
        (
            "play to go on: Anna holds four cards and passes one (`pass Anna`, or `pass Anna CARD` when the card is"
            " seen), or a call (coccode, caught, chicchirichi)",
            "Play to go on: Anna holds four cards and passes one, or a call (coccode, caught, chicchirichi).",
        ),
        ("the hand of Carla: `reveal Carla CARD CARD CARD`", "The hand of Carla."),
        (
            "the egg turned up from the deck for henhouse padovana: `egg EGG` (e.g. egg star-3)",
            "The egg turned up from the deck for henhouse padovana.",
        ),
        ("Dan to change cards: `gioco Dan CARD CARD` (the cards discarded) or `gioco Dan N`", "Dan to change cards."),
        ("a card (`pile`, or `pile CARD`) or a call", "A card or a call."),
        ("Anna to speak: `knock Anna`, `pass Anna`", "Anna to speak."),
        ("nothing more: the game is over", "Nothing more: the game is over."),
    ],
)
def test_the_waiting_line_keeps_the_words_and_drops_the_commands(phrase: str, said: str) -> None:
    assert words.words_only(phrase) == said


@pytest.mark.parametrize(
    "game, setup",
    [
        ("beccato", {"players": ["Anna", "Ben", "Carla", "Dan"]}),
        ("beccaccino", {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 3}),
        ("bestia", {"players": ["Anna", "Ben", "Carla"], "seed": 3}),
    ],
)
def test_every_games_waiting_line_on_a_screen_has_no_command(game: str, setup: dict) -> None:
    engine = get_engine(game)
    state = engine.new_game(setup)
    for _ in range(12):  # the first steps of a game: each waiting line in words
        text = words.waiting_text(engine, state)
        assert text and "`" not in text and "CARD" not in text and text.endswith("."), text
        if state.is_over:
            break
        for action in state.legal_actions():  # the first that the state takes (an unseen deal offers every card)
            try:
                state.verify(action)
            except RefereeError:
                continue
            state.apply(action)
            break
        else:
            break
