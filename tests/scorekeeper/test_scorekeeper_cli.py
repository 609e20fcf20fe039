"""`referee play`, `referee check` and `referee export` over a game-agnostic toy engine."""

from __future__ import annotations

import json
import signal
import subprocess

import pytest
from click.testing import CliRunner
from sessionlog.helpers import register_toy, subprocess_env, toy_cli_command

from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    EXIT_VIOLATION,
    read_log,
)
from tablereferee.cli import cli


@pytest.fixture
def run(monkeypatch, tmp_path):
    register_toy(monkeypatch)
    monkeypatch.chdir(tmp_path)

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


PLAYERS = ["--players", "Ann,Bob,Cid", "--option", "target=12"]


def test_play_reads_stdin_rejects_illegal_lines_and_saves_each_accepted_one(run):
    result = run(
        "play",
        "toy",
        *PLAYERS,
        "--log",
        "g.db",
        input="Ann 2\nCid 3\nBob 7\nBob 3\nnote Cid coughs\nundo\nshow\nhelp\nhistory\nquit\nAnn 1\n",
    )
    assert result.exit_code == EXIT_OK, result.output
    out = result.output
    # the referee's words (referee.voice), never a repr: a game it has no sentences for reads too
    assert "#1 Ann 2\n  Added: player Ann; amount 2; total 2.\n" in out
    assert "rejected: NotYourTurn: It is Bob's turn" in out
    assert "rejected: BadAmount" in out
    assert "#4 undo\n  Entry #2 is undone" in out
    assert "(" + "entry=" not in out and "{" not in out
    assert "add PLAYER N" in out and "amend N <command>" in out  # the game's help and ours
    assert out.count("total 2/12; Bob to play") >= 3  # table shown after each step and on show
    entries = read_log("g.db").entries
    assert [(e.kind, e.source) for e in entries] == [
        ("action", "keyboard"),
        ("action", "keyboard"),
        ("note", "keyboard"),
        ("correction", "keyboard"),
    ]
    assert entries[0].payload["text"] == "Ann 2"
    assert "Ann 1" not in [e.payload.get("text") for e in entries]  # after quit


def test_play_builds_the_setup_from_options(run):
    result = run(
        "play",
        "toy",
        "--players",
        "Ann, Bob",
        "--teams",
        "Red=Ann;Blue=Bob",
        "--option",
        "target=5",
        "--option",
        "mood=calm",
        "--variant",
        "quick",
        "--seed",
        "4",
        "--log",
        "g.db",
        input="",
    )
    assert result.exit_code == EXIT_OK, result.output
    assert read_log("g.db").header.setup == {
        "players": ["Ann", "Bob"],
        "teams": {"Red": ["Ann"], "Blue": ["Bob"]},
        "options": {"target": 5, "mood": "calm", "variant": "quick"},
        "seed": 4,
    }


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--players", "Ann"], "BadSetup"),  # the engine refuses the table
        (["--players", "Ann,Bob", "--teams", "Red"], "NAME=Player"),
        (["--players", "Ann,Bob", "--option", "novalue"], "key=value"),
        ([], "players"),
    ],
)
def test_a_bad_setup_is_a_usage_error_and_makes_no_log(run, tmp_path, args, fragment):
    result = run("play", "toy", *args, "--log", "g.db", input="")
    assert result.exit_code == EXIT_USAGE
    assert fragment in result.output
    assert not (tmp_path / "g.db").exists()


def test_an_unknown_game_is_named(run):
    result = run("play", "chess", "--players", "Ann,Bob", input="")
    assert result.exit_code == EXIT_USAGE and "UnknownGame" in result.output


SCRIPT = """\
# a game of the toy, with its setup
---
players: [Ann, Bob]
options: {target: 6}
---
Ann 2
Bob 9
Bob 3
Ann 1
"""


def test_a_script_reports_illegal_lines_by_number_and_says_so_in_the_exit_code(run, tmp_path):
    (tmp_path / "game.toy").write_text(SCRIPT)
    result = run("play", "toy", "--script", "game.toy", "--log", "g.db")
    assert result.exit_code == EXIT_VIOLATION
    assert "line 7: rejected: BadAmount" in result.output
    assert "Ann won" in result.output
    assert [e.source for e in read_log("g.db").entries] == ["script"] * 3
    stopped = run("play", "toy", "--script", "game.toy", "--log", "h.db", "--stop-on-error")
    assert stopped.exit_code == EXIT_VIOLATION
    assert len(read_log("h.db").entries) == 1
    fine = SCRIPT.replace("Bob 9\n", "")
    (tmp_path / "fine.toy").write_text(fine)
    assert run("play", "toy", "--script", "fine.toy", "--log", "f.db", "--quiet").exit_code == EXIT_OK


