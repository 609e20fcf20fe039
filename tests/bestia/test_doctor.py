"""S5: going to the doctor when the stock is short and nobody is out yet (10 players at 3-card
Bestia: 1 trump card and 30 dealt leave 9 in the stock, three doctors' worth).

The player may still go: the stock is dealt first, then the hands of the players who go out
complete the three as soon as there are any; when even that cannot give three cards, a named
refusal (`DoctorCannotDeal`) tells the player to choose again between their own hand (`knock`)
and passing (`decline`)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bestia import ENGINE, Doctor, Knock, Pass
from referee.bestia.game import DoctorCannotDeal, StockExhausted
from referee.tricks import OutOfOrder
from tests.bestia.helpers import game
from tests.bestia.test_properties import deck_accounted
from tests.tricks.properties import assert_accepted_iff_legal, replay

TEN = [f"P{i}" for i in range(10)]


def everyone_passed(seed=3, players=TEN):
    s = game(players, seed=seed)
    for p in s.from_right():
        s.apply(Pass(p))
    assert s.phase == "doctor"
    return s, list(s.queue)


def test_the_stock_short_and_nobody_out_the_player_still_goes_to_the_doctor():
    s, order = everyone_passed()
    for p in order[:3]:
        s.apply(Doctor(p))
    assert s.stock_count == 0 and s.thrown_count == 0
    own = list(s.holdings.hands[order[3]])
    events = s.apply(Doctor(order[3]))  # was StockExhausted
    assert [e.data for e in events if e.kind == "doctor_answer"] == [{"player": order[3], "accept": True, "owed": 3}]
    assert s.holdings.hands[order[3]] == [] and s.owed == {order[3]: 3}
    assert s.waiting_for() == {"step": "doctor", "player": order[4]}
    deck_accounted(s)
    thrown = list(s.holdings.hands[order[4]])
    events = s.apply(Doctor(order[4], accept=False))  # out: the first hand to complete the three
    assert [e.data for e in events if e.kind == "doctor_dealt"] == [{"player": order[3], "cards": 3, "owed": 0}]
    assert sorted(s.holdings.hands[order[3]]) == sorted(thrown) and s.owed == {}
    assert all(c in s.aside for c in own)  # the hand put aside stays out of the deal
    deck_accounted(s)


def test_when_even_that_cannot_give_three_cards_the_player_chooses_again():
    s, order = everyone_passed()
    for p in order[:3]:
        s.apply(Doctor(p))
    for p in order[3:6]:  # three more go, owed 3 each: four hands still to answer could go out
        s.apply(Doctor(p))
    assert s.owed == dict.fromkeys(order[3:6], 3)
    with pytest.raises(DoctorCannotDeal) as info:  # 9 owed, at most 9 could still come: no
        s.apply(Doctor(order[6]))
    assert isinstance(info.value, StockExhausted)
    assert f"knock {order[6]}" in info.value.message and f"decline {order[6]}" in info.value.message
    assert "(S5)" in info.value.message
    own = list(s.holdings.hands[order[6]])
    s.apply(Knock(order[6]))  # plays the own hand after all
    assert s.status[order[6]] == "in" and s.holdings.hands[order[6]] == own
    s.apply(Doctor(order[7], accept=False))  # out: three cards for the first one waiting
    assert s.owed == dict.fromkeys(order[4:6], 3)
    with pytest.raises(DoctorCannotDeal):
        s.apply(Doctor(order[8]))
    s.apply(Knock(order[8]))
    s.apply(Doctor(order[9], accept=False))
    # the queue has ended: nothing more can come, the one still waiting chooses again
    assert s.owed == {order[5]: 3}
    assert s.queue == [order[5]] and s.waiting_for() == {"step": "doctor", "player": order[5], "owed": 3}
    with pytest.raises(DoctorCannotDeal):
        s.apply(Doctor(order[5]))
    own5 = list(s.own_hands[order[5]])
    deck_accounted(s)
    s.apply(Knock(order[5]))  # the hand put aside is theirs again
    assert sorted(s.holdings.hands[order[5]]) == sorted(own5)
    assert s.phase == "play" and s.owed == {}
    assert sorted(s.in_players()) == sorted([*order[:7], order[8]])
    deck_accounted(s)


def test_a_player_choosing_again_who_passes_throws_in_a_hand_for_the_next_one_waiting():
    s, order = everyone_passed()
    for p in order[:6]:
        s.apply(Doctor(p))  # order[3:6] owed 3 each
    for p in order[6:]:
        s.apply(Knock(p))  # nobody goes out
    assert s.queue == order[3:6] and s.owed == dict.fromkeys(order[3:6], 3)
    s.apply(Doctor(order[3], accept=False))  # out: their own hand completes order[4]'s
    assert s.status[order[3]] == "out" and s.queue == [order[5]] and s.owed == {order[5]: 3}
    assert len(s.holdings.hands[order[4]]) == 3
    deck_accounted(s)
    s.apply(Doctor(order[5], accept=False))
    assert s.phase == "play"
    deck_accounted(s)


def test_knocking_in_the_doctor_round_is_only_for_a_doctor_that_cannot_deal():
    s, order = everyone_passed()
    with pytest.raises(OutOfOrder) as info:
        s.apply(Knock(order[0]))
    assert "(S5)" in info.value.message


def test_without_a_known_deal_the_counts_follow_the_same_ruling():
    s = game(TEN)
    s.apply(ENGINE.parse_command(s, "trump 4C"))
    order = s.from_right()
    for p in order:
        s.apply(Pass(p))
    for p in order[:4]:
        s.apply(Doctor(p))
    assert s.owed == {order[3]: 3} and s.holdings.counts[order[3]] == 0
    s.apply(Doctor(order[4], accept=False))
    assert s.owed == {} and s.holdings.counts[order[3]] == 3


def _choose(state, rng):
    legal = state.legal_actions()
    assert legal, (state.phase, state.queue, state.owed)
    if state.phase == "speak":
        passes = [a for a in legal if a.kind == "pass"]
        if passes and rng.random() < 0.8:
            return passes[0]
    return rng.choice(legal)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 10), choice=st.integers(0, 2**32))
def test_short_stock_doctor_rounds_keep_every_card_and_never_get_stuck(seed, n, choice):
    rng = random.Random(choice)
    setup = {"players": TEN[:n], "options": {"deals_to_play": 2, "until_no_bestia": False}, "seed": seed}
    state = ENGINE.new_game(setup)
    log = []
    while not state.is_over:
        if state.phase == "doctor":
            p = state.queue[0]
            for action in (Doctor(p, True), Doctor(p, False), Knock(p)):
                assert_accepted_iff_legal(state, action)
            if not state.can(Doctor(p, True)):
                with pytest.raises(DoctorCannotDeal):
                    state.apply(Doctor(p, True))
        action = _choose(state, rng)
        state.apply(action)
        log.append(action)
        assert state.chips_in_play() == state.total
        if not state.is_over:
            deck_accounted(state)
            if state.phase == "play" and state.trick_no == 0 and not state.trick:
                assert state.owed == {}
                assert all(len(state.holdings.hands[p]) == 3 for p in state.in_players())
    assert replay(ENGINE, setup, log).snapshot() == state.snapshot()
