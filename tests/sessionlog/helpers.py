"""Shared helpers for the session-log and scorekeeper tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from referee.core import ENGINE_MODULES
from referee.sessionlog import LogHeader, SessionLog

HERE = Path(__file__).resolve().parent
TOY_CLI = HERE / "toy_cli.py"
REPO = HERE.parent.parent


def register_toy(monkeypatch) -> None:
    """Make `get_engine("toy")` answer with the toy engine for one test."""
    monkeypatch.setitem(ENGINE_MODULES, "toy", "sessionlog.toy_engine")


def toy_header(players=("Ann", "Bob"), target=21, created=1_700_000_000.0) -> LogHeader:
    return LogHeader(
        game="toy",
        engine_version="1.0",
        setup={"players": list(players), "options": {"target": target}},
        created=created,
    )


def toy_cli_command(*args: str) -> list[str]:
    """argv for a real `referee` process that also knows the toy game."""
    return [sys.executable, str(TOY_CLI), *args]


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests")])
    env["PYTHONUNBUFFERED"] = "1"
    return env


def make_log(path, entries=()) -> SessionLog:
    log = SessionLog.create(path, toy_header())
    for kind, payload in entries:
        log.append(kind, payload, time=1_700_000_001.0)
    return log
