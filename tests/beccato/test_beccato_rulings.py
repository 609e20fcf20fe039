"""B15 (hand sizes under partial knowledge) and the named refusals after a call.

The worked examples are the tries that the referee used to accept: a four-card reveal from a
three-card seat, a Chicchirichì from a three-card seat, a three-card reveal from the four-card
holder, all with the passes reported; and the generic `OutOfOrder` that answered a henhouse egg
taken under `caught_reward=deck`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.beccato import ENGINE, BeccatoState, Caught, Chicchirichi, DrawEgg, Pass, Reveal
from referee.beccato import violations as V
from referee.beccato.cards import copies

from .helpers import fill_henhouses, play

# Ada and Cy (dollar) against Bea and Dan (star); Ada deals; a pass goes Ada, Bea, Cy, Dan.
FOUR = ["Ada", "Bea", "Cy", "Dan"]


def table(*lines: str, **options: object) -> BeccatoState:
    state = ENGINE.new_game({"players": FOUR, "options": options})
    fill_henhouses(state, ["moon-1", "moon-2", "moon-3"])
    play(state, lines)
    return state


def refused(state: BeccatoState, line: str, error: type[V.Violation]) -> V.Violation:
    before = state.snapshot()
    with pytest.raises(error) as info:
        state.apply(ENGINE.parse_command(state, line))
    assert type(info.value) is error
    assert state.snapshot() == before
    return info.value


# -- B15: worked examples ------------------------------------------------------------------
def test_a_four_card_reveal_from_a_three_card_seat_is_refused_once_passes_are_reported():
    state = table("pass Ada", "pass Bea", "caught Ada Bea")  # Cy holds four, Bea three
    error = refused(state, "reveal Bea orloff orloff orloff serama", V.RevealWrongSize)
    assert error.details["expected"] == 3 and error.details["holder"] == "Cy"
    assert "Bea holds 3 cards" in error.message and "B15" in error.message
    events = play(state, ["reveal Bea orloff orloff orloff"])
    assert [e.data["correct"] for e in events if e.kind == "call_resolved"] == [True]


def test_a_chicchirichi_from_a_three_card_seat_is_refused_after_dan_is_seen_with_four_serama():
    state = table("pass Ada", "pass Bea", "pass Cy", "seen Dan serama serama serama serama")
    error = refused(state, "chicchirichi Cy", V.NotHoldingFour)
    assert error.details["holder"] == "Dan" and "Dan holds them" in error.message
    refused(state, "chicchirichi Ada", V.NotHoldingFour)
    events = play(state, ["chicchirichi Dan", "reveal Dan serama serama serama serama"])
    assert [e.data["correct"] for e in events if e.kind == "call_resolved"] == [True]


def test_a_three_card_reveal_from_the_four_card_holder_is_refused():
    state = table("pass Ada", "caught Ada Bea")  # Bea has just received
    error = refused(state, "reveal Bea orloff orloff orloff", V.RevealWrongSize)
    assert error.details["expected"] == 4 and "has just received" in error.message
    play(state, ["reveal Bea orloff orloff orloff padovana"])
    assert state.phase == "choose"


def test_cards_seen_beyond_a_known_hand_size_are_refused():
    state = table("pass Ada", "pass Bea")  # Cy holds four, Bea three
    error = refused(state, "seen Bea orloff orloff padovana brahma", V.RevealWrongSize)
    assert error.details["expected"] == 3
    play(state, ["seen Cy orloff orloff padovana brahma"])


def test_without_a_reported_pass_any_three_or_four_card_reveal_and_any_chicchirichi_stand():
    # B15: passes not reported, the referee cannot know who holds four: accepted as before.
    state = table("caught Ada Bea")
    play(state, ["reveal Bea orloff orloff orloff serama"])
    state = table("caught Ada Dan")
    play(state, ["reveal Dan orloff orloff orloff"])
    state = table("chicchirichi Cy")
    play(state, ["reveal Cy serama serama serama serama"])


def test_the_first_pass_of_each_round_starts_the_knowledge_again():
    state = table("pass Ada", "caught Ada Bea", "reveal Bea padovana padovana padovana serama")
    play(state, ["take dollar deck", "egg sun-1"])  # round 2: Bea deals, nothing reported yet
    assert state.round == 2 and state.passes == 0
    assert state.can(Chicchirichi("Ada"))
    play(state, ["pass Bea"])  # Cy holds four
    assert not state.can(Chicchirichi("Ada")) and state.can(Chicchirichi("Cy"))


def test_full_knowledge_names_the_expected_size_and_the_holder():
    state = ENGINE.new_game({"players": FOUR, "seed": 5})
    while state.phase == "draw":
        state.apply(DrawEgg(state.deck[0]))
    assert state.holder == "Ada"
    with pytest.raises(V.NotHoldingFour):
        state.apply(Chicchirichi("Bea"))
    state.apply(Caught("Bea", "Ada"))
    hand = state.hands["Ada"]
    with pytest.raises(V.RevealWrongSize) as info:
        state.apply(Reveal("Ada", tuple(hand[:3])))
    assert info.value.details["expected"] == 4


# -- B15: properties -----------------------------------------------------------------------
def _hands(composition: dict[str, int], size: int) -> st.SearchStrategy[tuple[str, ...]]:
    names = sorted(composition)
    return (
        st.lists(st.sampled_from(names), min_size=size, max_size=size)
        .filter(lambda h: all(h.count(n) <= copies(n) for n in set(h)))
        .map(lambda h: tuple(sorted(h)))
    )


@settings(max_examples=60, deadline=None)
@given(
    passes=st.integers(0, 9),
    caller=st.sampled_from(FOUR),
    size=st.sampled_from([3, 4]),
    data=st.data(),
)
def test_with_passes_reported_a_reveal_stands_iff_its_size_is_the_hand_size(passes, caller, size, data):
    state = table()
    for _ in range(passes):
        state.apply(Pass(state.holder, None))
    target = data.draw(st.sampled_from([p for p in FOUR if state.table.team_of(p) != state.table.team_of(caller)]))
    state.apply(Caught(caller, target))
    hand = data.draw(_hands(dict(state.table.composition), size))
    expected = 4 if target == state.holder else 3
    accepted = state.can(Reveal(target, hand))
    assert accepted == (passes == 0 or size == expected)
    if not accepted:
        with pytest.raises(V.RevealWrongSize) as info:
            state.apply(Reveal(target, hand))
        assert info.value.details["expected"] == expected


@settings(max_examples=40, deadline=None)
@given(passes=st.integers(0, 9), caller=st.sampled_from(FOUR))
def test_with_passes_reported_only_the_four_card_holder_may_call_chicchirichi(passes, caller):
    state = table()
    for _ in range(passes):
        state.apply(Pass(state.holder, None))
    assert state.can(Chicchirichi(caller)) == (passes == 0 or caller == state.holder)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), passes=st.integers(0, 12), drop=st.booleans())
def test_under_full_knowledge_a_reveal_stands_iff_it_is_the_hand(seed, passes, drop):
    state = ENGINE.new_game({"players": FOUR, "seed": seed})
    while state.phase == "draw":
        state.apply(DrawEgg(state.deck[0]))
    for _ in range(passes):
        state.apply(Pass(state.holder, state.hands[state.holder][0]))
    target = state.holder if drop else state.table.next_seat(state.holder)
    caller = next(p for p in FOUR if state.table.team_of(p) != state.table.team_of(target))
    state.apply(Caught(caller, target))
    hand = list(state.hands[target])
    other = hand[:3] if len(hand) == 4 else hand + ["serama"]  # the wrong size, same cards
    with pytest.raises(V.RevealWrongSize) as info:
        state.apply(Reveal(target, tuple(other)))
    assert info.value.details["expected"] == len(hand) == (4 if drop else 3)
    assert state.can(Reveal(target, tuple(hand)))


# -- named refusals after a call -----------------------------------------------------------
def test_caught_reward_deck_refusing_a_henhouse_egg_names_the_option():
    state = table("caught Ada Bea", "reveal Bea orloff orloff orloff", caught_reward="deck")
    assert state.waiting_for() == {"step": "draw", "to": "team", "team": "dollar"}
    error = refused(state, "take dollar orloff", V.EggSourceNotAllowed)
    assert "caught_reward=deck" in error.message and "B3" in error.message
    assert error.details["option"] == "caught_reward" and error.details["value"] == "deck"
    play(state, ["egg sun-1"])
    assert [e["egg"] for e in state.collections["dollar"]] == ["sun-1"]


def test_a_wrong_call_paid_from_the_deck_names_the_rule_when_a_henhouse_egg_is_taken():
    state = table("coccode Ada", "reveal Cy orloff padovana brahma")
    error = refused(state, "take star orloff", V.EggSourceNotAllowed)
    assert "a wrong Coccodé pays each opposing team the top of the egg deck" in error.message
    assert "option" not in error.details


def test_a_pass_or_a_second_call_while_a_call_is_resolved_names_the_call():
    state = table("pass Ada", "caught Ada Bea")
    error = refused(state, "pass Bea", V.CallInProgress)
    assert "Ada's Caught!" in error.message and error.details["call"] == "caught"
    refused(state, "coccode Dan", V.CallInProgress)
    refused(state, "seen Dan orloff", V.CallInProgress)


@pytest.mark.parametrize(
    "lines, line, says",
    [
        (["caught Ada Bea"], "take dollar deck", "once Bea shows their hand"),
        (["caught Ada Bea"], "egg sun-1", "once Bea shows their hand"),
        (["caught Ada Bea", "reveal Bea orloff orloff orloff"], "egg sun-1", "dollar choose their egg first"),
        (["caught Ada Bea", "reveal Bea orloff orloff orloff"], "reveal Bea orloff orloff orloff", "choose"),
        (
            ["caught Ada Bea", "reveal Bea orloff orloff orloff", "take dollar orloff"],
            "take dollar padovana",
            "henhouse orloff is refilled first",
        ),
    ],
)
def test_an_award_step_out_of_its_turn_says_what_comes_first(lines, line, says):
    state = table(*lines)
    error = refused(state, line, V.AwardOutOfOrder)
    assert says in error.message and "Ada's Caught!" in error.message


def test_placing_another_egg_than_the_one_won_names_the_egg_to_place():
    state = table("caught Ada Bea", "reveal Bea orloff padovana brahma", "egg sun-1", egg_pyramid=True)
    assert state.waiting_for()["step"] == "place"
    error = refused(state, "place star sun-2 b1", V.AwardOutOfOrder)
    assert "star place sun-1 in their pyramid first" in error.message


def test_before_any_call_the_plain_out_of_order_stays():
    refused(table(), "reveal Bea orloff orloff orloff", V.OutOfOrder)
    refused(table(), "take dollar deck", V.OutOfOrder)
