"""Classic 3-card Bestia (bestia-3-card-en.txt), col buco, and the house rules."""

import pytest

from referee.bestia import (
    ENGINE,
    Buco,
    BucoTaken,
    Doctor,
    Gioco,
    Knock,
    NotInThisVariant,
    Pass,
    Play,
    Show,
    Terzo,
    TurnTrump,
)
from referee.core import GameAlreadyOver, MalformedAction, get_engine
from referee.tricks import (
    BadDeal,
    BadOption,
    BadPlayerCount,
    CardAlreadyPlayed,
    CardNotInDeck,
    CardNotInHand,
    MustLeadTrump,
    MustLeadTrumpAce,
    MustPlayHighestTrump,
    MustTrump,
    OutOfOrder,
    OutOfTurn,
    PlayerNotInGame,
    Revoke,
    UnknownOption,
)
from tests.bestia.helpers import game, play_out, settled

FIVE = ["Anna", "Ben", "Carla", "Dan", "Eva"]


def test_registered_under_its_name():
    assert get_engine("bestia") is ENGINE


def test_the_nine_chip_pot_settled_six_and_three_with_carla_in_bestia():
    # Stake 3, the pot holds 9 (6 left over + Eva's stake). Anna and Ben knock, Carla takes new
    # cards, the others pass. Anna wins two tricks (6), Ben one (3), Carla none: she pays 9.
    # With the next dealer's 3 the next pot holds 12: 4 a trick.
    deal = {
        "trump": "5H",
        "hands": {
            "Anna": ["AH", "3H", "KS"],
            "Ben": ["AS", "QD", "JC"],
            "Carla": ["2C", "4D", "5C"],
            "Dan": ["7D", "6D", "5D"],
            "Eva": ["7C", "4C", "JD"],
        },
        "stock": ["4S", "2D", "6C"],
    }
    s = game(FIVE, deals=[deal], dealer="Eva", pot=6, stake=3)
    assert s.pot == 9 and s.stacks["Eva"] == 47
    assert s.queue[0] == "Anna"  # the player to the dealer's right speaks first
    for action in [Knock("Anna"), Knock("Ben"), Pass("Carla"), Pass("Dan"), Pass("Eva")]:
        s.apply(action)
    assert s.phase == "doctor" and s.queue == ["Carla", "Dan", "Eva"]
    s.apply(Doctor("Carla"))
    assert s.holdings.hands["Carla"] == ["4S", "2D", "6C"]  # blind, from the stock
    s.apply(Doctor("Dan", accept=False))
    s.apply(Doctor("Eva", accept=False))
    assert s.phase == "play" and s.turn == "Anna"  # first player in to the dealer's right
    events = []
    for card in ["AH", "JC", "2D", "3H", "QD", "6C", "KS", "AS", "4S"]:
        events += s.apply(Play(s.turn, card))
    result = settled(events)
    assert result["tricks"] == {"Anna": 2, "Ben": 1, "Carla": 0}
    assert result["won"] == {"Anna": 6, "Ben": 3}
    assert result["bestia"] == ["Carla"] and result["paid"] == {"Carla": 9}
    assert result["next_pot"] == 9
    assert s.dealer == "Anna" and s.pot == 12  # the next dealer's stake
    assert s.stacks == {"Anna": 50 + 6 - 3, "Ben": 53, "Carla": 41, "Dan": 50, "Eva": 47}
    assert s.chips_in_play() == s.total == 5 * 50 + 6


def test_k_spades_4_hearts_7_hearts():
    # Hearts are trumps. Ben leads the K♠; Carla has no spades and must trump (4♥); Dan plays
    # his last trump, the 7♥, and wins the trick; he leads next.
    deal = {
        "trump": "2H",
        "hands": {
            "Anna": ["QS", "JS", "2S"],
            "Ben": ["KS", "AD", "3D"],
            "Carla": ["4H", "5D", "6C"],
            "Dan": ["7H", "2D", "3C"],
        },
    }
    s = game(["Anna", "Ben", "Carla", "Dan"], deals=[deal], dealer="Anna")
    for p in ["Ben", "Carla", "Dan", "Anna"]:
        s.apply(Knock(p))
    assert s.turn == "Ben"
    s.apply(Play("Ben", "KS"))
    before = s.snapshot()
    with pytest.raises(MustTrump):
        s.apply(Play("Carla", "5D"))
    assert s.snapshot() == before
    s.apply(Play("Carla", "4H"))
    with pytest.raises(MustTrump):
        s.apply(Play("Dan", "2D"))
    s.apply(Play("Dan", "7H"))
    events = s.apply(Play("Anna", "2S"))
    won = next(e for e in events if e.kind == "trick_won")
    assert won.data["winner"] == "Dan" and s.turn == "Dan"


