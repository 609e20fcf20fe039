"""`referee play bestia --variant ...` and `referee check` on the bundled examples."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.sessionlog import EXIT_OK, EXIT_VIOLATION
from tablereferee.cli import cli

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "datasets" / "games"


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


@pytest.mark.parametrize(
    "name, ending",
    [
        ("example.bestia", "GAME OVER after 2 deals: Anna +7, Ben +3, Carla -5, Dan +4, Eva -3"),
        ("italian.bestia", "GAME OVER after 2 deals"),
    ],
)
def test_example_scripts_play_and_check(tmp_path, name, ending):
    log = tmp_path / "game.db"
    result = run("play", "bestia", "--script", GAMES / name, "--log", log, "--quiet")
    assert result.exit_code == EXIT_OK, result.output
    assert ending in result.output
    checked = run("check", log, "--json")
    assert checked.exit_code == EXIT_OK, checked.output
    assert json.loads(checked.output)


def test_the_worked_example_in_the_scorekeeper(tmp_path):
    result = run("play", "bestia", "--script", GAMES / "example.bestia", "--log", tmp_path / "g.db")
    out = result.output
    assert "Deal 1 is settled: Anna wins 6 chips, Ben 3; Carla is in bestia; Carla pays 9 chips into the pot" in out
    assert "deal 2, dealer Anna; pot 12" in out


def test_variant_option_and_a_refused_card(tmp_path):
    # Seed 1, four players, A deals: B says busso and leads the 2 di spade; C holds the 5 and 6
    # di spade and the Fante di coppe: the Fante is a revoke.
    script = tmp_path / "lines.txt"
    script.write_text("busso B\nplay B 2 di spade\nplay C fante di coppe\nplay C 6S\n")
    log = tmp_path / "g.db"
    result = run(
        "play", "bestia", "--variant", "italian", "--players", "A,B,C,D", "--seed", 1, "--log", log, "--script", script
    )
    assert "Bestia a 5 carte" in result.output
    assert result.exit_code == EXIT_VIOLATION and "line 3: rejected: Revoke" in result.output
    assert "trick 1/5: B 2 di spade, C 6 di spade; D to play" in result.output
    assert run("check", log).exit_code == EXIT_OK


def test_unknown_variant_is_a_usage_error(tmp_path):
    script = tmp_path / "empty.txt"
    script.write_text("")
    result = run(
        "play", "bestia", "--variant", "scopa", "--players", "A,B,C", "--log", tmp_path / "g.db", "--script", script
    )
    assert result.exit_code == 2 and "scopa" in result.output and "julepe" in result.output
