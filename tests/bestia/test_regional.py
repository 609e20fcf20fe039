"""The regional cousins in bestia-3-card-en.txt, "Variants": Julepe and Mauscheln / Mousel."""

import pytest

from referee.bestia import ENGINE, BadExchange, Gioco, Knock, NotInThisVariant, Pass, Play, Rob
from referee.tricks import CardNotInHand, MustOvertake, OutOfOrder, OutOfTurn, Revoke
from tests.bestia.helpers import game, play_out, settled

THREE = ["Anna", "Ben", "Carla"]


def test_julepe_deck_drops_the_twos_when_fewer_than_six_play():
    assert len(game(THREE, "julepe", seed=1).deck) == 36
    assert len(game(THREE, "julepe", seed=1, without_twos=False).deck) == 40
    six = [f"P{i}" for i in range(6)]
    assert len(game(six, "julepe", seed=1).deck) == 40


JULEPE_DEAL = {
    "trump": "4B",
    "hands": {
        "Anna": ["AB", "3B", "RB", "5C", "6C"],
        "Ben": ["AC", "3C", "5D", "6D", "7D"],
        "Carla": ["7C", "4D", "5S", "6S", "7S"],
    },
}


def test_julepe_the_dealer_robs_the_trump_and_two_tricks_make_the_julepe():
    s = game(THREE, "julepe", deals=[JULEPE_DEAL], dealer="Carla")
    assert s.pot == 6  # the dealer's stake
    for p in THREE:
        s.apply(Knock(p))  # everyone plays
    assert s.phase == "exchange" and s.queue == THREE
    s.apply(Gioco("Anna"))
    with pytest.raises(BadExchange):
        s.apply(Gioco("Ben", ("AB",)))  # not his card
    s.apply(Gioco("Ben"))
    with pytest.raises(OutOfOrder):
        s.apply(Gioco("Carla"))  # the trump card first
    with pytest.raises(BadExchange):
        s.apply(Rob("Carla", "AC"))
    s.apply(Rob("Carla", "7S"))
    assert "4B" in s.holdings.hands["Carla"] and "7S" in s.thrown
    s.apply(Gioco("Carla"))
    assert s.phase == "play" and s.turn == "Anna"
    events = []
    for card in ["AB", "5D", "4B", "3B", "6D", "5S", "RB", "7D", "6S", "5C", "AC", "7C", "3C", "4D", "6C"]:
        events += s.apply(Play(s.turn, card))
    result = settled(events)
    assert result["tricks"] == {"Anna": 3, "Ben": 2, "Carla": 0}
    assert result["won"] == {"Anna": 3, "Ben": 3}  # both make the julepe: the pot is split
    assert result["bestia"] == ["Carla"] and result["paid"] == {"Carla": 6}
    assert s.chips_in_play() == s.total


def test_julepe_has_no_gioco_while_declaring():
    s = game(THREE, "julepe", seed=3)
    with pytest.raises(NotInThisVariant):
        s.apply(Gioco(s.queue[0]))


MAUSCHELN_DEAL = {
    "trump": "7H",
    "hands": {"Anna": ["8S", "9S", "10S", "JS"], "Ben": ["AS", "KS", "QS", "AD"], "Carla": ["7D", "8D", "9D", "10D"]},
}


def test_mauscheln_a_mauschler_with_no_trick_pays_double():
    s = game(THREE, "mauscheln", deals=[MAUSCHELN_DEAL], dealer="Carla")
    assert len(s.deck) == 32 and s.pot == 4
    s.apply(Knock("Anna"))  # "I play": Anna is the Mauschler and promises two tricks
    assert s.busser == "Anna" and s.joining and s.queue == ["Ben", "Carla"]
    s.apply(Knock("Ben"))  # joins
    s.apply(Pass("Carla"))
    assert s.phase == "exchange" and s.queue == ["Anna", "Ben"]
    with pytest.raises(OutOfTurn):
        s.apply(Gioco("Ben"))
    with pytest.raises(BadExchange):
        s.apply(Gioco("Anna", (), 5))
    s.apply(Gioco("Anna"))
    s.apply(Gioco("Ben"))
    assert s.turn == "Anna"  # the Mauschler leads
    s.apply(Play("Anna", "8S"))
    with pytest.raises(Revoke):
        s.apply(Play("Ben", "AD"))
    result = settled(play_out(s))
    assert result["tricks"] == {"Anna": 0, "Ben": 4}
    assert result["won"] == {"Ben": 4}
    assert result["paid"] == {"Anna": 8}  # twice the pot


