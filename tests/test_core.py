import dataclasses

import pytest
from click.testing import CliRunner

from referee.core import (
    ENGINE_MODULES,
    Action,
    ActionCodec,
    Event,
    MalformedAction,
    TableEngine,
    TableState,
    UnknownGame,
    get_engine,
    get_table_engine,
    table_engine,
)
from referee.signal_cards import SIGNAL_CARDS, signal_card
from tablereferee.cli import cli


@dataclasses.dataclass(frozen=True)
class Pass(Action):
    kind = "pass"
    player: str
    cards: tuple[str, ...] = ()


CODEC = ActionCodec([Pass])


def test_action_round_trips_through_json_dict():
    action = Pass("ann", ("a", "b"))
    assert CODEC.from_dict(action.to_dict()) == action
    assert CODEC.from_dict({"kind": "pass", "player": "ann", "cards": ["a", "b"]}) == action


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"player": "ann"}, "'kind'"),
        ({"kind": "fly"}, "unknown action kind"),
        ({"kind": "pass", "player": "ann", "speed": 3}, "unknown fields"),
        ({"kind": "pass"}, "player"),
    ],
)
def test_malformed_actions_are_named(data, fragment):
    with pytest.raises(MalformedAction) as info:
        CODEC.from_dict(data)
    assert fragment in info.value.message
    assert info.value.to_dict()["error"] == "MalformedAction"


def test_unknown_game_is_named():
    with pytest.raises(UnknownGame):
        get_engine("chess")


def test_cli_lists_its_commands():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "Beccato" in result.output


def test_signal_cards_have_unique_ids_and_cover_the_printed_guide():
    ids = [card.id for card in SIGNAL_CARDS]
    assert len(ids) == len(set(ids))
    assert sum(card.printed for card in SIGNAL_CARDS) == 20  # the Signals Guide's 20 rows
    assert signal_card("hum").cue == "audio"
    with pytest.raises(KeyError):
        signal_card("juggle")


def test_an_event_keeps_its_data_as_it_was_when_announced():
    live = {"cards": ["orloff"]}
    event = Event("reveal", live)
    live["cards"].append("serama")
    assert event.to_dict() == {"kind": "reveal", "cards": ["orloff"]}


GAME_SETUPS = {
    "beccato": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 1},
    "beccaccino": {"players": ["Anna", "Ben", "Carla", "Dan"], "seed": 1},
    "bestia": {"players": ["Anna", "Ben", "Carla"], "seed": 1},
}


def test_every_registered_game_has_a_setup_here():
    assert set(GAME_SETUPS) == set(ENGINE_MODULES)


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_every_engine_keeps_the_tables_contract(game):
    engine = get_table_engine(game)
    assert isinstance(engine, TableEngine)
    assert isinstance(engine.lead_calls, tuple) and all(isinstance(c, str) for c in engine.lead_calls)
    state = engine.new_game(GAME_SETUPS[game])
    assert isinstance(state, TableState)
    assert state.to_play is None or isinstance(state.to_play, str)
    assert isinstance(state.leading, bool)
    assert isinstance(state.waiting_for()["step"], str)
    assert isinstance(state.standings(), dict)


def test_a_game_without_tricks_has_no_card_due_and_no_lead_calls():
    engine = get_table_engine("beccato")
    state = engine.new_game(GAME_SETUPS["beccato"])
    assert engine.lead_calls == ()
    assert state.to_play is None and state.leading is False
    assert state.standings() == state.scores()


def test_an_engine_without_the_tables_contract_is_refused():
    class Plain:
        name = "plain"
        version = "0"
        codec = CODEC

    with pytest.raises(UnknownGame):
        table_engine(Plain())
