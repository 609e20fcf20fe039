import dataclasses

import pytest
from click.testing import CliRunner

from tablereferee.cli import cli
from referee.core import Action, ActionCodec, MalformedAction, UnknownGame, get_engine


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
    from referee.signal_cards import SIGNAL_CARDS, signal_card

    ids = [card.id for card in SIGNAL_CARDS]
    assert len(ids) == len(set(ids))
    assert sum(card.printed for card in SIGNAL_CARDS) == 20  # the Signals Guide's 20 rows
    assert signal_card("hum").cue == "audio"
    with pytest.raises(KeyError):
        signal_card("juggle")


def test_an_event_keeps_its_data_as_it_was_when_announced():
    from referee.core import Event

    live = {"cards": ["orloff"]}
    event = Event("reveal", live)
    live["cards"].append("serama")
    assert event.to_dict() == {"kind": "reveal", "cards": ["orloff"]}
