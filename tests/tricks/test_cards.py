import pytest

from referee.tricks import (
    BECCACCINO_ORDER,
    BESTIA_ORDER_FR,
    BESTIA_ORDER_IT,
    FRENCH_32,
    FRENCH_40,
    FRENCH_52,
    GERMAN_ORDER_32,
    ITALIAN_40,
    Card,
    CardNotInDeck,
)


@pytest.mark.parametrize(
    "text, code",
    [
        ("3D", "3D"),
        ("3 di denari", "3D"),
        ("tre di denari", "3D"),
        ("3 of coins", "3D"),
        ("Re di coppe", "RC"),
        ("king of cups", "RC"),
        ("cavallo di spade", "CS"),
        ("fante di bastoni", "FB"),
        ("Asso di Spade", "AS"),
        ("rc", "RC"),
        ("KD", "RD"),  # J/Q/K read as Fante/Cavallo/Re in the Italian deck
        ("  7   di   coppe ", "7C"),
    ],
)
def test_italian_names(text, code):
    assert ITALIAN_40.parse(text) == code


@pytest.mark.parametrize(
    "text, code",
    [
        ("K♠", "KS"),
        ("KS", "KS"),
        ("king of spades", "KS"),
        ("4♥", "4H"),
        ("7 of hearts", "7H"),
        ("Re di picche", "KS"),
        ("asso di cuori", "AH"),
        ("q♦", "QD"),
        ("J of clubs", "JC"),
    ],
)
def test_french_names(text, code):
    assert FRENCH_40.parse(text) == code


def test_ten_exists_only_in_the_longer_french_decks():
    assert FRENCH_52.parse("10♥") == "10H"
    assert FRENCH_32.parse("10 of hearts") == "10H"
    with pytest.raises(CardNotInDeck):
        FRENCH_40.parse("10H")
    with pytest.raises(CardNotInDeck):
        FRENCH_32.parse("6H")


@pytest.mark.parametrize("text", ["", "8D", "3X", "zz", "3 di nulla", "K♠", "11 of coins"])
def test_unknown_italian_cards_are_named(text):
    with pytest.raises(CardNotInDeck) as info:
        ITALIAN_40.parse(text)
    assert "hint" in info.value.details


@pytest.mark.parametrize("deck", [ITALIAN_40, FRENCH_40, FRENCH_32, FRENCH_52])
def test_every_card_round_trips_through_every_language(deck):
    cards = deck.cards
    assert len(cards) == len(set(cards)) == len(deck)
    for code in cards:
        for language in ("code", "it", "en", "symbol"):
            assert deck.parse(deck.name_of(code, language)) == code


def test_printing():
    assert ITALIAN_40.name_of("3D") == "3 di denari"
    assert ITALIAN_40.name_of("RC", "en") == "King of cups"
    assert FRENCH_40.name_of("KS", "symbol") == "K♠"
    assert FRENCH_40.name_of("KS", "en") == "King of spades"
    assert FRENCH_40.name_of("4H", "it") == "4 di cuori"
    assert Card.of("10H") == Card("10", "H") and Card("3", "D").code == "3D"


def test_deck_sizes():
    assert (len(ITALIAN_40), len(FRENCH_40), len(FRENCH_32), len(FRENCH_52)) == (40, 40, 32, 52)


def test_rank_orders_follow_the_texts():
    # Beccaccino: 3 2 A R C F 7 6 5 4
    assert BECCACCINO_ORDER.sort(["4D", "AD", "3D", "RD", "7D", "2D", "FD", "CD", "5D", "6D"]) == [
        "3D",
        "2D",
        "AD",
        "RD",
        "CD",
        "FD",
        "7D",
        "6D",
        "5D",
        "4D",
    ]
    # Bestia: A 3 K Q J 7 6 5 4 2 (French) and A 3 R C F ... (Italian)
    assert BESTIA_ORDER_FR.sort(["2S", "KS", "3S", "AS", "JS", "QS"]) == ["AS", "3S", "KS", "QS", "JS", "2S"]
    assert BESTIA_ORDER_IT.strength("3B") > BESTIA_ORDER_IT.strength("RB") > BESTIA_ORDER_IT.strength("2B") == 0
    assert GERMAN_ORDER_32.sort(["7H", "AH", "10H", "KH"]) == ["AH", "KH", "10H", "7H"]


def test_beccaccino_deck_is_worth_eleven_and_two_thirds():
    thirds = sum(BECCACCINO_ORDER.value(c) for c in ITALIAN_40.cards)
    assert thirds == 35 - 3  # 11 2/3 points with the last trick's 1 point: 35 thirds
    assert BECCACCINO_ORDER.value("AS") == 3 and BECCACCINO_ORDER.value("7S") == 0


def test_suit_names():
    assert ITALIAN_40.parse_suit("denari") == "D"
    assert ITALIAN_40.parse_suit("coins") == "D"
    assert FRENCH_40.parse_suit("♥") == "H"
    with pytest.raises(CardNotInDeck):
        ITALIAN_40.parse_suit("hearts")
