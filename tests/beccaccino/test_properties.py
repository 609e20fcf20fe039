"""Random full games of Beccaccino (Hypothesis): every card accounted for at every step, each
hand worth 11 points (+3 per Marafona), the game ends exactly when the rules say, the
legal-action generator agrees with the validator, a refused action changes nothing, the table's
contract holds, and a replay of the log (through the JSON codec) gives an equal snapshot
(the shared checks: tests/tricks/properties.py)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.beccaccino import ENGINE, CallOut, Declare, Look, Marafona, Play
from referee.tricks import ITALIAN_40, seeded_shuffle
from tests.beccaccino.helpers import PLAYERS
from tests.tricks.properties import assert_accepted_iff_legal, assert_refused, check_table_contract, replay


def play_random_game(seed, rng, target, call_out=False, partial=False):
    setup = {"players": PLAYERS, "options": {"target": target}}
    if not partial:
        setup["seed"] = seed
    state = ENGINE.new_game(setup)
    log = []
    hidden = {}
    revokes = set()  # (hand, trick, player) of the revokes really made
    if partial:  # the referee knows nothing; the "table" deals from the seed

        def deal():
            cards = seeded_shuffle(ITALIAN_40.cards, "table", seed, state.hand_no)
            return {p: cards[i * 10 : (i + 1) * 10] for i, p in enumerate(PLAYERS)}

        hidden = deal()
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 2000
        if partial:
            action = _partial_choice(state, hidden, rng)
        else:
            legal = state.legal_actions()
            plays = [a for a in legal if a.kind in ("declare", "play", "marafona")]
            if call_out and rng.random() < 0.003:
                action = rng.choice([a for a in legal if a.kind == "fuori"])
            else:
                marafone = [a for a in plays if a.kind == "marafona"]
                action = marafone[0] if marafone and rng.random() < 0.8 else rng.choice(plays)
            # a random card that is NOT legal must be refused and change nothing
            if state.phase == "play":
                others = [c for c in ITALIAN_40.cards if Play(state.turn, c) not in legal]
                if others:
                    assert_refused(state, Play(state.turn, rng.choice(others)))
        if not partial and rng.random() < 0.2:
            probe_any(state, rng)
        hand = state.hand_no
        if partial and action.kind == "play" and state.trick:
            lead = state.trick[0][1][-1]
            if action.card[-1] != lead and any(c[-1] == lead for c in hidden[action.player]):
                revokes.add((hand + 1, state.trick_no + 1, action.player))
        events = state.apply(action)
        log.append(action)
        if partial and action.kind == "play":
            hidden[action.player].remove(action.card)
        check_invariants(state, events, target)
        if partial and state.hand_no != hand and not state.is_over:
            hidden = deal()
    state.true_revokes = revokes
    return state, log


def probe_any(state, rng):
    """A random action of any kind by anyone: accepted exactly when listed as legal; a refused
    one changes nothing."""
    p = rng.choice(PLAYERS + ["Nobody"])
    card = rng.choice(ITALIAN_40.cards)
    action = rng.choice(
        [
            Declare(p, rng.choice("CDSBX")),
            Look(p),
            Marafona(p),
            Play(p, card),
            Play(p, card, rng.choice(["busso", "volo", "striscio", "x"])),
        ]
    )
    assert_accepted_iff_legal(state, action)


def _partial_choice(state, hidden, rng):
    if state.phase == "declare":
        who = state.battezzante or next(p for p in PLAYERS if "4D" in hidden[p])
        return Declare(who, rng.choice("CDSB"))
    player = state.turn
    hand = hidden[player]
    if state.trick:  # honest players mostly, with a revoke now and then
        lead = state.trick[0][1][-1]
        follow = [c for c in hand if c[-1] == lead]
        if follow and rng.random() > 0.1:
            return Play(player, rng.choice(follow))
    return Play(player, rng.choice(hand))


def check_invariants(state, events, target):
    check_table_contract(state)
    snap = state.snapshot()
    cards = snap["cards"]
    if cards["full"] and not state.is_over:
        held = [c for h in cards["hands"].values() for c in h]
        assert sorted(held + cards["gone"]) == sorted(ITALIAN_40.cards)
        assert all(len(h) == cards["counts"][p] for p, h in cards["hands"].items())
    if not state.is_over:
        assert len(set(cards["gone"])) == len(cards["gone"])
        assert sum(cards["counts"].values()) + len(cards["gone"]) == 40
    for e in events:
        if e.kind == "hand_scored":
            bonus = sum(e.data["marafona"].values())
            assert sum(e.data["thirds"].values()) == 35
            assert sum(e.data["points"].values()) == 11
            assert bonus in (0, 3)
    if state.is_over and state.result["reason"] == "target":
        assert state.scores[state.winner] >= target
        assert state.scores[state.winner] > min(state.scores.values())
    if not state.is_over:
        assert all(v < target for v in state.scores.values()) or len(set(state.scores.values())) == 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), choice=st.integers(0, 2**32), target=st.sampled_from([41, 31]))
def test_random_full_games(seed, choice, target):
    rng = random.Random(choice)
    state, log = play_random_game(seed, rng, target, call_out=True)
    total = sum(h["points"][t] + h["marafona"][t] for h in state.history for t in state.teams)
    assert total == sum(state.scores.values())
    again = replay(ENGINE, {"players": PLAYERS, "seed": seed, "options": {"target": target}}, log)
    assert again.snapshot() == state.snapshot()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), choice=st.integers(0, 2**32))
def test_random_games_with_partial_knowledge(seed, choice):
    rng = random.Random(choice)
    state, log = play_random_game(seed, rng, 31, partial=True)
    # a revoke is revealed only by a later card of the suit: never a false alarm
    for foul in state.fouls:
        assert foul["foul"] == "revealed_Revoke"
        assert (foul["hand"], foul["trick"], foul["player"]) in state.true_revokes
    # every card of a hand is played, so every revoke is revealed by the end of its hand
    assert len(state.fouls) == len(state.true_revokes)
    again = replay(ENGINE, {"players": PLAYERS, "options": {"target": 31}}, log)
    assert again.snapshot() == state.snapshot()


def test_legal_actions_agree_with_can():
    rng = random.Random(5)
    state = ENGINE.new_game({"players": PLAYERS, "seed": 77})
    while not state.is_over:
        legal = state.legal_actions()
        assert all(state.can(a) for a in legal)
        if state.phase == "play" and state.trick_no == 0:
            for p in PLAYERS:
                assert state.can(Marafona(p)) == (Marafona(p) in legal)
        plays = [a for a in legal if a.kind in ("declare", "play")]
        state.apply(rng.choice(plays))
    assert state.legal_actions() == [] and not state.can(CallOut("Anna"))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    start=st.tuples(st.integers(20, 45), st.integers(20, 45)),
    plays=st.integers(0, 39),
    caller=st.sampled_from(PLAYERS),
)
def test_a_fuori_is_right_iff_the_total_reaches_the_target_and_is_higher(seed, start, plays, caller):
    # M8: from any scores (ties at the target included) and any point of a hand, the call is
    # right exactly when the caller's total, counted from this hand's tricks, reaches the
    # target and beats the other team's counted the same way.
    state = ENGINE.new_game({"players": PLAYERS, "seed": seed})
    state.scores = dict(zip(state.teams, start))
    state.apply(Declare(state.battezzante, "D"))
    for _ in range(plays):
        state.apply(next(a for a in state.legal_actions() if a.kind == "play"))
    team = state.team_of[caller]
    other = next(t for t in state.teams if t != team)
    mine, theirs = state.running_total(team), state.running_total(other)
    called = next(e.data for e in state.apply(CallOut(caller)) if e.kind == "called_out")
    assert called["right"] == (mine >= 41 and mine > theirs)
    assert state.winner == (team if called["right"] else other)
