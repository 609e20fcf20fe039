"""Trick legality: each policy's violation, the worked example, and three properties over
random hands and tricks: the legal-play generator agrees with the validator; a legal play's
claims are true of the hand (partial knowledge never accuses an honest player); an illegal
play always leaves a claim that some card of the hand breaks (a revoke can be revealed)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core import Violation
from referee.tricks import (
    BESTIA_ORDER_FR,
    FRENCH_40,
    CardAlreadyPlayed,
    CardNotInDeck,
    CardNotInHand,
    FollowSuit,
    HighestTrump,
    Holdings,
    LeadHighestTrump,
    LeadTrumpAce,
    LeadTrumpAfterFirst,
    MustLeadHighestTrump,
    MustLeadTrump,
    MustLeadTrumpAce,
    MustOvertake,
    MustOvertakeWhenFollowing,
    MustOvertrump,
    MustOvertrumpWhenVoid,
    MustPlayHighestTrump,
    MustTrump,
    MustTrumpWhenVoid,
    Revoke,
    Rules,
    TrickContext,
    trick_winner,
)

ORDER = BESTIA_ORDER_FR
CLASSIC = Rules((FollowSuit(), MustTrumpWhenVoid()))
ITALIAN = Rules(
    (FollowSuit(), MustOvertakeWhenFollowing(), MustTrumpWhenVoid(unless_outranked=True), MustOvertrumpWhenVoid())
)
ROMAN = Rules((FollowSuit(), MustOvertakeWhenFollowing(), MustTrumpWhenVoid(), MustOvertrumpWhenVoid()))
HOUSE = Rules((LeadTrumpAce(), LeadTrumpAfterFirst(), FollowSuit(), MustTrumpWhenVoid(), HighestTrump()))
OBBLIGO = Rules((LeadTrumpAce(first_only=True), LeadHighestTrump(), FollowSuit()))
BECCACCINO = Rules((FollowSuit(),))
ALL_RULES = [CLASSIC, ITALIAN, ROMAN, HOUSE, OBBLIGO, BECCACCINO]


def ctx(plays, trump="H", trick_no=0, gone=()):
    return TrickContext(tuple(plays), trump, ORDER, trick_no, frozenset(gone))


def test_the_worked_example_k_spades_4_hearts_7_hearts():
    # Hearts are trumps. Ben leads K♠; Carla, void in spades, must trump: 4♥; Dan plays his last
    # trump, the 7♥, and wins.
    carla = ["4H", "5D", "6C"]
    first = ctx([("Ben", "KS")])
    with pytest.raises(MustTrump):
        CLASSIC.check(carla, first, "5D")
    assert CLASSIC.legal(carla, first) == ["4H"]
    dan = ["7H", "2D", "3C"]
    second = ctx([("Ben", "KS"), ("Carla", "4H")])
    assert CLASSIC.legal(dan, second) == ["7H"]
    plays = [("Ben", "KS"), ("Carla", "4H"), ("Dan", "7H")]
    assert plays[trick_winner(plays, "H", ORDER)][0] == "Dan"


@pytest.mark.parametrize(
    "rules, hand, plays, card, violation, extra",
    [
        (CLASSIC, ["2S", "AD"], [("a", "KS")], "AD", Revoke, {}),
        (CLASSIC, ["2H", "AD"], [("a", "KS")], "AD", MustTrump, {}),
        (ITALIAN, ["AS", "2S"], [("a", "KS")], "2S", MustOvertake, {}),
        (ITALIAN, ["AH", "2D"], [("a", "KS"), ("b", "4H")], "2D", MustTrump, {}),
        (ITALIAN, ["AH", "2H"], [("a", "KS"), ("b", "4H")], "2H", MustOvertrump, {}),
        (HOUSE, ["AH", "KS"], [], "KS", MustLeadTrumpAce, {}),
        (HOUSE, ["2H", "KS"], [], "KS", MustLeadTrump, {"trick_no": 1}),
        (HOUSE, ["3H", "2H", "QD"], [("a", "KS")], "2H", MustPlayHighestTrump, {}),
        (OBBLIGO, ["3H", "KS"], [], "KS", MustLeadHighestTrump, {"trick_no": 2, "gone": ["AH"]}),
    ],
)
def test_each_violation_is_named(rules, hand, plays, card, violation, extra):
    c = ctx(plays, **extra)
    with pytest.raises(violation) as info:
        rules.check(hand, c, card)
    assert info.value.to_dict()["error"] == violation.__name__
    assert card not in rules.legal(hand, c)


def test_italian_rule_five_discard_when_no_trump_is_high_enough():
    # Void in spades, a 3♥ (trump) on the table, only the 2♥: any card may be discarded.
    c = ctx([("a", "KS"), ("b", "3H")])
    assert sorted(ITALIAN.legal(["2H", "5D"], c)) == ["2H", "5D"]
    # The Roman rules still make the player trump.
    assert ROMAN.legal(["2H", "5D"], c) == ["2H"]


def test_strozzo_following_a_trump_that_cut_the_lead():
    # Following suit you must still beat the cards of the suit led on the table.
    c = ctx([("a", "QS"), ("b", "4H")])
    assert sorted(ITALIAN.legal(["KS", "JS"], c)) == ["KS"]


def test_beccaccino_lets_a_void_player_discard_or_trump():
    c = ctx([("a", "KS")])
    assert sorted(BECCACCINO.legal(["2H", "5D"], c)) == ["2H", "5D"]


def test_obbligo_asso_applies_to_the_first_trick_only():
    assert OBBLIGO.legal(["AH", "KS"], ctx([], trick_no=0)) == ["AH"]
    assert sorted(Rules((LeadTrumpAce(first_only=True),)).legal(["AH", "KS"], ctx([], trick_no=1))) == ["AH", "KS"]


def test_holdings_refuse_impossible_cards():
    full = Holdings(["a", "b"], FRENCH_40, {"a": ["KS"], "b": ["AS"]})
    with pytest.raises(CardNotInHand):
        full.verify_card("a", "AS")
    with pytest.raises(CardNotInDeck):
        full.verify_card("a", "10S")
    partial = Holdings(["a", "b"], FRENCH_40, None, {"a": 1, "b": 1})
    partial.show("b", ["AS"])
    with pytest.raises(CardNotInHand):
        partial.verify_card("a", "AS")
    partial.play("a", "KS", CLASSIC, ctx([]))
    with pytest.raises(CardAlreadyPlayed):
        partial.verify_card("b", "KS")
    with pytest.raises(CardNotInHand):  # no card left
        partial.verify_card("a", "QS")


def test_a_revoke_is_revealed_when_the_suit_shows_up_later():
    h = Holdings(["a", "b"], FRENCH_40, None, {"a": 2, "b": 2})
    h.play("a", "KS", CLASSIC, ctx([]))
    assert h.play("b", "5D", CLASSIC, ctx([("a", "KS")])) == []  # b claims: no spades, no hearts
    h.play("a", "3C", CLASSIC, ctx([], trick_no=1))
    broken = h.play("b", "2S", CLASSIC, ctx([("a", "3C")], trick_no=1))
    assert [c.violation for c in broken] == [Revoke]


# -- properties --------------------------------------------------------------------------

CARDS = FRENCH_40.cards


@st.composite
def situations(draw):
    deck = draw(st.permutations(CARDS))
    n_table = draw(st.integers(0, 4))
    n_hand = draw(st.integers(1, 5))
    table = deck[:n_table]
    hand = list(deck[n_table : n_table + n_hand])
    gone = deck[n_table + n_hand : n_table + n_hand + draw(st.integers(0, 10))]
    trump = draw(st.sampled_from(["S", "H", "D", "C"]))
    c = TrickContext(
        tuple((f"p{i}", card) for i, card in enumerate(table)),
        trump,
        ORDER,
        draw(st.integers(0, 4)),
        frozenset(gone) | frozenset(table),
    )
    rules = draw(st.sampled_from(ALL_RULES))
    return rules, hand, c


@settings(max_examples=400, deadline=None)
@given(situations())
def test_generator_agrees_with_validator(situation):
    rules, hand, c = situation
    legal = rules.legal(hand, c)
    assert legal, "some card is always playable"
    for card in hand:
        try:
            rules.check(hand, c, card)
            ok = True
        except Violation:
            ok = False
        assert ok == (card in legal), (card, hand, c.plays)


@settings(max_examples=400, deadline=None)
@given(situations())
def test_claims_are_sound_and_complete(situation):
    rules, hand, c = situation
    legal = rules.legal(hand, c)
    for card in hand:
        rest = [x for x in hand if x != card]
        claims = rules.claims(c, card)
        broken = [cl for cl in claims for x in rest if cl.broken_by(x, ORDER)]
        if card in legal:
            assert not broken, (card, hand, c.plays, claims)
        else:
            assert broken, (card, hand, c.plays, claims)
