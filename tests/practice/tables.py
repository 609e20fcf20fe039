"""Shared set-ups of the practice tests: a folder of recorded sessions holding the demo session
(`referee demo`, made once per test process by tests/test_challenge.py), a copy of it whose
teams made Bruno's raise of the right hand the Blues' secret signal, and a refereed Beccato!
table with its teams, their signals and PINs."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

from referee.scorekeeper import Scorekeeper
from referee.sessionlog import SessionLog, read_log
from tests.test_challenge import demo_folder

PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
TEAMS = {"Reds": ["Anna", "Carla"], "Blues": ["Bruno", "Dario"]}
PINS = {"Reds": "1111", "Blues": "2222"}
CODE = "PRACT1"


def demo_sessions(folder: Path) -> Path:
    """`folder/demo`: the demo session (one signal on camera: Bruno's raise at 1.76-2.08 s)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(demo_folder(), folder / "demo")
    return folder


def secret_sessions(folder: Path, signals: dict[str, str]) -> Path:
    """`folder/teams`: the demo session with teams and `signals` in its log's setup."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "teams"
    shutil.copytree(demo_folder(), target)
    contents = read_log(target / "log.db")
    for extra in [target / "log.db", *target.glob("log.db-*")]:
        extra.unlink()
    setup = {**contents.header.setup, "teams": TEAMS, "signals": signals}
    SessionLog.create(target / "log.db", dataclasses.replace(contents.header, setup=setup), contents.entries).close()
    return folder


def table(tmp: Path, signals: dict[str, str]) -> tuple[Any, Scorekeeper]:
    """A hub refereeing a Beccato! table of the demo's players, with `signals` and PINS."""
    from tablereferee.web import TableHub  # deferred: the web table
    from tablereferee.web.auth import Tokens  # deferred: as above

    setup = {"players": PLAYERS, "teams": TEAMS, "signals": signals}
    keeper = Scorekeeper.start("beccato", setup, tmp / "table.db", time=1_000.0)
    return TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS), join_base="http://table.test"), keeper


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