def test_mauscheln_beat_the_trick_and_a_mauschler_with_one_trick_pays_the_pot():
    deal = {
        "trump": "7H",
        "hands": {
            "Anna": ["8S", "9S", "10S", "JS"],
            "Ben": ["AS", "KS", "7S", "AD"],
            "Carla": ["7D", "8D", "9D", "10D"],
        },
    }
    s = game(THREE, "mauscheln", deals=[deal], dealer="Carla")
    s.apply(Knock("Anna"))
    s.apply(Knock("Ben"))
    s.apply(Pass("Carla"))
    s.apply(Gioco("Anna"))
    s.apply(Gioco("Ben"))
    s.apply(Play("Anna", "8S"))
    with pytest.raises(MustOvertake):
        s.apply(Play("Ben", "7S"))  # he can beat the 8: he must
    events = []
    for card in ["AS", "AD", "9S", "KS", "10S", "7S", "JS"]:
        events += s.apply(Play(s.turn, card))
    result = settled(events)
    assert result["tricks"] == {"Anna": 1, "Ben": 3}
    assert result["paid"] == {"Anna": 4}  # one trick of the two promised: the pot


def test_mauscheln_nobody_joins_the_mauschler_takes_the_pot():
    s = game(THREE, "mauscheln", deals=[MAUSCHELN_DEAL], dealer="Carla", pot=8)
    s.apply(Pass("Anna"))
    s.apply(Knock("Ben"))
    events = s.apply(Pass("Carla")) + s.apply(Pass("Anna"))
    result = settled(events)
    assert result["won"] == {"Ben": 12} and result["bestia"] == []


def test_mauscheln_nobody_plays_the_pot_stays():
    s = game(THREE, "mauscheln", seed=2, pot=8)
    events = []
    for p in s.from_right():
        events += s.apply(Pass(p))
    result = settled(events)
    assert result["in"] == [] and result["next_pot"] == 12


def test_mauscheln_takes_all_52_cards_for_more_than_six():
    s = game([f"P{i}" for i in range(8)], "mauscheln", seed=1)
    assert len(s.deck) == 52 and all(len(h) == 4 for h in s.holdings.hands.values())


def test_julepe_rob_is_the_dealers_once():
    s = game(THREE, "julepe", deals=[JULEPE_DEAL], dealer="Carla")
    with pytest.raises(OutOfOrder):
        s.apply(Rob("Carla", "7S"))  # not before the exchange round
    for p in THREE:
        s.apply(Knock(p))
    with pytest.raises(OutOfTurn):
        s.apply(Rob("Carla", "7S"))
    s.apply(Gioco("Anna"))
    s.apply(Gioco("Ben"))
    with pytest.raises(BadExchange):
        s.apply(Rob("Carla"))  # the hand is known: name the discard
    s.apply(Rob("Carla", "4B"))  # taking the trump card and throwing it back is allowed
    with pytest.raises(OutOfOrder):
        s.apply(Rob("Carla", "7S"))
    classic = game(THREE, seed=1)
    with pytest.raises(NotInThisVariant):
        classic.apply(Rob("Anna", "KS"))


def test_julepe_without_a_known_deal():
    s = game(THREE, "julepe", dealer="Carla")
    assert s.legal_actions()[0].kind == "trump"
    s.apply(ENGINE.parse_command(s, "trump 4 di bastoni"))
    for p in THREE:
        s.apply(Knock(p))
    assert {a.count for a in s.legal_actions()} == {0, 1, 2, 3, 4, 5}
    s.apply(Gioco("Anna", (), 2))
    s.apply(Gioco("Ben", (), 0))
    assert s.legal_actions() == [Rob("Carla", None)]
    s.apply(ENGINE.parse_command(s, "rob Carla"))
    assert s.holdings.shown["Carla"] == ["4B"] and s.holdings.counts["Carla"] == 5
    s.apply(Gioco("Carla", (), 0))
    s.apply(Play("Anna", "AB"))
    with pytest.raises(CardNotInHand):
        s.apply(Play("Ben", "4B"))  # the dealer holds it
    assert all(a.kind == "play" for a in s.legal_actions())
