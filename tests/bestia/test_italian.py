"""5-card Italian Bestia (bestia-5-card-it.txt): invito, Passo/Gioco/Busso/"Terzo se devo",
the tallone, the fee, strozzo, the pot by fifths, the busser's penalty and reward; and the
Roman five-card game and Tippen."""

import pytest

from referee.bestia import (
    ENGINE,
    BadExchange,
    Gioco,
    Knock,
    NotInThisVariant,
    Pass,
    Play,
    StockExhausted,
    Terzo,
    TerzoFirstTurnOnly,
    TerzoMustPass,
)
from referee.tricks import MustLeadTrumpAce, MustOvertake, MustOvertrump, MustTrump, OutOfTurn, Revoke
from tests.bestia.helpers import game, play_out, settled

FOUR = ["Anna", "Ben", "Carla", "Dan"]
FIVE = FOUR + ["Eva"]

# Bastoni are trumps (the 7 is turned up). Anna's hand is the weakest of the table.
WEAK_ANNA = {
    "trump": "7B",
    "hands": {
        "Anna": ["2C", "4C", "5D", "2S", "4S"],
        "Ben": ["AC", "3C", "AD", "AS", "3S"],
        "Carla": ["RC", "CC", "3D", "RS", "CS"],
        "Dan": ["FC", "6C", "RD", "FS", "6S"],
    },
}
STRONG_ANNA = {
    "trump": "7B",
    "hands": {
        "Anna": ["AB", "3B", "RB", "CB", "FB"],
        "Ben": ["AC", "3C", "AD", "AS", "3S"],
        "Carla": ["RC", "CC", "3D", "RS", "CS"],
        "Dan": ["FC", "6C", "RD", "FS", "6S"],
    },
}


def italian(deals=None, seed=None, players=FOUR, **options):
    return game(players, "italian", seed=seed, deals=deals, dealer=players[-1], **options)


def test_everyone_pays_the_invito():
    s = italian(seed=1, stake=5)
    assert s.pot == 20 and all(v == 45 for v in s.stacks.values())
    assert s.variant.hand_size == 5 and all(len(h) == 5 for h in s.holdings.hands.values())
    assert s.stock_count == 40 - 20 - 1  # the tallone, the trump card face up


def test_busso_stops_the_declarations_and_a_busser_with_no_trick_pays_one_and_a_half_pots():
    s = italian(deals=[WEAK_ANNA], fee=1)
    events = s.apply(Knock("Anna"))  # busso, first to speak
    assert s.busser == "Anna"
    forced = next(e for e in events if e.kind == "compulsory")
    assert forced.data["players"] == ["Ben", "Carla", "Dan"]  # must play as dealt
    assert s.phase == "play" and s.turn == "Anna"  # the busser leads
    assert s.pot == 20 + 4  # the fee of the four players in
    result = settled(play_out(s))
    assert result["tricks"]["Anna"] == 0
    assert result["paid"]["Anna"] == 24 * 3 // 2  # 1.5 times the pot
    share = 24 // 5
    assert all(result["won"].get(p, 0) == share * result["tricks"][p] for p in FOUR)
    assert s.chips_in_play() == s.total


def test_a_busser_who_takes_most_tricks_pays_half_the_invito_next_deal():
    s = italian(deals=[STRONG_ANNA], stake=6)
    s.apply(Knock("Anna"))
    events = play_out(s)
    result = settled(events)
    assert result["tricks"]["Anna"] == 5 and result["won"]["Anna"] == 24 - 24 % 5
    assert result["half_entry_next"] == ["Anna"]
    ante = next(e for e in events if e.kind == "ante" and e.data["deal"] == 2)
    assert ante.data["paid"]["Anna"] == 3 and ante.data["paid"]["Ben"] == 6


def test_gioco_exchanges_from_the_tallone():
    s = italian(seed=2)
    hand = list(s.holdings.hands["Anna"])
    top = s.stock[:2]
    s.apply(Gioco("Anna", tuple(hand[:2])))
    assert s.holdings.hands["Anna"] == hand[2:] + top
    assert s.stock_count == 19 - 2 and s.thrown == hand[:2]
    with pytest.raises(BadExchange):
        s.apply(Gioco("Ben", (), 2))  # a known hand names its discards
    with pytest.raises(BadExchange):
        s.apply(Gioco("Ben", (hand[2],)))  # not Ben's card
    with pytest.raises(OutOfTurn):
        s.apply(Pass("Dan"))


