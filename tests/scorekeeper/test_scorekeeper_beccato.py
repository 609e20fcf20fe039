"""The scorekeeper, the log and `referee check` with the real Beccato! engine."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core import get_engine
from referee.scorekeeper import Scorekeeper
from referee.sessionlog import (
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    CorrectionBreaksLaterEntry,
    first_event_difference,
    read_log,
    replay,
    write_jsonl,
)
from tablereferee.cli import cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "datasets" / "games" / "example.beccato"
SIX = ["Nicola", "Simona", "Claudia", "Federico", "Cecilia", "Mariano"]
TEAMS = {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico", "Mariano"]}
CALLS = ("coccode", "caught", "chicchirichi")


def _random_action(state, rng, call_rate):
    if state.is_chance_node:
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    legal = state.legal_actions()
    calls = [a for a in legal if a.kind in CALLS]
    others = [a for a in legal if a.kind not in CALLS]
    if calls and (not others or rng.random() < call_rate):
        return rng.choice(calls)
    return rng.choice(others)


def test_the_readme_example_runs_to_the_end_in_a_real_process(tmp_path):
    log = tmp_path / "example.db"
    result = subprocess.run(
        [sys.executable, "-m", "tablereferee.cli", "play", "beccato", "--script", str(EXAMPLE), "--log", str(log)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    assert "GAME OVER (Reds reached 6 eggs): winner: Reds" in result.stdout
    assert "rejected" not in result.stdout
    contents = read_log(log)
    assert [e.kind for e in contents.entries].count("correction") == 1
    assert contents.header.setup["teams"] == TEAMS
    assert list(contents.header.setup["teams"]) == ["Reds", "Blues"]  # the order is kept


def test_the_example_replays_to_the_same_state_from_sqlite_and_from_the_export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    played = runner.invoke(cli, ["play", "beccato", "--script", str(EXAMPLE), "--log", "g.db", "--quiet"])
    assert played.exit_code == EXIT_OK, played.output
    live_table = played.output.split("GAME OVER")[0].rsplit("Beccato!", 1)[1]
    assert runner.invoke(cli, ["export", "g.db", "g.jsonl"]).exit_code == EXIT_OK
    sqlite_report = json.loads(runner.invoke(cli, ["check", "g.db", "--json"]).output)
    jsonl_report = json.loads(runner.invoke(cli, ["check", "g.jsonl", "--json"]).output)
    assert sqlite_report["legal"] and sqlite_report["is_over"]
    assert sqlite_report["state"] == jsonl_report["state"]
    assert sqlite_report["state"]["result"]["winners"] == ["Reds"]
    checked = runner.invoke(cli, ["check", "g.db"])
    assert live_table in checked.output  # the same table as the live game showed


def test_illegal_lines_are_rejected_by_name_and_play_goes_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = [
        "egg star-3",
        "egg dollar-1",
        "egg moon-2",
        "egg sun-5",
        "egg dollar-6",
        "caught Nicola Claudia",  # a teammate
        "coccode Giovanni",  # not at the table
        "reveal Claudia orloff orloff",  # nobody asked
        "egg star-3",  # already on a henhouse
        "coccode Nicola",
        "reveal Claudia orloff orloff orloff",
    ]
    result = CliRunner().invoke(
        cli,
        [
            "play",
            "beccato",
            "--players",
            ",".join(SIX),
            "--teams",
            "Reds=Nicola,Claudia,Cecilia;Blues=Simona,Federico,Mariano",
            "--log",
            "g.db",
        ],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == EXIT_OK, result.output
    for name in ("WrongTeam", "CallerNotInGame", "OutOfOrder"):
        assert f"rejected: {name}" in result.output
    assert result.output.count("rejected:") == 4
    assert "waiting for: the hand of Cecilia" in result.output
    assert len(read_log("g.db").entries) == 7


def test_a_bad_beccato_table_is_refused_before_any_log_exists(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["play", "beccato", "--players", "Ann,Bob,Cid", "--log", "g.db"], input="")
    assert result.exit_code == EXIT_USAGE and "BadPlayerCount" in result.output
    result = CliRunner().invoke(
        cli, ["play", "beccato", "--players", ",".join(SIX), "--option", "turbo=true", "--log", "g.db"], input=""
    )
    assert result.exit_code == EXIT_USAGE and "UnknownOption" in result.output
    assert not (tmp_path / "g.db").exists()


def test_a_script_with_an_illegal_line_exits_with_the_violation_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = EXAMPLE.read_text().replace(
        "reveal Claudia orloff orloff orloff\n", "reveal Claudia orloff orloff orloff orloff orloff\n", 1
    )
    (tmp_path / "bad.beccato").write_text(text)
    result = CliRunner().invoke(
        cli, ["play", "beccato", "--script", "bad.beccato", "--log", "g.db", "--quiet", "--stop-on-error"]
    )
    assert result.exit_code == EXIT_VIOLATION
    number = text.splitlines().index("reveal Claudia orloff orloff orloff orloff orloff") + 1
    assert f"line {number}: rejected: " in result.output


def test_amending_a_call_that_later_reveals_depend_on_is_refused(tmp_path):
    engine = get_engine("beccato")
    keeper = Scorekeeper.start(engine, {"players": SIX, "teams": TEAMS}, tmp_path / "g.db", time=0.0)
    for i, line in enumerate(
        [
            "egg star-3",
            "egg dollar-1",
            "egg moon-2",
            "egg sun-5",
            "egg dollar-6",
            "coccode Nicola",
            "reveal Claudia orloff orloff orloff",
        ]
    ):
        assert keeper.submit(line, time=float(i)).accepted
    outcome = keeper.submit("amend 6 coccode Simona", time=9.0)  # then Claudia was never asked
    assert isinstance(outcome.error, CorrectionBreaksLaterEntry)
    assert outcome.error.details == {
        "entry": 7,
        "violation": "NotAskedToReveal",
        "reason": outcome.error.details["reason"],
    }
    assert keeper.submit("amend 7 reveal Claudia orloff orloff orloff serama", time=10.0).accepted
    assert replay(read_log(tmp_path / "g.db")).state.snapshot() == keeper.state.snapshot()


OPTION_SETS = [
    {},
    {"egg_pyramid": True},
    {"calling_chickens": True, "signal_change": True},
    {"caught_reward": "deck", "pass_direction": "right", "serama_triple_counts": True},
]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), options=st.sampled_from(OPTION_SETS), players=st.sampled_from([4, 5, 6]))
def test_random_full_knowledge_games_replay_exactly(tmp_path_factory, seed, options, players):
    """A seeded game played to the end through the scorekeeper (with a few undos on the way)
    replays from the SQLite log and from its export to the same snapshot."""
    folder = tmp_path_factory.mktemp("game")
    engine = get_engine("beccato")
    setup = {"players": SIX[:players], "options": options, "seed": seed}
    keeper = Scorekeeper.start(engine, setup, folder / "g.db", time=0.0)
    rng = random.Random(seed)
    steps = 0
    while not keeper.state.is_over and steps < 400:
        action = _random_action(keeper.state, rng, call_rate=0.15)
        keeper.act(action, time=float(steps), source="script")
        if rng.random() < 0.03:
            keeper.undo(time=float(steps))
        steps += 1
    keeper.close()
    contents = read_log(folder / "g.db")
    result = replay(contents, keep_events=True)
    assert result.legal
    assert result.state.snapshot() == keeper.state.snapshot()
    assert first_event_difference(contents, result) is None
    buffer = io.StringIO()
    write_jsonl(contents, buffer)
    (folder / "g.jsonl").write_text(buffer.getvalue())
    assert replay(read_log(folder / "g.jsonl")).state.snapshot() == keeper.state.snapshot()


@pytest.mark.parametrize("script", sorted((REPO / "datasets" / "games").glob("*.*")), ids=lambda p: p.name)
def test_every_example_script_plays_to_the_end_and_checks_legal(tmp_path, monkeypatch, script):
    monkeypatch.chdir(tmp_path)
    game = script.suffix.lstrip(".")
    runner = CliRunner()
    played = runner.invoke(cli, ["play", game, "--script", str(script), "--log", "g.db", "--quiet"])
    assert played.exit_code == EXIT_OK, played.output
    assert "rejected" not in played.output
    report = json.loads(runner.invoke(cli, ["check", "g.db", "--json", "--events"]).output)
    assert report["legal"] and report["is_over"]  # and every announcement replays identically


def test_the_variants_example_scores_the_pyramids(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = REPO / "datasets" / "games" / "variants.beccato"
    CliRunner().invoke(cli, ["play", "beccato", "--script", str(script), "--log", "g.db", "--quiet"])
    state = replay(read_log("g.db")).state
    assert {team: score["points"] for team, score in state.result["scores"].items()} == {"Reds": 15, "Blues": 4}