def test_revoke_and_out_of_turn_are_refused():
    deal = {
        "trump": "2H",
        "hands": {
            "Anna": ["QS", "JD", "2C"],
            "Ben": ["KS", "AD", "3D"],
            "Carla": ["4S", "5D", "6C"],
            "Dan": ["7H", "2D", "3C"],
        },
    }
    s = game(["Anna", "Ben", "Carla", "Dan"], deals=[deal], dealer="Anna")
    with pytest.raises(OutOfTurn):
        s.apply(Knock("Carla"))
    with pytest.raises(OutOfOrder):
        s.apply(Play("Ben", "KS"))
    with pytest.raises(PlayerNotInGame):
        s.apply(Knock("Zed"))
    for p in ["Ben", "Carla", "Dan", "Anna"]:
        s.apply(Knock(p))
    s.apply(Play("Ben", "KS"))
    with pytest.raises(Revoke):
        s.apply(Play("Carla", "5D"))
    with pytest.raises(OutOfTurn):
        s.apply(Play("Dan", "7H"))
    with pytest.raises(CardNotInHand):
        s.apply(Play("Carla", "AD"))


def test_one_player_in_takes_the_pot_without_play():
    s = game(FIVE, seed=1, pot=6)
    s.apply(Pass("Ben"))
    s.apply(Knock("Carla"))
    for p in ["Dan", "Eva", "Anna"]:
        s.apply(Pass(p))
    events = []
    for p in ["Ben", "Dan", "Eva", "Anna"]:
        events += s.apply(Doctor(p, accept=False))
    result = settled(events)
    assert result["won"] == {"Carla": 9} and result["bestia"] == [] and result["next_pot"] == 0
    assert s.pot == 3  # the next dealer's stake only


def test_nobody_in_leaves_the_pot():
    s = game(FIVE, seed=2, pot=6, doctor=False)
    events = []
    for p in ["Ben", "Carla", "Dan", "Eva", "Anna"]:
        events += s.apply(Pass(p))
    result = settled(events)
    assert result["in"] == [] and result["next_pot"] == 9 and s.pot == 12


def test_the_doctor_reshuffles_the_hands_of_players_who_are_out():
    # ten players: 1 trump card + 30 dealt leaves a stock of 9
    ten = [f"P{i}" for i in range(10)]
    s = game(ten, seed=3)
    assert s.stock_count == 9
    for p in s.from_right():
        s.apply(Pass(p))
    order = list(s.queue)
    out_hand = s.holdings.hands[order[0]]
    s.apply(Doctor(order[0], accept=False))  # out: the hand may be reshuffled
    for p in order[1:4]:
        s.apply(Doctor(p))
    assert s.stock_count == 0
    s.apply(Doctor(order[4]))  # the stock is empty: the out hand is reshuffled and dealt
    assert sorted(s.holdings.hands[order[4]]) == sorted(out_hand)
    s.apply(Doctor(order[5], accept=False))
    assert s.status[order[5]] == "out"
    # S5 (nothing left, and nobody out yet to throw in a hand): tests/bestia/test_doctor.py


