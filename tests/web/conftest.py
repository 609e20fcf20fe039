"""Fixtures of the web table: a Beccato! table with two teams and their secret signals, its hub
and application, and a real `referee serve` process on 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Anna", "Ben", "Carla", "Dan"]
TEAMS = {"Reds": ["Anna", "Carla"], "Blues": ["Ben", "Dan"]}
SIGNALS = {"Reds": "touch_chin_left", "Blues": "cards_middle_upside_down"}
SETUP: dict[str, Any] = {"players": PLAYERS, "teams": TEAMS, "signals": SIGNALS}
PINS = {"Reds": "1111", "Blues": "2222"}
CODE = "JOINME"
EGGS = ["egg dollar-1", "egg star-2", "egg moon-3"]  # the three henhouses filled: play begins


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def keeper(tmp_path: Path) -> Iterator[Scorekeeper]:
    k = Scorekeeper.start("beccato", SETUP, tmp_path / "table.db", time=1_000.0)
    yield k
    k.close()


@pytest.fixture
def hub(keeper: Scorekeeper) -> TableHub:
    return TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS), join_base="http://table.test")


@pytest.fixture
def client(hub: TableHub) -> Iterator[TestClient]:
    with TestClient(create_app(hub)) as c:
        yield c


@pytest.fixture
def scorer(hub: TableHub) -> dict[str, str]:
    return bearer(hub.tokens.scorer_token)


def join(client: TestClient, player: str) -> dict[str, str]:
    answer = client.post("/api/join", json={"code": CODE, "player": player})
    assert answer.status_code == 200, answer.text
    return bearer(answer.json()["token"])


def start_play(client: TestClient, scorer: dict[str, str]) -> None:
    for line in EGGS:
        assert client.post("/api/commands", json={"command": line}, headers=scorer).status_code == 200


class Served:
    """`referee serve ...` as a real process on 127.0.0.1 and a free port: `url` once its
    `serving on` line is printed (read from its stdout, no sleeping)."""

    def __init__(
        self, args: list[str], cwd: Path, timeout: float = 30.0, *, command: str = "serve", prompt: bool = False
    ) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        quiet = [] if prompt or command != "serve" else ["--no-prompt"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablereferee.cli", command, *args, "--port", "0", *quiet],
            cwd=cwd,
            stdin=subprocess.PIPE if prompt else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr_file(cwd),  # a file: chatter on stderr can never fill a pipe and stall it
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        found = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("serving on "):
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(timeout) or self.proc.poll() is not None:
            self.kill()
            raise AssertionError(f"the server did not start: {self.lines} {self.stderr()[-3000:]}")
        self.url = next(line for line in self.lines if line.startswith("serving on ")).split()[-1]
        self.scorer = self.line("scorer: ").rsplit("scorer=", 1)[1]
        self.code = re.search(r"\(code (\w+)\)", self.line("join: ")).group(1)  # type: ignore[union-attr]

    def _stderr_file(self, cwd: Path) -> Any:
        self._err_path = cwd / f"server-{id(self)}.err"
        return self._err_path.open("w", encoding="utf-8")

    def stderr(self) -> str:
        return self._err_path.read_text(encoding="utf-8", errors="replace")

    def type(self, line: str) -> None:
        """A line typed at the server's terminal (a server started with `prompt=True`)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def line(self, prefix: str) -> str:
        return next(line for line in self.lines if line.startswith(prefix))

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def kill(self) -> None:
        """kill -9: nothing is flushed, nothing is closed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A new Beccato! table served by a real process (log: tmp_path/served.db)."""
    args = ["--game", "beccato", "--players", ",".join(PLAYERS), "--teams", "Reds=Anna,Carla;Blues=Ben,Dan"]
    args += [f"--signal={t}={s}" for t, s in SIGNALS.items()] + [f"--pin={t}={p}" for t, p in PINS.items()]
    server = Served([*args, "--code", CODE, "--log", str(tmp_path / "served.db")], cwd=tmp_path)
    yield server
    server.stop()
