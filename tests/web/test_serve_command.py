"""`referee serve`'s options: what it refuses before anything is opened or listened on."""

from __future__ import annotations

from click.testing import CliRunner

from tablereferee.cli import cli
from tests.web.conftest import ROOT


def serve(*args: str):
    return CliRunner().invoke(cli, ["serve", *args, "--no-prompt"])


def test_serve_needs_exactly_one_table():
    assert serve().exit_code == 2
    both = serve("--new", "--game", "beccato")
    assert both.exit_code == 2 and "name one table" in both.output


def test_live_cameras_need_the_tables_zones():
    answer = serve("--game", "beccato", "--players", "A,B,C,D", "--live", "cards=0")
    assert answer.exit_code == 2 and "--live needs the table's zones" in answer.output


def test_a_session_that_cannot_be_read_is_refused_by_name(tmp_path):
    for session in (tmp_path / "missing.db", ROOT / "datasets" / "demo"):  # a recording is not a log
        answer = serve(str(session))
        assert answer.exit_code == 3 and answer.output.startswith("error: LogUnreadable"), answer.output
        assert "Traceback" not in answer.output


def test_a_bad_setup_is_refused_by_the_engine_before_any_log_is_made(tmp_path):
    log = tmp_path / "t.db"
    answer = serve("--game", "beccato", "--players", "Anna,Ben", "--log", str(log))
    assert answer.exit_code == 2 and "error: " in answer.output and not log.exists()


def test_a_port_in_use_is_a_usage_error(tmp_path):
    import socket  # deferred: this test's own listener

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        answer = CliRunner().invoke(
            cli, ["serve", "--game", "beccato", "--players", "A,B,C,D", "--port", port, "--log", str(tmp_path / "d.db")]
        )
    assert answer.exit_code == 2 and "cannot listen" in answer.output
