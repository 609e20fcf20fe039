"""Random full games of every Bestia variant with random house rules (Hypothesis): every card
and every chip accounted for at every step, settlements add up, the game ends when the rules
say, the legal-action generator agrees with the validator, a refused action changes nothing,
the table's contract holds, a replay gives an equal snapshot (the shared checks:
tests/tricks/properties.py), and a referee who sees only the played cards settles every chip
exactly as one who knows the deal."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bestia import ENGINE, Buco, Doctor, Gioco, Knock, Pass, Play, Rob, Terzo, TurnTrump
from tests.tricks.properties import assert_accepted_iff_legal, check_table_contract, replay

VARIANT_PLAYERS = {
    "classic": (3, 7),
    "buco": (3, 7),
    "italian": (3, 6),
    "roman": (4, 6),
    "tippen": (3, 6),
    "julepe": (3, 7),
    "mauscheln": (3, 9),
}


@st.composite
def tables(draw):
    variant = draw(st.sampled_from(sorted(VARIANT_PLAYERS)))
    low, high = VARIANT_PLAYERS[variant]
    n = draw(st.integers(low, high))
    options = {
        "variant": variant,
        "deals_to_play": draw(st.integers(1, 4)),
        "cap": draw(st.sampled_from([None, 12, 30])),
        "pot": draw(st.sampled_from([0, 3, 6])),
    }
    for flag in (
        "forced_round",
        "lead_trump_ace",
        "lead_trump",
        "highest_trump",
        "obbligo_asso",
        "obbligo_asso_highest",
        "until_no_bestia",
    ):
        options[flag] = draw(st.booleans())
    if variant in ("italian", "roman"):
        options["one_round"] = draw(st.booleans())
        options["fee"] = draw(st.sampled_from([0, 1, 2]))
        options["stake"] = draw(st.sampled_from([2, 5, 10]))
    if variant == "classic":
        options["doctor"] = draw(st.booleans())
    if variant == "tippen":
        options["exchange_up_to"] = draw(st.sampled_from([None, 3]))
    if variant == "julepe":
        options["without_twos"] = draw(st.sampled_from([None, True, False]))
    return {"players": [f"P{i}" for i in range(n)], "options": options, "seed": draw(st.integers(0, 10_000))}


def choose(state, rng):
    legal = state.legal_actions()
    assert legal, (state.phase, state.queue)
    if state.phase == "speak":
        # cautious players (half of them pass) and small exchanges, so games end
        passes = [a for a in legal if a.kind == "pass"]
        if passes and rng.random() < 0.5:
            return passes[0]
        gioco = [a for a in legal if a.kind == "gioco"]
        if gioco and rng.random() < 0.6:
            return min(gioco, key=lambda a: len(a.discards))
    return rng.choice(legal)


def deck_accounted(state):
    snap = state.snapshot()
    cards = snap["cards"]
    every = (
        [c for h in cards["hands"].values() for c in h]
        + cards["gone"]
        + snap["stock"]
        + snap["thrown"]
        + snap["aside"]
        + (snap["buco"] or [])
    )
    assert len(every) == len(set(every)), "a card in two places"
    assert sorted(every) == sorted(state.deck.cards), "a card missing"
    assert snap["stock_count"] == len(snap["stock"])


def check_settlement(state, data):
    o = state.options
    ins = data["in"]
    assert sum(data["won"].values()) <= data["pot"]
    if len(ins) > 1:
        assert sum(data["tricks"].values()) == state.variant.tricks
        pot, tricks, busser = data["pot"], data["tricks"], data["busser"]
        scoring = state.variant.scoring
        if scoring == "julepe":  # two tricks make the julepe; the makers share the pot
            makers = [p for p in ins if tricks[p] >= 2]
            assert data["won"] == {p: pot // len(makers) for p in makers}
            due = {p: pot for p in ins if tricks[p] < 2}
        else:
            share = pot // state.variant.tricks
            assert data["won"] == {p: share * t for p, t in tricks.items() if t}
            if scoring == "mauscheln":
                due = {p: pot for p in ins if tricks[p] == 0 and p != busser}
                if busser in ins and tricks[busser] < 2:
                    due[busser] = pot * (2 - tricks[busser])
            else:
                due = {p: (pot * 3 // 2 if p == busser else pot) for p in ins if tricks[p] == 0}
        assert set(data["bestia"]) == {p for p, d in due.items() if d}
        for p, d in due.items():
            if o["cap"] is not None:
                d = min(d, o["cap"])
            assert data["paid"].get(p, 0) >= d
    elif len(ins) == 1:
        assert data["won"] == {ins[0]: data["pot"]} and data["paid"] == {}
    remainder = data["pot"] - sum(data["won"].values())
    assert data["next_pot"] == remainder + sum(data["paid"].values())


def run(setup, rng, probe=True):
    state = ENGINE.new_game(setup)
    log = []
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 20000
        action = choose(state, rng)
        if probe and state.phase == "play" and rng.random() < 0.3:
            legal = state.legal_actions()
            player = state.turn
            for card in state.holdings.hand(player):
                assert_accepted_iff_legal(state, Play(player, card), legal)
        if probe and rng.random() < 0.2:
            probe_any(state, rng)
        deals_before = len(state.history)
        events = state.apply(action)
        log.append(action)
        assert state.chips_in_play() == state.total
        check_table_contract(state)
        if not state.is_over:
            deck_accounted(state)
        for e in events:
            if e.kind == "settled":
                check_settlement(state, e.data)
        if len(state.history) > deals_before:
            last = state.history[-1]
            enough = last["deal"] >= state.options["deals_to_play"]
            should_end = enough and not (state.options["until_no_bestia"] and last["bestia"])
            assert state.is_over == should_end
    return state, log


def probe_any(state, rng):
    """A random action of any kind by anyone: accepted exactly when it is listed as legal,
    and a refused one changes nothing."""
    p = rng.choice(state.players + ["Nobody"])
    card = rng.choice(state.deck.cards)
    hand = state.holdings.hand(p) if p in state.players else None
    discards = tuple(rng.sample(hand, min(len(hand), rng.randint(0, 2)))) if hand else ()
    action = rng.choice(
        [
            Knock(p),
            Pass(p),
            Terzo(p),
            Buco(p),
            Doctor(p, rng.random() < 0.5),
            Gioco(p, discards),
            Rob(p, card),
            Play(p, card),
            TurnTrump(card),
        ]
    )
    legal = state.legal_actions()
    if isinstance(action, Gioco):  # the order of the discards does not matter
        same = [
            a for a in legal if isinstance(a, Gioco) and a.player == p and sorted(a.discards) == sorted(action.discards)
        ]
        action = same[0] if same else action
    assert_accepted_iff_legal(state, action, legal)


@settings(max_examples=40, deadline=None)
@given(setup=tables(), choice=st.integers(0, 2**32))
def test_random_full_games(setup, choice):
    state, log = run(setup, random.Random(choice))
    assert replay(ENGINE, setup, log).snapshot() == state.snapshot()
    assert sum(state.result["gained"].values()) + state.pot == state.options["pot"]


@settings(max_examples=20, deadline=None)
@given(setup=tables(), choice=st.integers(0, 2**32))
def test_partial_knowledge_settles_like_full_knowledge(setup, choice):
    """The table plays with a known deal; a second referee sees only the turned trump card,
    the declarations (exchanges as counts) and the cards played."""
    rng = random.Random(choice)
    full, log = run(setup, rng, probe=False)
    blind_setup = {k: v for k, v in setup.items() if k != "seed"}
    blind = ENGINE.new_game(blind_setup)
    table = ENGINE.new_game(setup)
    for action in log:
        if blind.phase == "trump":
            blind.apply(TurnTrump(table.trump_card))
        seen = Gioco(action.player, (), len(action.discards)) if isinstance(action, Gioco) else action
        blind.apply(seen)
        table.apply(action)
    assert blind.is_over
    assert blind.stacks == full.stacks and blind.pot == full.pot
    assert blind.offences == [] and all(h["offences"] == [] for h in blind.history)
    assert [h["won"] for h in blind.history] == [h["won"] for h in full.history]