def test_going_to_the_doctor_without_a_known_deal():
    s = game(["Anna", "Ben", "Carla"])  # nothing known
    with pytest.raises(OutOfOrder):
        s.apply(Knock("Ben"))
    with pytest.raises(CardNotInDeck):
        s.apply(TurnTrump("10H"))
    s.apply(TurnTrump("4C"))
    assert s.trump == "C" and s.phase == "speak"
    s.apply(Knock("Ben"))
    s.apply(Pass("Carla"))
    s.apply(Knock("Anna"))
    s.apply(Doctor("Carla"))
    assert s.holdings.counts["Carla"] == 3 and s.stock_count == 40 - 1 - 9 - 3
    s.apply(Play("Ben", "KS"))
    with pytest.raises(MalformedAction):
        ENGINE.parse_command(s, "play Carla 4C zz")
    with pytest.raises(CardAlreadyPlayed):
        s.apply(Play("Carla", "4C"))  # the trump card is face up on the table


def test_a_revoke_revealed_later_costs_the_pot_when_the_table_says_so():
    s = game(["Anna", "Ben", "Carla"], offence_costs_pot=True, stake=3, pot=0)
    s.apply(TurnTrump("2C"))
    for p in ["Ben", "Carla", "Anna"]:
        s.apply(Knock(p))
    s.apply(Play("Ben", "KS"))
    s.apply(Play("Carla", "5D"))  # no spade, no club, says Carla
    s.apply(Play("Anna", "AS"))
    s.apply(Play("Anna", "3D"))
    s.apply(Play("Ben", "4D"))
    events = s.apply(Play("Carla", "QS"))  # a spade after all
    revealed = [e.data for e in events if e.kind == "offence_revealed"]
    assert revealed[0]["offence"] == "Revoke" and revealed[0]["trick"] == 1
    events = s.apply(Play("Anna", "JH"))
    events += s.apply(Play("Ben", "7H"))
    events += s.apply(Play("Carla", "5H"))
    result = settled(events)
    # Anna took all three: Carla pays the pot (3) for the bestia and the pot again for the revoke
    assert result["tricks"] == {"Ben": 0, "Carla": 0, "Anna": 3}
    assert result["paid"] == {"Ben": 3, "Carla": 6}


def test_bestia_col_buco():
    deal = {
        "trump": "2H",
        "buco": ["AH", "3H", "KH"],
        "hands": {"Anna": ["QS", "JD", "2C"], "Ben": ["KS", "AD", "3D"], "Carla": ["4S", "5D", "6C"]},
    }
    s = game(["Anna", "Ben", "Carla"], variant="buco", deals=[deal], dealer="Anna")
    s.apply(Buco("Ben"))
    assert s.holdings.hands["Ben"] == ["AH", "3H", "KH"] and s.status["Ben"] == "in"
    with pytest.raises(BucoTaken):
        s.apply(Buco("Carla"))
    s.apply(Knock("Carla"))
    s.apply(Pass("Anna"))
    s.apply(Doctor("Anna", accept=False))
    result = settled(play_out(s))
    assert result["tricks"]["Ben"] == 3 and result["bestia"] == ["Carla"]
    plain = game(["Anna", "Ben", "Carla"], seed=1)
    with pytest.raises(NotInThisVariant):
        plain.apply(Buco("Ben"))
    with pytest.raises(NotInThisVariant):
        plain.apply(Gioco("Ben"))
    with pytest.raises(NotInThisVariant):
        plain.apply(Terzo("Ben"))


def test_house_rules_on_leading_are_enforced():
    deal = {
        "trump": "2H",
        "hands": {"Anna": ["QS", "JD", "2C"], "Ben": ["AH", "4H", "3D"], "Carla": ["3H", "KH", "6C"]},
    }
    s = game(
        ["Anna", "Ben", "Carla"], deals=[deal], dealer="Anna", lead_trump_ace=True, highest_trump=True, lead_trump=True
    )
    for p in ["Ben", "Carla", "Anna"]:
        s.apply(Knock(p))
    with pytest.raises(MustLeadTrumpAce):
        s.apply(Play("Ben", "3D"))
    s.apply(Play("Ben", "AH"))
    with pytest.raises(MustPlayHighestTrump):
        s.apply(Play("Carla", "KH"))
    s.apply(Play("Carla", "3H"))
    s.apply(Play("Anna", "QS"))
    with pytest.raises(MustLeadTrump):
        s.apply(Play("Ben", "3D"))


