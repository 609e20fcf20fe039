"""Every named violation is reached, and none changes the state."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.beccato import ENGINE, ChangeSignal, DrawEgg, Pass, PlaceEgg, Reveal
from referee.beccato import violations as V
from referee.core import Action

from .helpers import fill_henhouses, new_table, play, random_game, rulebook_setup

HENHOUSE_EGGS = ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"]


def partial(*lines, **options):
    state = new_table(options=options) if options else new_table()
    fill_henhouses(state, HENHOUSE_EGGS)
    play(state, lines)
    return state


def full(*lines, **options):
    state = new_table(seed=3, options=options)
    while state.phase == "draw":
        state.apply(DrawEgg(state.deck[0]))
    play(state, lines)
    return state


def over():
    state, _ = random_game(rulebook_setup(seed=11), random.Random(11))
    assert state.is_over
    return state


def not_in_hand():
    state = full()
    absent = next(c for c in sorted(state.table.composition) if c not in state.hands["Nicola"])
    return state, Pass("Nicola", absent)


def known_hand_of_four():
    """Four players; cards passed face up until b's whole hand of four is known."""
    state = ENGINE.new_game({"players": ["a", "b", "c", "d"]})
    fill_henhouses(state, ["moon-1", "moon-2", "moon-3"])
    play(
        state,
        [
            f"pass {p} {c}"
            for p, c in [
                ("a", "orloff"),
                ("b", "padovana"),
                ("c", "padovana"),
                ("d", "padovana"),
                ("a", "orloff"),
                ("b", "brahma"),
                ("c", "brahma"),
                ("d", "brahma"),
                ("a", "orloff"),
                ("b", "serama"),
                ("c", "serama"),
                ("d", "serama"),
                ("a", "padovana"),
            ]
        ],
    )
    assert sorted(state.hands["b"]) == ["orloff", "orloff", "orloff", "padovana"]
    return state


def not_on_top():
    state = new_table(seed=3)
    return state, DrawEgg(state.deck[1])


@dataclasses.dataclass(frozen=True)
class Juggle(Action):
    kind = "juggle"


