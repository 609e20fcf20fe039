"""Table options in all three engines: one mechanism (`referee.core.read_table_options`) reads
every option as its declared type, so a value of the wrong type is a named setup error that
names the option and the expected type, never a Python error."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.beccaccino.game import OPTIONS as BECCACCINO_OPTIONS
from referee.beccato.table import OPTIONS as BECCATO_OPTIONS
from referee.bestia.variants import CLASSIC, options_for
from referee.core import RefereeError, TableOption, get_engine, read_table_options
from referee.tricks import BadOption, UnknownOption

PLAYERS = {"beccato": ["Ada", "Bea", "Cy", "Dan"], "beccaccino": ["Ada", "Bea", "Cy", "Dan"], "bestia": ["A", "B", "C"]}
DECLARED = {
    "beccato": BECCATO_OPTIONS,
    "beccaccino": BECCACCINO_OPTIONS,
    "bestia": options_for(CLASSIC, PLAYERS["bestia"]),
}


def new_game(game: str, **options: object) -> object:
    return get_engine(game).new_game({"players": PLAYERS[game], "options": options})


def test_a_payment_cap_that_is_not_a_number_is_a_named_error():
    # `referee play bestia --option cap=lots` was a TypeError traceback
    with pytest.raises(BadOption) as info:
        new_game("bestia", cap="lots")
    assert info.value.details["option"] == "cap"
    assert str(info.value) == "BadOption: option cap='lots': expected a whole number or none"


@pytest.mark.parametrize(
    "game, option, value, expected",
    [
        ("bestia", "stake", "lots", "a whole number"),
        ("bestia", "stake", math.inf, "a whole number"),
        ("bestia", "stake", 2.5, "a whole number"),
        ("bestia", "buco", 5, "true or false"),
        ("bestia", "without_twos", "maybe", "true or false or none"),
        ("bestia", "dealer", 7, "a player's name or none"),
        ("beccaccino", "target", "lots", "one of 41, 31"),
        ("beccaccino", "dealer", ["Ada"], "a player's name or none"),
        ("beccato", "egg_pyramid", "lots", "true or false"),
        ("beccato", "pass_direction", 3, "one of left, right"),
        ("beccato", "five_player", "maybe", "true or false or none"),
    ],
)
def test_a_value_of_the_wrong_type_names_the_option_and_the_type(game, option, value, expected):
    with pytest.raises(RefereeError) as info:
        new_game(game, **{option: value})
    assert info.value.name == "BadOption"
    assert info.value.details["option"] == option and info.value.details["expected"] == expected
    assert f"option {option}=" in info.value.message and expected in info.value.message


@pytest.mark.parametrize(
    "game, option, value, read",
    [
        ("bestia", "cap", "30", 30),
        ("bestia", "cap", "none", None),
        ("bestia", "stake", 6.0, 6),
        ("bestia", "buco", "yes", True),
        ("bestia", "variant", "julepe", "julepe"),
        ("beccaccino", "target", "31", 31),
        ("beccato", "egg_pyramid", "on", True),
        ("beccato", "caught_reward", "deck", "deck"),
    ],
)
def test_a_value_typed_as_text_is_read_as_the_options_type(game, option, value, read):
    state = new_game(game, **{option: value})
    options = state.table.options if game == "beccato" else state.options
    assert options[option] == read


def test_an_unknown_option_is_named_in_every_engine():
    for game in PLAYERS:
        with pytest.raises(RefereeError) as info:
            new_game(game, turbo=True)
        assert info.value.name == "UnknownOption" and "turbo" in info.value.message


def test_the_options_are_an_object():
    for game in PLAYERS:
        with pytest.raises(RefereeError) as info:
            get_engine(game).new_game({"players": PLAYERS[game], "options": ["cap", 3]})
        assert info.value.name == "BadOption"


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["yes", "no", "none", "auto", "3", "-3", "41", "31", "left", "deck", "julepe", "Ada", "A"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(game=st.sampled_from(sorted(PLAYERS)), data=st.data(), value=VALUES)
def test_any_value_of_any_option_gives_a_game_or_a_named_setup_error(game, data, value):
    option = data.draw(st.sampled_from(sorted(DECLARED[game])))
    try:
        new_game(game, **{option: value})
    except RefereeError as exc:
        assert exc.name in ("BadOption", "UnknownOption", "BadPlayerCount", "SetupError")
        assert exc.details.get("option") == option or exc.name == "BadPlayerCount"


def test_the_reader_alone():
    declared = {"n": TableOption(1, int), "f": TableOption(False, bool), "w": TableOption("a", str, choices=("a", "b"))}
    assert read_table_options(None, declared, BadOption, UnknownOption) == {"n": 1, "f": False, "w": "a"}
    assert read_table_options({"n": "+4", "f": "sì", "w": "b"}, declared, BadOption, UnknownOption) == {
        "n": 4,
        "f": True,
        "w": "b",
    }
    with pytest.raises(BadOption):
        read_table_options({"n": None}, declared, BadOption, UnknownOption)  # not nullable
    with pytest.raises(BadOption):
        read_table_options({"n": True}, declared, BadOption, UnknownOption)  # a bool is not a number
    with pytest.raises(UnknownOption):
        read_table_options({"m": 1}, declared, BadOption, UnknownOption)