def test_a_house_rule_broken_unseen_costs_the_pot():
    s = game(["Anna", "Ben", "Carla"], lead_trump_ace=True, pot=6)
    s.apply(TurnTrump("2H"))
    for p in ["Ben", "Carla", "Anna"]:
        s.apply(Knock(p))
    s.apply(Play("Ben", "3D"))  # Ben claims he has no Ace of hearts
    s.apply(Play("Carla", "KD"))
    s.apply(Play("Anna", "4D"))
    assert s.turn == "Ben"
    s.apply(Play("Ben", "AH"))  # ...he had it
    assert s.offences[0]["offence"] == "MustLeadTrumpAce" and s.offences[0]["penalised"]
    s.apply(Play("Carla", "5S"))
    s.apply(Play("Anna", "6S"))
    s.apply(Play("Ben", "7C"))
    s.apply(Play("Carla", "JC"))
    result = settled(s.apply(Play("Anna", "4C")))
    pot = result["pot"]
    assert result["paid"]["Ben"] == pot  # the pot for the offence (Ben won tricks: no bestia)
    assert "Ben" not in result["bestia"]


def test_payment_cap_limits_a_bestia():
    deal = {
        "trump": "5H",
        "hands": {"Anna": ["AH", "3H", "KH"], "Ben": ["2S", "4D", "5C"], "Carla": ["7D", "6D", "5D"]},
    }
    s = game(["Anna", "Ben", "Carla"], deals=[deal], dealer="Carla", pot=27, cap=10)
    for p in ["Anna", "Ben"]:
        s.apply(Knock(p))
    s.apply(Pass("Carla"))
    s.apply(Doctor("Carla", accept=False))
    result = settled(play_out(s))
    assert result["pot"] == 30 and result["paid"] == {"Ben": 10}
    assert s.chips_in_play() == s.total


def test_forced_round_after_a_deal_without_bestia():
    s = game(["Anna", "Ben", "Carla"], seed=4, forced_round=True, doctor=False)
    for p in ["Ben", "Carla", "Anna"]:
        s.apply(Pass(p))
    assert s.deal_no == 1 and s.forced
    assert s.phase == "play" and all(v == "in" for v in s.status.values())


def test_settlement_remainder_stays_in_the_pot():
    deal = {
        "trump": "5H",
        "hands": {"Anna": ["AH", "3H", "KH"], "Ben": ["2S", "4D", "5C"], "Carla": ["7D", "6D", "5D"]},
    }
    s = game(["Anna", "Ben", "Carla"], deals=[deal], dealer="Carla", pot=7)
    s.apply(Knock("Anna"))
    s.apply(Knock("Ben"))
    s.apply(Pass("Carla"))
    s.apply(Doctor("Carla", accept=False))
    result = settled(play_out(s))
    # pot 10: a trick is worth 3, Anna takes 9, 1 stays, Ben pays 10 into the next pot
    assert result["won"] == {"Anna": 9} and result["next_pot"] == 1 + 10


def test_the_game_ends_after_the_agreed_deals_with_nobody_in_bestia():
    s = game(["Anna", "Ben", "Carla"], seed=5, deals_to_play=1, doctor=False)
    events = []
    for p in ["Ben", "Carla", "Anna"]:
        events += s.apply(Pass(p))
    assert s.is_over and s.result["deals"] == 1 and s.result["pot_left"] == 3
    assert s.result["gained"]["Anna"] == -3
    with pytest.raises(GameAlreadyOver) as info:
        s.apply(Knock("Ben"))
    assert info.value.details["result"] == s.result  # the error says how the game ended
    assert "GAME OVER" in ENGINE.render(s)


