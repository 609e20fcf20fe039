"""Property tests over random full-knowledge games, every variant combination.

At every step: all chicken cards and all 28 eggs are accounted for, the Chick is in one place,
the game is over exactly when the rules say; every illegal probe raises a named violation and
leaves the snapshot unchanged. At the end: points recomputed by a separate small scorer match,
and replaying the actions (through their JSON form) on a fresh state gives an equal snapshot.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.beccato import EGGS, ENGINE, GUILDS
from referee.beccato import actions as A
from referee.beccato import violations as V
from referee.beccato.table import alternating

from .helpers import choose, fill_henhouses, new_table, play

SPLITS = {
    4: [[2, 2]],
    5: [[3, 2]],
    6: [[3, 3], [2, 2, 2]],
    7: [[3, 2, 2]],
    8: [[3, 3, 2], [2, 2, 2, 2]],
    9: [[3, 3, 3], [3, 2, 2, 2]],
}
ALL_SPLITS = [(n, sizes) for n, splits in SPLITS.items() for sizes in splits]


def make_setup(sizes: list[int], seed: int, options: dict) -> dict:
    seats = alternating(sizes)
    players = [f"P{i}" for i in range(len(seats))]
    teams = {f"T{t}": [p for p, s in zip(players, seats) if s == t] for t in range(len(sizes))}
    return {"players": players, "teams": teams, "seed": seed, "options": options}


# -- a separate, deliberately plain scorer ------------------------------------------------------
def expected_points(entries: list[dict], guild: str, options: dict) -> tuple[int, bool]:
    def value(e):
        if e is None or e == "G" or not e["face_up"]:
            return 0
        if e["egg"] == "chick":
            return 5
        return 2 if e["egg"].split("-")[0] == guild else 1

    def ours(e):
        return e == "G" or (e is not None and e["face_up"] and e["egg"].split("-")[0] == guild)

    if not options.get("egg_pyramid"):
        return sum(value(e) for e in entries), False
    grid = {e["place"]: e for e in entries}
    places = ["b1", "b2", "b3", "m1", "m2", "top"]
    missing = [p for p in places if p not in grid]
    excluded = False
    if options.get("pyramid_guild_fill", True):
        if len(missing) > 3:
            excluded = True
        else:
            grid.update({p: "G" for p in missing})
    total = 0
    for row in (["b1", "b2", "b3"], ["m1", "m2"], ["top"]):
        cells = [grid.get(p) for p in row]
        points = sum(value(c) for c in cells)
        full_row = all(c is not None for c in cells)
        if options.get("pyramid_level_bonus", True) and full_row and (row == ["top"] or all(ours(c) for c in cells)):
            points *= 2
        total += points
    return total, excluded


def expected_winners(state) -> list[str]:
    options = state.table.options
    best = []
    table = {}
    for team, entries in state.collections.items():
        guild = state.table.guilds[team]
        points, excluded = expected_points(entries, guild, options)
        own = sum(1 for e in entries if e["face_up"] and e["egg"].split("-")[0] == guild)
        if not excluded:
            table[team] = (points, own)
    if table:
        top = max(table.values())
        best = [t for t, v in table.items() if v == top]
    return best


# -- invariants ---------------------------------------------------------------------------------
def check_invariants(state) -> None:
    held = [e["egg"] for entries in state.collections.values() for e in entries if e["egg"] != "chick"]
    on_houses = [e for e in state.henhouses.values() if e is not None]
    assert sorted(state.deck + on_houses + held) == sorted(EGGS)
    cards = sum((Counter(h) for h in state.hands.values()), Counter())
    assert cards == state.table.composition
    if state.table.options["egg_pyramid"]:
        chicks = sum(1 for entries in state.collections.values() for e in entries if e["egg"] == "chick")
        assert chicks + state.chick_available == 1
        for entries in state.collections.values():
            assert len({e["place"] for e in entries if e["place"]}) == sum(1 for e in entries if e["place"])
    counts = [len(entries) for entries in state.collections.values()]
    any_egg_left = bool(state.deck) or bool(on_houses)
    if state.is_over:
        assert max(counts) >= 6 or not any_egg_left
        assert state.legal_actions() == []
    elif state.phase == "play":
        assert max(counts) < 6 and any_egg_left
        sizes = Counter(len(h) for s, h in state.hands.items())
        assert sizes[4] == 1 and len(state.hands[state.holder]) == 4


def probes(state, rng: random.Random) -> list[A.Action]:
    players = list(state.table.players)
    teams = list(state.table.teams)
    cards = sorted(state.table.composition) + ["sussex", "unicorn"]
    return [
        A.Pass(rng.choice(players), rng.choice(cards)),
        A.Coccode(rng.choice(players + ["Zorro"]), rng.choice([None, "orloff"])),
        A.Caught(rng.choice(players), rng.choice(players)),
        A.Chicchirichi(rng.choice(players)),
        A.Reveal(rng.choice(players), tuple(rng.choice(cards) for _ in range(rng.choice([2, 3, 4])))),
        A.ShowCards(rng.choice(players), tuple(rng.choice(cards) for _ in range(rng.choice([1, 2, 5])))),
        A.DrawEgg(rng.choice(EGGS)),
        A.TakeEgg(rng.choice(teams), rng.choice(["deck", "chick", "orloff", "sussex"])),
        A.PlaceEgg(rng.choice(teams), rng.choice(EGGS), rng.choice(["b1", "m1", "top", "x"])),
        A.ChangeSignal(rng.choice(teams), rng.choice(EGGS)),
        A.DrawFromPile(rng.choice(cards)),
    ]


def play_and_check(setup: dict, rng: random.Random, probe_every: int = 5) -> None:
    state = ENGINE.new_game(setup)
    history = []
    check_invariants(state)
    while not state.is_over:
        assert len(history) < 3000, "a random game should end"
        if len(history) % probe_every == 0:
            for probe in probes(state, rng):
                if state.can(probe):
                    continue
                before = state.snapshot()
                with pytest.raises(V.Violation):
                    state.apply(probe)
                assert state.snapshot() == before
        action = choose(state, rng, pass_bias=0.85)
        history.append(action)
        state.apply(action)
        check_invariants(state)
    # points, recomputed
    for team, score in state.result["scores"].items():
        points, excluded = expected_points(state.collections[team], state.table.guilds[team], state.table.options)
        assert (score["points"], score["excluded"]) == (points, excluded)
    assert state.result["winners"] == expected_winners(state)
    assert state.result["shared"] == (len(state.result["winners"]) > 1)
    # replay through JSON
    wire = json.dumps([ENGINE.codec.to_dict(a) for a in history])
    again = ENGINE.new_game(json.loads(json.dumps(setup)))
    for data in json.loads(wire):
        again.apply(ENGINE.codec.from_dict(data))
    assert again.snapshot() == state.snapshot()


VARIANTS = st.fixed_dictionaries(
    {
        "pass_direction": st.sampled_from(["left", "right"]),
        "caught_reward": st.sampled_from(["choice", "deck"]),
        "serama_triple_counts": st.booleans(),
        "signal_change": st.booleans(),
        "free_signal": st.booleans(),
        "calling_chickens": st.booleans(),
        "egg_pyramid": st.booleans(),
        "pyramid_level_bonus": st.booleans(),
        "pyramid_guild_fill": st.booleans(),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(split=st.sampled_from(ALL_SPLITS), seed=st.integers(0, 10**6), options=VARIANTS)
def test_random_full_games_keep_every_invariant(split, seed, options):
    _n, sizes = split
    play_and_check(make_setup(sizes, seed, options), random.Random(seed))


MAIN_VARIANTS = ["signal_change", "free_signal", "calling_chickens", "egg_pyramid"]


@pytest.mark.parametrize("players", [5, 6])
@pytest.mark.parametrize(
    "flags",
    list(itertools.product([False, True], repeat=len(MAIN_VARIANTS))),
    ids=lambda f: "".join("x" if v else "-" for v in f),
)
def test_every_variant_combination_plays_to_the_end(players, flags):
    options = dict(zip(MAIN_VARIANTS, flags))
    seed = players * 100 + sum(2**i for i, f in enumerate(flags) if f)
    play_and_check(make_setup(SPLITS[players][0], seed, options), random.Random(seed), probe_every=10)


def test_default_splits_alternate_wherever_possible():
    for n, splits in SPLITS.items():
        for sizes in splits:
            seats = alternating(sizes)
            ring = seats + ([None] if n == 5 else [])
            adjacent = sum(1 for a, b in zip(ring, ring[1:] + ring[:1]) if a is not None and a == b)
            assert adjacent == 0, (n, sizes, seats)
            state = ENGINE.new_game(make_setup(sizes, 1, {}))
            assert len(state.henhouses) == (5 if n == 5 else n - 1)
            assert sum(state.table.composition.values()) == 3 * len(state.henhouses) + 4
    assert set(GUILDS) >= {t for t in ENGINE.new_game({"players": list("abcdefghi")}).table.teams}


# -- anything a log or a web request might carry -------------------------------------------------
def _states():
    def partial_play():
        state = new_table(options={"egg_pyramid": True, "signal_change": True})
        fill_henhouses(state, ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5"])
        play(state, ["caught Simona Nicola", "reveal Nicola orloff padovana brahma", "egg star-1"])
        return state

    def partial_reveal():
        state = partial_play()
        play(state, ["place Reds star-1 b1", "coccode Nicola"])
        return state

    def full_choose():
        state = new_table(seed=5, options={"calling_chickens": True})
        while state.phase == "draw":
            play(state, [f"egg {state.deck[0]}"])
        return state

    return [partial_play, partial_reveal, full_choose]


WORDS = [
    "Nicola",
    "Simona",
    "Claudia",
    "Reds",
    "Blues",
    "orloff",
    "serama",
    "sussex",
    "deck",
    "chick",
    "star-1",
    "moon-1",
    "b1",
    "m1",
    "top",
    "hum",
    "free",
    "?",
    "",
]
VALUES = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.booleans(),
    st.sampled_from(WORDS),
    st.text(max_size=6),
    st.lists(st.sampled_from(WORDS[5:8] + ["padovana", "brahma"]), max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@settings(max_examples=150, deadline=None)
@given(factory=st.sampled_from(_states()), kind=st.sampled_from(sorted(ENGINE.codec.classes)), data=st.data())
def test_any_decoded_action_is_applied_or_named_and_never_half_applied(factory, kind, data):
    state = factory()
    cls = ENGINE.codec.classes[kind]
    fields = {f.name: data.draw(VALUES, label=f.name) for f in dataclasses.fields(cls)}
    try:
        action = ENGINE.codec.from_dict({"kind": kind, **fields})
    except V.MalformedAction:
        return
    before = state.snapshot()
    try:
        state.apply(action)
    except V.Violation:
        assert state.snapshot() == before


@pytest.mark.parametrize("factory", _states(), ids=lambda f: f.__name__)
def test_every_mistyped_field_is_malformed_in_every_phase(factory):
    state = factory()
    before = state.snapshot()
    good = {
        "player": "Nicola",
        "caller": "Nicola",
        "target": "Simona",
        "team": "Reds",
        "egg": "star-1",
        "card": "orloff",
        "breed": "orloff",
        "cards": ["orloff"] * 3,
        "source": "deck",
        "place": "b2",
        "signal": "hum",
    }
    for kind, cls in ENGINE.codec.classes.items():
        for field in dataclasses.fields(cls):
            for bad in ([], ["x"], 3, {"a": 1}, [1, 2, 3]):
                if field.name == "cards" and bad in ([], ["x"]):
                    continue  # a list of strings: the state names what is wrong with it
                fields = {f.name: good[f.name] for f in dataclasses.fields(cls)}
                fields[field.name] = bad
                action = ENGINE.codec.from_dict({"kind": kind, **fields})
                with pytest.raises(V.MalformedAction):
                    state.apply(action)
                assert state.snapshot() == before
