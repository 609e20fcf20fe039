"""The deck definitions: complete, unique, and named as the rules engines name them."""

from collections import Counter

import pytest

from referee.beccato import cards as engine_cards
from referee.signal_cards import SIGNAL_CARDS
from referee.tricks import cards as trick_cards
from vision.cards import decks as D


def test_beccato_composition_matches_the_rulebook():
    cards = D.deck("beccato")
    kinds = Counter(c.kind for c in cards)
    assert kinds == {"chicken": 28, "signal": 33, "egg": 28, "henhouse": 8, "chick": 1, "guild": 12}
    breeds = Counter(c.breed for c in cards if c.kind == "chicken")
    assert breeds[D.SERAMA] == 4
    assert all(breeds[b] == 3 for b in D.BREEDS) and len(D.BREEDS) == 8
    assert Counter(c.guild for c in cards if c.kind == "egg") == {g: 7 for g in D.GUILDS}
    assert Counter(c.guild for c in cards if c.kind == "guild") == {g: 3 for g in D.GUILDS}
    assert {c.breed for c in cards if c.kind == "henhouse"} == set(D.BREEDS)
    printed = {s.id for s in SIGNAL_CARDS if s.printed}
    assert {c.signal for c in cards if c.kind == "signal"} == printed


@pytest.mark.parametrize("name, n", [("beccato", 110), ("italian", 40), ("french52", 52), ("french40", 40)])
def test_ids_are_unique_and_lookups_work(name, n):
    cards = D.deck(name)
    assert len(cards) == n
    assert len({c.id for c in cards}) == n
    for c in cards + D.backs(name):
        assert D.card(name, c.id) == c
    with pytest.raises(KeyError, match="no card"):
        D.card(name, "nonsense")


def test_unknown_deck_is_named():
    with pytest.raises(D.UnknownDeck, match="napoletane"):
        D.deck("napoletane")


def test_breeds_guilds_and_eggs_are_the_engines_names():
    eggs = [D.engine_name(c) for c in D.deck("beccato") if c.kind == "egg"]
    assert sorted(eggs) == sorted(engine_cards.EGGS)
    chickens = Counter(D.engine_name(c) for c in D.deck("beccato") if c.kind == "chicken")
    assert chickens == engine_cards.deck_composition(engine_cards.BREEDS)
    assert D.engine_name(D.card("beccato", "chick")) == engine_cards.CHICK


@pytest.mark.parametrize(
    "ours, theirs", [("italian", "italian-40"), ("french52", "french-52"), ("french40", "french-40")]
)
def test_suited_ids_are_the_trick_engines_codes(ours, theirs):
    assert sorted(c.id for c in D.deck(ours)) == sorted(trick_cards.DECKS[theirs].cards)


def test_symmetry_flags():
    assert all(c.symmetric for d in ("italian", "french52") for c in D.deck(d))
    assert not any(c.symmetric for c in D.deck("beccato"))
    assert all(b.symmetric for d in D.DECKS for b in D.backs(d))


def test_faces_collapse_identical_copies():
    faces = D.faces("beccato")
    assert len(faces) == 9 + 8 + 28 + 4 + 1 + 20