def test_the_tallone_runs_out_and_the_discards_are_reshuffled():
    # seven players: 35 dealt + the trump card leave 4 in the tallone
    seven = [f"P{i}" for i in range(7)]
    s = italian(seed=3, players=seven)
    assert s.stock_count == 4
    first, second, third = s.queue[:3]
    s.apply(Gioco(first, tuple(s.holdings.hands[first][:4])))
    assert s.stock_count == 0
    discarded = list(s.thrown)
    s.apply(Gioco(second, tuple(s.holdings.hands[second][:3])))  # from the reshuffled discards
    assert set(s.holdings.hands[second][2:]) <= set(discarded)
    with pytest.raises(StockExhausted):
        s.apply(Gioco(third, tuple(s.holdings.hands[third])))  # 5 wanted, 4 left


def test_terzo_se_devo_with_three_already_in_must_pass():
    s = italian(seed=4, players=FIVE)
    assert s.queue == FIVE
    s.apply(Terzo("Anna"))
    for p in ["Ben", "Carla", "Dan"]:
        s.apply(Gioco(p))
    s.apply(Pass("Eva"))
    assert s.round_no == 2 and s.queue[0] == "Anna"
    with pytest.raises(TerzoMustPass):
        s.apply(Gioco("Anna"))
    with pytest.raises(TerzoMustPass):
        s.apply(Knock("Anna"))
    s.apply(Pass("Anna"))
    with pytest.raises(TerzoFirstTurnOnly):
        s.apply(Terzo("Ben"))
    for p in ["Ben", "Carla", "Dan"]:
        s.apply(Gioco(p))
    assert s.phase == "play" and s.in_players() == ["Ben", "Carla", "Dan"]


def test_terzo_se_devo_with_fewer_than_three_plays():
    s = italian(seed=4, players=FIVE)
    s.apply(Terzo("Anna"))
    s.apply(Gioco("Ben"))
    for p in ["Carla", "Dan", "Eva"]:
        s.apply(Pass(p))
    s.apply(Gioco("Anna"))  # only one in: Anna plays
    s.apply(Gioco("Ben"))
    assert s.phase == "play" and s.in_players() == ["Anna", "Ben"]


def test_a_busso_settles_a_pending_terzo():
    s = italian(seed=4, players=FIVE)
    s.apply(Terzo("Anna"))
    s.apply(Knock("Ben"))  # Carla, Dan, Eva must play: four in, Anna is out
    assert s.in_players() == ["Ben", "Carla", "Dan", "Eva"] and s.status["Anna"] == "out"


def test_a_busso_lets_a_pending_terzo_play_when_fewer_than_three_are_in():
    s = italian(seed=4, players=["Anna", "Ben", "Carla"])
    s.apply(Terzo("Anna"))
    s.apply(Knock("Ben"))  # Carla must play: two in, so Anna plays too
    assert s.in_players() == ["Anna", "Ben", "Carla"] and s.said["Anna"] == ["terzo", "terzo: in"]
    assert s.turn == "Ben"


def test_a_forced_round_in_the_five_card_game_charges_the_fee():
    s = italian(seed=6, forced_round=True, fee=1, stake=5)
    for p in FOUR:
        s.apply(Pass(p))  # nobody plays, nobody in bestia: the next deal is compulsory
    assert s.deal_no == 1 and s.forced and s.phase == "play"
    assert s.pot == 20 + 20 + 4  # the pot stayed, a new invito each, the fee of the four in


def test_declarations_go_round_until_nobody_changes_cards():
    s = italian(seed=5)
    s.apply(Gioco("Anna", tuple(s.holdings.hands["Anna"][:1])))
    for p in ["Ben", "Carla", "Dan"]:
        s.apply(Gioco(p))
    assert s.round_no == 2 and s.queue == FOUR
    for p in FOUR:
        s.apply(Gioco(p))
    assert s.phase == "play"


def test_one_round_bidding():
    s = italian(seed=5, one_round=True)
    s.apply(Gioco("Anna", tuple(s.holdings.hands["Anna"][:1])))
    for p in ["Ben", "Carla", "Dan"]:
        s.apply(Gioco(p))
    assert s.phase == "play"


