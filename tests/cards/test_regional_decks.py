"""The Italian regional decks shipped from public-domain scans (models/decks/) read with no
enrolment: their cards printed and photographed on a table are named right, never sure and wrong."""

from __future__ import annotations

import pytest

from vision.cards.decks import deck
from vision.cards.reader import CardReader
from vision.cards.regional import REGIONAL_DECKS, card_id_of_scan
from vision.cards.regional_eval import photos, read_counts
from vision.cards.templates import known_decks, load_deck


@pytest.mark.parametrize(
    ("file_name", "card"), [("1c.jpg", "AC"), ("7d.jpg", "7D"), ("8s.jpg", "FS"), ("9b.jpg", "CB"), ("10c.jpg", "RC")]
)
def test_a_scans_file_name_gives_the_card_the_engines_read(file_name, card):
    assert card_id_of_scan(file_name) == card


def test_a_file_that_is_not_a_scan_name_is_refused():
    with pytest.raises(ValueError, match="value 1-10"):
        card_id_of_scan("11c.jpg")


@pytest.mark.parametrize("name", list(REGIONAL_DECKS))
def test_each_regional_deck_is_shipped_whole_with_the_italian_card_ids(name):
    assert name in known_decks()
    d = load_deck(name)
    assert d.base == "italian" and d.source == "built-in"
    ids = sorted(i for label in d.faces.labels for i in d.faces.card_ids[label])
    assert ids == sorted(c.id for c in deck("italian"))
    assert d.backs is not None and len(d.backs) == 1


def test_napoletane_cards_printed_and_photographed_are_named_right_and_never_sure_and_wrong():
    d = load_deck("napoletane")
    shots = list(photos(d, per_card=1, seed=11))
    counts = read_counts(CardReader(None, d, snap=False), shots, sure=0.9)
    # measured: 40 of 40 right (scripts/eval_regional_decks.py: 80 of 80 per deck at 2 a card)
    assert counts["right"] >= 38
    assert counts["wrong_sure"] == 0