def test_the_command_line_overrides_the_script_setup(run, tmp_path):
    (tmp_path / "game.toy").write_text(SCRIPT)
    result = run("play", "toy", "--script", "game.toy", "--option", "target=100", "--log", "g.db")
    assert read_log("g.db").header.setup["options"] == {"target": 100}
    assert "Ann won" not in result.output


def test_default_log_path_is_under_sessions(run, tmp_path):
    result = run("play", "toy", "--players", "Ann,Bob", input="Ann 1\n")
    logs = list((tmp_path / "sessions").glob("toy-*.db"))
    assert len(logs) == 1 and str(logs[0].name) in result.output
    assert len(read_log(logs[0]).entries) == 1


def test_resume_continues_an_sqlite_log_and_imports_an_export(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\nBob 3\n")
    result = run("play", "--resume", "g.db", input="Cid 1\n")
    assert result.exit_code == EXIT_OK, result.output
    assert "total 6/12; Ann to play" in result.output
    assert len(read_log("g.db").entries) == 3
    assert run("export", "g.db", "g.jsonl").exit_code == EXIT_OK
    result = run("play", "toy", "--resume", "g.jsonl", "--log", "copy.db", input="Ann 3\n")
    assert result.exit_code == EXIT_OK, result.output
    assert [e.payload["action"]["amount"] for e in read_log("copy.db").entries] == [2, 3, 1, 3]
    assert len(read_log("g.jsonl").entries) == 3  # the export is untouched
    refused = run("play", "toy", "--resume", "g.db", "--players", "X,Y", input="")
    assert refused.exit_code == EXIT_USAGE


def test_check_prints_the_final_state_or_the_first_violation(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\nBob 3\n")
    ok = run("check", "g.db")
    assert ok.exit_code == EXIT_OK and "legal: 2 entries, 2 actions" in ok.output
    as_json = run("check", "g.db", "--json")
    report = json.loads(as_json.output)
    assert report["legal"] is True and report["state"]["total"] == 5 and report["actions"] == 2
    # a hand-edited export: entry 2 is Cid's move, out of turn
    assert run("export", "g.db", "g.jsonl").exit_code == EXIT_OK
    lines = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    lines[2]["payload"]["action"]["player"] = "Cid"
    del lines[2]["checksum"]
    (tmp_path / "edited.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    bad = run("check", "edited.jsonl")
    assert bad.exit_code == EXIT_VIOLATION
    assert "entry 2: NotYourTurn: it is Bob's turn" in bad.output
    report = json.loads(run("check", "edited.jsonl", "--json").output)
    assert (report["legal"], report["entry"], report["violation"]) == (False, 2, "NotYourTurn")


def test_check_exit_codes_for_unreadable_and_damaged_logs(run, tmp_path):
    assert run("check", "missing.db").exit_code == EXIT_UNREADABLE
    (tmp_path / "notes.txt").write_text("shopping: eggs\n")
    assert run("check", "notes.txt").exit_code == EXIT_UNREADABLE
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\nBob 3\nCid 1\n")
    run("export", "g.db", "g.jsonl")
    text = (tmp_path / "g.jsonl").read_text()
    (tmp_path / "cut.jsonl").write_text(text[: len(text) - 20])
    damaged = run("check", "cut.jsonl")
    assert damaged.exit_code == EXIT_CORRUPT
    assert "LogCorrupt: entry 3" in damaged.output and "total 5/12" in damaged.output
    report = json.loads(run("check", "cut.jsonl", "--json").output)
    assert report["error"] == "LogCorrupt" and report["index"] == 3 and report["state"]["total"] == 5
    # export refuses, then salvages the intact entries
    assert run("export", "cut.jsonl", "saved.jsonl").exit_code == EXIT_CORRUPT
    assert run("export", "--salvage", "--accept-unsigned", "cut.jsonl", "saved.db").exit_code == EXIT_OK
    # the 2 intact entries, and a note that the damaged export's signature could not be checked
    assert [e.kind for e in read_log("saved.db").entries] == ["action", "action", "note"]
    assert run("play", "--resume", "cut.jsonl", "--log", "x.db", input="").exit_code == EXIT_CORRUPT


def test_export_to_stdout_and_never_over_a_file(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\n")
    out = run("export", "g.db", "-")
    header, entry = [json.loads(line) for line in out.stdout.splitlines()]
    assert header["format"] == "table-referee-log" and entry["seq"] == 1
    (tmp_path / "taken.jsonl").write_text("mine")
    assert run("export", "g.db", "taken.jsonl").exit_code == EXIT_UNREADABLE
    assert (tmp_path / "taken.jsonl").read_text() == "mine"


# -- a real process, killed -------------------------------------------------------------


def test_a_killed_scorekeeper_loses_nothing_typed(tmp_path):
    """Type lines into a real `referee play` process; each '#N' it prints comes after entry N
    is committed. Check the log from outside, then SIGKILL it mid-game and reopen."""
    log = tmp_path / "g.db"
    process = subprocess.Popen(
        toy_cli_command("play", "toy", "--players", "Ann,Bob,Cid", "--option", "target=99", "--log", str(log)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=subprocess_env(),
        cwd=tmp_path,
    )
    typed = ["Ann 2", "Bob 1", "Cid 3", "note Bob hums", "Ann 1", "Bob 2", "undo", "Bob 3"]
    try:
        for number, line in enumerate(typed, start=1):
            process.stdin.write(line + "\n")
            process.stdin.flush()
            for output in process.stdout:
                if output.startswith(f"#{number} ") or output.startswith(f"note #{number} "):
                    break
            else:
                pytest.fail(f"the process ended before acknowledging {line!r}")
            assert len(read_log(log).entries) == number  # synchronised on the log's contents
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGKILL
    entries = read_log(log).entries
    assert len(entries) == len(typed)
    assert [e.payload.get("text") for e in entries if e.kind == "action"] == [
        "Ann 2",
        "Bob 1",
        "Cid 3",
        "Ann 1",
        "Bob 2",
        "Bob 3",
    ]
    assert entries[6].payload == {"op": "undo", "target": 6}
    result = subprocess.run(
        toy_cli_command("check", str(log), "--json"), capture_output=True, text=True, env=subprocess_env(), timeout=60
    )
    assert result.returncode == EXIT_OK
    assert json.loads(result.stdout)["state"]["total"] == 10


def test_resuming_an_export_without_a_log_path_makes_a_new_log_under_sessions(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\n")
    run("export", "g.db", "g.jsonl")
    result = run("play", "--resume", "g.jsonl", input="Bob 1\n")
    assert result.exit_code == EXIT_OK, result.output
    (log,) = (tmp_path / "sessions").glob("toy-*.db")
    assert [e.payload["text"] for e in read_log(log).entries] == ["Ann 2", "Bob 1"]


# -- every registered game through the same scorekeeper and log ------------------------------


@pytest.mark.parametrize("game", ["beccato", "beccaccino", "bestia"])
def test_every_engine_plays_through_the_scorekeeper_and_replays_exactly(tmp_path, game):
    """The contract of referee/core.py is all the log and the scorekeeper rely on: a seeded
    game of each engine, played with random legal actions, replays to the same snapshot."""
    import random

    from referee.core import get_engine
    from referee.scorekeeper import Scorekeeper
    from referee.sessionlog import replay

    engine = get_engine(game)
    setup = {"players": ["Ann", "Bob", "Cid", "Dee", "Eva", "Fio"][: 6 if game == "beccato" else 4], "seed": 5}
    keeper = Scorekeeper.start(engine, setup, tmp_path / "g.db", time=0.0)
    rng = random.Random(5)
    steps = 0
    while not keeper.state.is_over and steps < 150:
        keeper.act(rng.choice(keeper.state.legal_actions()), time=float(steps), source="script")
        steps += 1
    assert steps > 0
    result = replay(read_log(tmp_path / "g.db"))
    assert result.legal and result.applied == steps
    assert result.state.snapshot() == keeper.state.snapshot()
    assert engine.render(result.state) == keeper.table()
    keeper.close()


def test_check_names_a_hand_written_correction_of_a_note(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\nnote thinking\nBob 1\n")
    run("export", "g.db", "g.jsonl")
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    bad = {
        "seq": 4,
        "time": 9.0,
        "source": "keyboard",
        "confidence": 1.0,
        "kind": "correction",
        "payload": {"op": "undo", "target": 2},
        "events": [],
    }
    (tmp_path / "bad.jsonl").write_text("\n".join(lines + [json.dumps(bad)]) + "\n")
    result = run("check", "bad.jsonl")
    assert result.exit_code == EXIT_VIOLATION
    assert "entry 4: NoSuchEntry: entry 2 is not an action of this game" in result.output
    assert "total 3/12" in result.output  # the state before the bad correction


def test_check_events_compares_what_was_announced_with_what_the_engine_says_now(run, tmp_path):
    run("play", "toy", *PLAYERS, "--log", "g.db", input="Ann 2\nBob 3\nCid 1\namend 1 Ann 1\nAnn 2\n")
    assert run("check", "g.db", "--events").exit_code == EXIT_OK  # amended pasts are not compared
    run("export", "g.db", "g.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    lines[5]["events"][0]["total"] = 99  # entry 5, after the amend: recorded 7, the engine says 7
    del lines[5]["checksum"]
    (tmp_path / "edited.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert run("check", "edited.jsonl").exit_code == EXIT_OK
    result = run("check", "edited.jsonl", "--events")
    assert result.exit_code == EXIT_VIOLATION
    assert "entry 5: EventsDiffer" in result.output
    report = json.loads(run("check", "edited.jsonl", "--events", "--json").output)
    assert report["details"]["recorded"][0]["total"] == 99 and report["details"]["replayed"][0]["total"] == 7