WRONG_CAUGHT_OF_REDS = ["caught Simona Nicola", "reveal Nicola orloff padovana brahma", "egg star-1"]
CASES = [
    # (expected violation, state factory, scorekeeper line or action)
    (V.GameAlreadyOver, over, "coccode Nicola"),
    (V.MalformedAction, partial, Juggle()),
    (V.PlayerNotInGame, partial, "pass Zorro"),
    (V.PlayerNotInGame, lambda: partial("coccode Nicola"), "reveal Zorro orloff orloff orloff"),
    (V.CallerNotInGame, partial, "coccode Zorro"),
    (V.CallerNotInGame, partial, "caught Zorro Simona"),
    (V.PlayerNotInGame, partial, "caught Simona Zorro"),
    (V.TeamNotInGame, lambda: partial(signal_change=True), ChangeSignal("Greens", "star-1")),
    (V.WrongTeam, partial, "caught Nicola Claudia"),
    (V.WrongTeam, partial, "caught Nicola Nicola"),
    (V.NotYourTurn, partial, "pass Simona"),
    (
        V.NotYourChoice,
        lambda: partial("caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"),
        "take Reds deck",
    ),
    (V.CallInProgress, lambda: partial("coccode Nicola"), "coccode Simona"),
    (V.CallInProgress, lambda: partial("caught Simona Nicola"), "pass Nicola"),
    (V.AwardOutOfOrder, lambda: partial("caught Simona Nicola"), "take Blues deck"),
    (V.NotHoldingFour, lambda: partial("pass Nicola"), "chicchirichi Nicola"),
    (V.OutOfOrder, lambda: new_table(), "pass Nicola"),
    (V.OutOfOrder, partial, "egg star-1"),
    (V.OutOfOrder, partial, "reveal Nicola orloff orloff orloff"),
    (V.OutOfOrder, partial, "take Reds deck"),
    (V.OutOfOrder, lambda: partial(egg_pyramid=True), PlaceEgg("Reds", "star-1", "b1")),
    (V.OutOfOrder, partial, "pile"),
    (V.AwardOutOfOrder, lambda: partial(*WRONG_CAUGHT_OF_REDS, egg_pyramid=True), "egg star-2"),
    (V.NotAskedToReveal, lambda: partial("coccode Nicola"), "reveal Simona orloff orloff orloff"),
    (V.CardNotInDeck, lambda: partial("coccode Nicola"), "reveal Claudia sussex sussex sussex"),
    (V.CardNotInDeck, lambda: partial("coccode Nicola"), "reveal Claudia unicorn orloff orloff"),
    (V.CardNotInDeck, partial, "pass Nicola sussex"),
    (V.CardNotInHand, not_in_hand, None),
    (V.CardNotInHand, known_hand_of_four, "pass b brahma"),
    (V.CardRequired, full, "pass Nicola"),
    (V.TooManyOfBreed, lambda: partial("coccode Nicola"), "reveal Claudia orloff orloff orloff orloff"),
    (
        V.CardAlreadySeen,
        lambda: partial("coccode Nicola", "reveal Claudia orloff orloff orloff"),
        "reveal Cecilia orloff padovana brahma",
    ),
    (
        V.CardAlreadySeen,
        lambda: partial(
            "pass Nicola orloff",
            "pass Simona padovana",
            "pass Claudia orloff",
            "pass Federico padovana",
            "pass Cecilia orloff",
            "pass Mariano padovana",
        ),
        "pass Nicola orloff",
    ),
    (V.RevealWrongSize, lambda: partial("coccode Nicola"), "reveal Claudia orloff orloff"),
    (
        V.RevealWrongSize,
        lambda: partial("coccode Nicola", "reveal Claudia orloff orloff orloff serama"),
        "reveal Cecilia padovana padovana brahma serama",
    ),
    (V.RevealDoesNotMatchHand, lambda: full("coccode Nicola"), "reveal Claudia orloff orloff orloff"),
    (
        V.RevealDoesNotMatchHand,
        lambda: partial("pass Nicola orloff", "caught Nicola Simona"),
        "reveal Simona padovana padovana padovana serama",
    ),
    (V.EggNotInDeck, lambda: new_table(), "egg zebra-9"),
    (
        V.EggNotInDeck,
        lambda: partial(
            "coccode Nicola", "reveal Claudia orloff orloff orloff", "reveal Cecilia padovana brahma serama"
        ),
        "egg moon-2",
    ),
    (V.EggNotOnTop, not_on_top, None),
    (
        V.EggSourceNotAllowed,
        lambda: partial("caught Simona Cecilia", "reveal Cecilia padovana padovana padovana"),
        "take Blues chick",
    ),
    (V.NoFaceUpEgg, lambda: partial(signal_change=True), "signal Reds moon-1"),
    (V.EggNotFaceUp, lambda: partial(*WRONG_CAUGHT_OF_REDS, signal_change=True), "signal Reds moon-1"),
    (
        V.PyramidPlaceNotAllowed,
        lambda: partial("caught Simona Nicola", "reveal Nicola orloff padovana brahma", "egg star-1", egg_pyramid=True),
        "place Reds star-1 top",
    ),
    (V.VariantNotInPlay, lambda: partial(*WRONG_CAUGHT_OF_REDS), "signal Reds star-1"),
    (V.VariantNotInPlay, partial, "coccode Nicola orloff"),
    (V.VariantNotInPlay, partial, PlaceEgg("Reds", "star-1", "b1")),
    (V.BreedRequired, lambda: partial(calling_chickens=True), "coccode Nicola"),
    (V.UnknownSignal, lambda: partial(*WRONG_CAUGHT_OF_REDS, signal_change=True), "signal Reds star-1 juggle"),
    (V.UnknownSignal, lambda: partial(*WRONG_CAUGHT_OF_REDS, signal_change=True), "signal Reds star-1 free"),
    (
        V.NotYourChoice,
        lambda: partial("caught Simona Nicola", "reveal Nicola orloff padovana brahma", "egg star-1", egg_pyramid=True),
        "place Blues star-1 b1",
    ),
]


def _case_id(case):
    return case[0].__name__


@pytest.mark.parametrize("expected, factory, action", CASES, ids=[_case_id(c) for c in CASES])
def test_violation_is_named_and_changes_nothing(expected, factory, action):
    made = factory()
    state, action = made if isinstance(made, tuple) else (made, action)
    if isinstance(action, str):
        action = ENGINE.parse_command(state, action)
    before = state.snapshot()
    assert not state.can(action)
    with pytest.raises(expected) as info:
        state.apply(action)
    assert type(info.value) is expected
    assert info.value.to_dict()["error"] == expected.__name__
    assert state.snapshot() == before


def test_every_violation_is_reached_by_a_case():
    reached = {case[0] for case in CASES}
    named = {getattr(V, n) for n in V.__all__ if issubclass(getattr(V, n), V.Violation)} - {V.Violation}
    assert named - reached == set()