@pytest.mark.parametrize(
    "setup, error",
    [
        ({"players": ["A", "B"]}, BadPlayerCount),
        ({"players": ["A", "B", "C"], "options": {"stake": 4}}, BadOption),
        ({"players": ["A", "B", "C"], "options": {"without_twos": True}}, BadOption),
        ({"players": [f"P{i}" for i in range(8)], "options": {"variant": "julepe"}}, BadPlayerCount),
        ({"players": ["A", "B", "C"], "options": {"variant": "poker"}}, BadOption),
        ({"players": ["A", "B", "C"], "options": {"colour": 1}}, UnknownOption),
        ({"players": ["A", "B", "C"], "options": {"cap": 0}}, BadOption),
        ({"players": ["A", "B", "C"], "options": {"forced_round": "maybe"}}, BadOption),
        ({"players": ["A", "B", "C"], "options": {"variant": "italian", "buco": True}}, BadOption),
        ({"players": ["A", "B", "C"], "deals": [{"trump": "2H", "hands": {"A": ["AH"]}}]}, BadDeal),
        ({"players": ["A", "B", "C"], "deals": True}, BadDeal),
        ({"players": ["A", "B", "C"], "deals": [{"trump": "2H", "hands": True}]}, BadDeal),
        ({"players": ["A", "B", "C"], "deals": [{"trump": 2, "hands": {"A": [1]}}]}, BadDeal),
        (
            {
                "players": ["A", "B", "C"],
                "deals": [
                    {
                        "trump": "AH",
                        "hands": {"A": ["AH", "2H", "3H"], "B": ["4H", "5H", "6H"], "C": ["7H", "JH", "QH"]},
                    }
                ],
            },
            BadDeal,
        ),
    ],
)
def test_bad_setups_are_named(setup, error):
    with pytest.raises(error):
        ENGINE.new_game(setup)


def test_scorekeeper_lines_and_render():
    s = game(FIVE, seed=1)
    p = ENGINE.parse_command
    assert p(s, "knock ben") == Knock("Ben")
    assert p(s, "pass Carla") == Pass("Carla")
    assert p(s, "doctor Dan") == Doctor("Dan")
    assert p(s, "decline Dan") == Doctor("Dan", False)
    assert p(s, "play Anna K♠") == Play("Anna", "KS")
    assert p(s, "play Anna king of spades") == Play("Anna", "KS")
    assert p(s, "buco Eva") == Buco("Eva")
    assert p(s, "trump 4♥") == TurnTrump("4H")
    for bad in ["", "fly Anna", "knock", "play Anna", "play Anna 10♥", "gioco Anna zz"]:
        with pytest.raises(MalformedAction):
            p(s, bad)
    text = ENGINE.render(s)
    assert "pot 3" in text and "Ben speaks" in text
    assert ENGINE.command_help().count("\n") >= 8


def test_view_hides_the_other_hands_and_the_stock():
    s = game(FIVE, seed=1)
    v = s.view("Ben")
    assert v["cards"]["hand"] == s.holdings.hands["Ben"]
    assert "stock" not in v and "hands" not in v["cards"]
    assert s.snapshot()["stock"] == s.stock


def test_actions_round_trip_through_the_codec():
    for action in [
        Knock("A"),
        Pass("B"),
        Gioco("C", ("KS", "2D")),
        Gioco("C", (), 2),
        Terzo("D"),
        Buco("E"),
        Doctor("F", False),
        Play("G", "KS"),
        TurnTrump("4H"),
    ]:
        assert ENGINE.codec.from_dict(action.to_dict()) == action


def test_a_card_seen_in_a_hand_reveals_an_offence():
    s = game(["Anna", "Ben", "Carla"], offence_costs_pot=True)
    assert s.is_chance_node and s.waiting_for() == {"step": "trump"}
    s.apply(TurnTrump("2C"))
    for p in ["Ben", "Carla", "Anna"]:
        s.apply(Knock(p))
    s.apply(Play("Ben", "KS"))
    s.apply(Play("Carla", "5D"))  # no spade and no club, says Carla
    events = s.apply(ENGINE.parse_command(s, "seen Carla 4♣"))
    assert [e.kind for e in events] == ["seen", "offence_revealed"]
    assert s.offences[0]["offence"] == "MustTrump" and s.offences[0]["penalised"]
    with pytest.raises(CardNotInHand):
        s.verify(Show("Anna", ("4C",)))
    with pytest.raises(CardNotInHand):
        s.verify(Show("Carla", ("AH", "3H")))  # two cards left, one of them known
    assert s.waiting_for() == {"step": "play", "player": "Anna", "trick": 1}
    twin = s.copy()
    s.apply(Play("Anna", "AS"))
    assert twin.trick == [("Ben", "KS"), ("Carla", "5D")]
