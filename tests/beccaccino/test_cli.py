"""`referee play beccaccino` and `referee check` on the bundled example and on typed lines."""

import json
from pathlib import Path

from click.testing import CliRunner

from referee.beccaccino import ENGINE
from referee.sessionlog import EXIT_OK, EXIT_VIOLATION
from tablereferee.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "datasets" / "games" / "example.beccaccino"


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def test_the_example_script_plays_to_a_right_call_out_and_checks(tmp_path):
    log = tmp_path / "game.db"
    result = run("play", "beccaccino", "--script", EXAMPLE, "--log", log, "--quiet")
    assert result.exit_code == EXIT_OK, result.output
    assert "Dan shows the Marafona (3 di spade, 2 di spade and Asso di spade): +3 for Ben & Dan." in result.output
    assert "Foul by Anna: the battezzante's partner looked before the declaration." in result.output
    assert "GAME OVER: Ben calls out with 31: right" in result.output
    checked = run("check", log, "--json")
    assert checked.exit_code == EXIT_OK, checked.output
    data = json.loads(checked.output)
    state = data.get("state", data.get("final", data))
    text = json.dumps(state)
    assert '"winner": "Ben+Dan"' in text and '"chiamata_fuori"' in text


def test_typed_lines_with_a_seed_refuse_a_revoke_and_keep_going(tmp_path):
    state = ENGINE.new_game({"players": ["A", "B", "C", "D"], "seed": 21})
    b = state.battezzante
    state.apply(ENGINE.parse_command(state, f"declare {b} coppe"))
    lead = next(c for c in state.holdings.hands[b])
    state.apply(ENGINE.parse_command(state, f"play {b} {lead}"))
    nxt = state.turn
    hand = state.holdings.hands[nxt]
    follow = [c for c in hand if c[-1] == lead[-1]]
    off = [c for c in hand if c[-1] != lead[-1]]
    assert follow and off, "seed 21 gives the second player a choice"
    lines = [f"declare {b} coppe", f"play {b} {lead} volo", f"play {nxt} {off[0]}", f"play {nxt} {follow[0]}"]
    log = tmp_path / "typed.db"
    result = run(
        "play", "beccaccino", "--players", "A,B,C,D", "--seed", 21, "--log", log, "--script", _script(tmp_path, lines)
    )
    assert result.exit_code == EXIT_VIOLATION  # one line was rejected
    assert "rejected: Revoke" in result.output
    assert "trick 1/10" in result.output
    checked = run("check", log)
    assert checked.exit_code == EXIT_OK, checked.output


def test_setup_errors_exit_with_usage(tmp_path):
    result = run(
        "play", "beccaccino", "--players", "A,B,C", "--log", tmp_path / "x.db", "--script", _script(tmp_path, [])
    )
    assert result.exit_code == 2 and "BadPlayerCount" in result.output


def _script(tmp_path, lines):
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(lines) + "\n")
    return path
