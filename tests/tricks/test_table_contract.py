"""Beccaccino and Bestia meet the live table's contract (referee.core.TableState, TableEngine):
whose card is due, whether it leads a trick, the announcements a lead carries, the standings."""

import json

import pytest

from referee import beccaccino, bestia
from referee.core import TableEngine, TableState, get_table_engine
from tests.beccaccino.helpers import PLAYERS, new
from tests.bestia.helpers import game


@pytest.mark.parametrize("name", ["beccaccino", "bestia"])
def test_states_are_table_states(name):
    engine = get_table_engine(name)
    assert isinstance(engine, TableEngine)
    setup = {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 1}
    assert isinstance(engine.new_game(setup), TableState)


def test_beccaccino_lead_calls_are_the_calls_a_lead_may_carry():
    assert beccaccino.ENGINE.lead_calls == ("busso", "volo", "striscio")
    s = new(seed=3)
    s.apply(beccaccino.Declare(s.battezzante, "C"))
    card = s.holdings.hands[s.turn][0]
    for call in beccaccino.ENGINE.lead_calls:
        assert s.can(beccaccino.Play(s.turn, card, call))
    assert not s.can(beccaccino.Play(s.turn, card, "knock"))


def test_bestia_plays_carry_no_call():
    assert bestia.ENGINE.lead_calls == ()
    assert "call" not in bestia.ENGINE.codec.classes["play"].__dataclass_fields__


def test_beccaccino_to_play_and_leading_follow_the_trick():
    s = new(seed=3)
    assert s.waiting_for()["step"] == "declare"
    assert s.to_play is None and not s.leading
    s.apply(beccaccino.Declare(s.battezzante, "C"))
    assert s.to_play == s.battezzante and s.leading
    leader = s.turn
    s.apply(beccaccino.Play(leader, s.playable(leader)[0]))
    assert s.to_play == s.next_of(leader) and not s.leading
    while len(s.trick) < 3:
        s.apply(beccaccino.Play(s.turn, s.playable(s.turn)[0]))
    s.apply(beccaccino.Play(s.turn, s.playable(s.turn)[0]))
    assert s.trick == [] and s.leading and s.to_play == s.last_trick["winner"]


def test_beccaccino_standings_are_the_team_points():
    s = new(seed=3)
    assert s.standings() == {
        "Anna+Carla": {"points": 0, "players": ["Anna", "Carla"]},
        "Ben+Dan": {"points": 0, "players": ["Ben", "Dan"]},
    }
    s.apply(beccaccino.Declare(s.battezzante, "C"))
    while s.hand_no == 0:
        s.apply(beccaccino.Play(s.turn, s.playable(s.turn)[0]))
    assert {t: v["points"] for t, v in s.standings().items()} == s.scores
    assert sum(s.scores.values()) == 11
    assert json.loads(json.dumps(s.standings())) == s.standings()


def test_beccaccino_is_over_for_the_table():
    s = new(seed=3)
    s.apply(beccaccino.CallOut(PLAYERS[0]))
    assert s.is_over and s.waiting_for() == {"step": "over"}
    assert s.to_play is None and not s.leading


def test_bestia_to_play_only_in_the_tricks():
    s = game(["Anna", "Ben", "Carla"], seed=1)
    assert s.waiting_for()["step"] == "speak"
    assert s.to_play is None and not s.leading
    for p in list(s.queue):
        s.apply(bestia.Knock(p))
    assert s.phase == "play" and s.to_play == s.turn and s.leading
    s.apply(bestia.Play(s.turn, s.playable(s.turn)[0]))
    assert s.to_play == s.turn and not s.leading


def test_bestia_standings_are_each_players_chips():
    s = game(["Anna", "Ben", "Carla"], seed=1, chips=50, stake=3, pot=0, dealer="Carla")
    assert s.standings() == {
        "Anna": {"chips": 50, "gained": 0},
        "Ben": {"chips": 50, "gained": 0},
        "Carla": {"chips": 47, "gained": -3},
    }
    assert sum(v["chips"] for v in s.standings().values()) + s.pot == s.total