def test_strozzo_rules_in_play():
    deal = {
        "trump": "7B",
        "hands": {
            "Anna": ["2C", "4C", "5D", "2S", "4S"],
            "Ben": ["AC", "3C", "AD", "AS", "3S"],
            "Carla": ["3B", "CC", "3D", "RS", "CS"],
            "Dan": ["AB", "6C", "RD", "FS", "6S"],
        },
    }
    s = italian(deals=[deal])
    s.apply(Knock("Anna"))
    s.apply(Play("Anna", "4C"))
    # Ben holds A and 3 of coppe: both beat the 4; either is legal
    s.apply(Play("Ben", "3C"))
    s.apply(Play("Carla", "CC"))  # the Cavallo cannot beat the 3: any coppe
    with pytest.raises(Revoke):
        s.apply(Play("Dan", "RD"))
    s.apply(Play("Dan", "6C"))
    # trick 2: Ben leads (3C won)
    assert s.turn == "Ben"
    s.apply(Play("Ben", "AD"))
    with pytest.raises(Revoke):
        s.apply(Play("Carla", "CS"))
    s.apply(Play("Carla", "3D"))
    s.apply(Play("Dan", "RD"))
    s.apply(Play("Anna", "5D"))
    # trick 3: Ben leads the 3 di spade; nobody can beat it, so any spade follows
    s.apply(Play("Ben", "3S"))
    assert s.can(Play("Carla", "CS")) and s.can(Play("Carla", "RS"))


def test_must_trump_and_overtrump():
    deal = {
        "trump": "7B",
        "hands": {
            "Anna": ["5D", "2C", "4C", "2S", "4S"],
            "Ben": ["4B", "3C", "AC", "AS", "3S"],
            "Carla": ["3B", "2B", "RC", "RS", "CS"],
            "Dan": ["AD", "6C", "2D", "FS", "6S"],
        },
    }
    s = italian(deals=[deal])
    s.apply(Knock("Anna"))
    s.apply(Play("Anna", "5D"))
    with pytest.raises(MustTrump):
        s.apply(Play("Ben", "3C"))  # void in denari, holding a trump
    s.apply(Play("Ben", "4B"))
    with pytest.raises(MustOvertrump):
        s.apply(Play("Carla", "2B"))  # under the 4: she holds the 3
    with pytest.raises(MustTrump):
        s.apply(Play("Carla", "RC"))
    s.apply(Play("Carla", "3B"))
    with pytest.raises(MustOvertake):
        s.apply(Play("Dan", "2D"))  # following, he must beat the 5 di denari with the Ace
    s.apply(Play("Dan", "AD"))
    assert s.turn == "Carla"  # the highest trump


def test_roman_and_tippen():
    roman = game(FOUR, "roman", seed=1)
    assert roman.pot == 20
    with pytest.raises(NotInThisVariant):
        roman.apply(Terzo("Ben"))
    tippen = game(["Anna", "Ben", "Carla"], "tippen", seed=1)
    assert len(tippen.variant.deck) == 32 and tippen.forced  # only the stake in the pot
    assert tippen.phase == "play" and tippen.in_players() == ["Ben", "Carla", "Anna"]
    tippen2 = game(["Anna", "Ben", "Carla"], "tippen", seed=1, pot=5)
    assert not tippen2.forced and tippen2.phase == "speak"
    with pytest.raises(NotInThisVariant):
        tippen2.apply(Gioco("Ben"))


def test_tippen_with_the_later_exchange_of_up_to_three():
    s = game(["Anna", "Ben", "Carla"], "tippen", seed=1, pot=5, exchange_up_to=3)
    for p in ["Ben", "Carla"]:
        s.apply(Knock(p))
    s.apply(Pass("Anna"))
    assert s.phase == "exchange" and s.queue == ["Ben", "Carla"]
    hand = list(s.holdings.hands["Ben"])
    s.apply(Gioco("Ben", tuple(hand)))
    assert len(s.holdings.hands["Ben"]) == 3 and not set(hand) & set(s.holdings.hands["Ben"])
    s.apply(Gioco("Carla"))
    assert s.phase == "play"


def test_obbligo_d_asso():
    s = italian(deals=[STRONG_ANNA], obbligo_asso=True)
    s.apply(Knock("Anna"))
    with pytest.raises(MustLeadTrumpAce):
        s.apply(Play("Anna", "3B"))
    s.apply(Play("Anna", "AB"))


def test_variant_names_and_render():
    s = game(FOUR, "5-card", seed=3)
    assert s.variant.name == "italian"
    text = ENGINE.render(s)
    assert "Bestia a 5 carte" in text and "pot 20" in text
    assert ENGINE.parse_command(s, "gioco anna 3 di denari RC") == Gioco("Anna", ("3D", "RC"))
    assert ENGINE.parse_command(s, "gioco Anna 2") == Gioco("Anna", (), 2)
    assert ENGINE.parse_command(s, "busso Anna") == Knock("Anna")
    assert ENGINE.parse_command(s, "terzo Anna") == Terzo("Anna")