@pytest.mark.parametrize(
    "setup, expected",
    [
        ({"players": ["a", "b", "c"]}, V.BadPlayerCount),
        ({"players": [f"p{i}" for i in range(10)]}, V.BadPlayerCount),
        ({"players": "abcd"}, V.BadPlayerCount),
        ({"players": ["a", "b", "A", "c"]}, V.BadTeams),
        ({"players": ["a", "b", "?", "c"]}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a"], "y": ["b", "c", "d"]}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "c"], "y": ["b"]}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "c"], "y": ["b", "z"]}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "b", "c", "d"]}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "c"], "y": ["b", "d"], "z": []}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "c"], "a": ["b", "d"]}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": ["a", "c"]}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "guilds": {"dollar": "pig"}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "guilds": {"dollar": "star"}}, V.BadTeams),
        ({"players": ["a", "b", "c", "d"], "teams": {"x": ["a", "b"], "y": ["c", "d"]}}, V.SeatingNotAlternating),
        ({"players": ["a", "b", "c", "d"], "options": {"fly": True}}, V.UnknownOption),
        ({"players": ["a", "b", "c", "d"], "options": {"pass_direction": "up"}}, V.BadOption),
        ({"players": ["a", "b", "c", "d"], "options": {"egg_pyramid": 1}}, V.BadOption),
        ({"players": ["a", "b", "c", "d"], "options": {"five_player": True}}, V.BadOption),
        ({"players": ["a", "b", "c", "d"], "options": ["x"]}, V.BadOption),
        ({"players": ["a", "b", "c", "d"], "breeds": ["orloff", "orloff", "brahma"]}, V.BadDeal),
        ({"players": ["a", "b", "c", "d"], "breeds": "orloff"}, V.BadDeal),
        ({"players": ["a", "b", "c", "d"], "eggs": ["star-1"]}, V.BadDeal),
        ({"players": ["a", "b", "c", "d"], "eggs": "star-1"}, V.BadDeal),
        ({"players": ["a", "b", "c", "d"], "deals": "x"}, V.BadDeal),
        ({"players": ["a", "b", "c", "d"], "deals": [{"a": []}]}, V.BadDeal),
        (
            {
                "players": ["a", "b", "c", "d"],
                "deals": [{"a": ["orloff"] * 4, "b": ["padovana"] * 3, "c": ["brahma"] * 3, "d": ["serama"] * 3}],
            },
            V.BadDeal,
        ),
        (
            {
                "players": ["a", "b", "c", "d"],
                "deals": [{"a": ["orloff"] * 3, "b": ["padovana"] * 3, "c": ["brahma"] * 3, "d": ["serama"] * 3}],
            },
            V.BadDeal,
        ),
        ({"players": ["a", "b", "c", "d"], "signals": {"dollar": "juggle"}}, V.BadSignal),
        ({"players": ["a", "b", "c", "d"], "signals": {"dollar": "free"}}, V.BadSignal),
        ({"players": ["a", "b", "c", "d"], "signals": {"greens": "hum"}}, V.BadSignal),
        ({"players": ["a", "b", "c", "d"], "dealer": "z"}, V.SetupError),
        ({"players": ["a", "b", "c", "d"], "seed": "x"}, V.SetupError),
        ({"players": ["a", "b", "c", "d"], "colour": "red"}, V.SetupError),
        (["a", "b", "c", "d"], V.SetupError),
    ],
)
def test_bad_setups_are_named(setup, expected):
    with pytest.raises(expected) as info:
        ENGINE.new_game(setup)
    assert type(info.value) is expected


def test_every_setup_error_is_reached():
    params = [m.args for m in test_bad_setups_are_named.pytestmark if m.name == "parametrize"][0][1]
    reached = {expected for _setup, expected in params}
    named = {getattr(V, n) for n in V.__all__ if issubclass(getattr(V, n), V.SetupError)}
    assert named - reached == set()


def test_reveal_of_wrong_type_is_malformed():
    state = partial("coccode Nicola")
    with pytest.raises(V.MalformedAction):
        state.apply(Reveal("Claudia", "orloff orloff orloff"))


def _json_values():
    names = st.sampled_from(["a", "b", "c", "d", "e", "f", "dollar", "star", "orloff", "serama", "hum", "?", ""])
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-2, 12), names)
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(names, inner, max_size=4)),
        max_leaves=12,
    )


def _setups():
    values = _json_values()
    players = st.one_of(st.just(["a", "b", "c", "d"]), st.just(["a", "b", "c", "d", "e"]), values)
    keys = ["teams", "guilds", "options", "signals", "dealer", "breeds", "seed", "deals", "eggs"]
    return st.builds(
        lambda p, extra: {"players": p, **extra},
        players,
        st.dictionaries(st.sampled_from(keys), values, max_size=3),
    )


def test_any_json_setup_is_a_game_or_a_named_setup_error():
    @settings(max_examples=200, deadline=None)
    @given(setup=_setups())
    def check(setup):
        try:
            state = ENGINE.new_game(setup)
        except V.SetupError:
            return
        assert state.round == 1

    check()
