"""Fixtures of the web table's tests: a real browser, and phones on loopback WebSockets.

Real-browser fixtures: Debian's Chromium driven by Playwright's sync API (../shared/notes/STACK.md).

    def test_x(chromium, served):
        screen = chromium.new_context().new_page()
        screen.goto(served.url + "/")

`chromium` is one headless browser for the test module (a fresh profile: Playwright gives each
launch a new temporary user-data directory); every `new_context()` is a separate phone (its own
storage, its own token). `shots` is where screenshots are kept: pytest's tmp path, or
`$REFEREE_TEST_ARTIFACTS` when CI collects them; `$REFEREE_SCREENSHOTS=docs/images` also copies
the chosen ones there for the README (`keep`).

Phones without a browser (tests/web/test_load.py, scripts/bench_web.py):

    with Phones(url, code, scorer, per_player=5) as phones:   # 20 phones on a 4-player table
        report = phones.play(seconds=10)

A round of calls: every phone taps Coccodé at once (one wins, the others are refused by name), the
phones of each player to reveal send the reveal, and the scorer undoes both: the table is back
where it was and the log has grown by what was accepted. Every phone keeps its WebSocket open the
whole time and records each TableView it receives (with the time it arrived).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000  # how long a page may take to show what the server sent (the test never sleeps)
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
SCREEN = {"viewport": {"width": 1600, "height": 900}}

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt install chromium)"
)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # deferred: starts Playwright's driver; only browser tests need it

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REFEREE_TEST_ARTIFACTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keep(shot: Path, name: str) -> None:
    """Copy a screenshot to $REFEREE_SCREENSHOTS (docs/images for the README) when it is set."""
    target = os.environ.get("REFEREE_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(target) / name)


def errors_of(page: Any) -> list[str]:
    """The page's script errors and failed requests, collected from now on (a page must have none)."""
    seen: list[str] = []
    page.on("pageerror", lambda exc: seen.append(f"script error: {exc}"))
    page.on("console", lambda msg: seen.append(f"console: {msg.text}") if msg.type == "error" else None)
    return seen


# -- a server script of the test's own on 127.0.0.1 --------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(script: str, *args: str, wait: float = 60.0) -> Iterator[str]:
    """`python -c script PORT *args` in its own process from the repository root, until it
    accepts connections on 127.0.0.1:PORT (or dies): its address; stopped after."""
    import subprocess  # deferred: only the tests that start a server script
    import sys  # deferred: as above

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", script, str(port), *args], cwd=Path(__file__).resolve().parents[2])
    deadline = time.monotonic() + wait
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError("the test's server exited before it listened")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)  # a retry of the connection, not a wait for a result
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


# -- phones on loopback WebSockets -----------------------------------------------------------
PLAYERS = ["Anna", "Ben", "Carla", "Dan"]
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]  # as a browser's sockets: each request goes out at once


def client(url: str, token: str | None = None) -> httpx.Client:
    """An HTTP client for a phone (or the scorer) of the table at `url`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        base_url=url, timeout=30, headers=headers, transport=httpx.HTTPTransport(socket_options=NODELAY)
    )


REVEAL = ["orloff", "padovana", "brahma"]  # no triple: the call is wrong, nothing to choose


@dataclass
class Phone:
    player: str
    token: str
    http: httpx.Client
    socket: ClientConnection | None = None
    versions: list[int] = field(default_factory=list)
    seen: list[tuple[float, dict[str, Any]]] = field(default_factory=list)  # (arrival, message)
    errors: list[str] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)
    news: threading.Condition = field(default_factory=threading.Condition)

    def has(self, version: int) -> Callable[[], bool]:
        return lambda: bool(self.versions) and self.versions[-1] >= version

    def listen(self) -> None:
        assert self.socket is not None
        try:
            for raw in self.socket:
                message = json.loads(raw)
                if message.get("type") != "table":
                    self.errors.append(f"{self.player}: {message}")
                    continue
                with self.news:
                    self.versions.append(int(message["version"]))
                    self.seen.append((time.time(), message))
                    self.news.notify_all()
        except Exception as exc:  # noqa: BLE001  (a socket that drops is a failure the test reports)
            if not self.closed.is_set():
                self.errors.append(f"{self.player}: socket {type(exc).__name__}: {exc}")


@dataclass
class Report:
    rounds: int = 0
    accepted: list[int] = field(default_factory=list)  # entry numbers of accepted calls
    refused: Counter[str] = field(default_factory=Counter)  # the refusals' names
    failures: list[str] = field(default_factory=list)  # anything but a 200 or a named 4xx
    final_version: int = 0


class Phones:
    def __init__(self, url: str, code: str, scorer: str, *, per_player: int = 5) -> None:
        self.url = url
        self.code = code
        self.scorer = client(url, scorer)
        self.phones: list[Phone] = []
        for player in PLAYERS:
            for _ in range(per_player):
                http = client(url)
                answer = http.post("/api/join", json={"code": code, "player": player})
                answer.raise_for_status()
                token = answer.json()["token"]
                http.headers["Authorization"] = f"Bearer {token}"
                self.phones.append(Phone(player, token, http))
        self.pool = ThreadPoolExecutor(max_workers=len(self.phones) + 2)
        self.threads: list[threading.Thread] = []
        self.stack = contextlib.ExitStack()

    def __enter__(self) -> Phones:
        ws = self.url.replace("http://", "ws://") + "/ws?token="
        for phone in self.phones:
            phone.socket = self.stack.enter_context(connect(ws + phone.token, open_timeout=30, max_size=None))
            thread = threading.Thread(target=phone.listen, daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        for phone in self.phones:
            phone.closed.set()
        self.stack.close()
        for phone in self.phones:
            phone.http.close()
        for thread in self.threads:
            thread.join(10)
        self.pool.shutdown()
        self.scorer.close()

    def _post(self, client: httpx.Client, body: dict[str, Any], report: Report) -> dict[str, Any] | None:
        try:
            answer = client.post("/api/commands", json=body)
        except httpx.HTTPError as exc:
            report.failures.append(f"{body}: {type(exc).__name__}: {exc}")
            return None
        if answer.status_code == 200:
            data = answer.json()
            if data.get("entry") is not None:
                report.accepted.append(int(data["entry"]))
            return dict(data)
        try:
            error = answer.json()["error"]
            assert 400 <= answer.status_code < 500 and error["name"] and error["message"]
            report.refused[str(error["name"])] += 1
        except (ValueError, KeyError, AssertionError):
            report.failures.append(f"{body}: {answer.status_code} {answer.text[:200]}")
        return None

    def one_round(self, report: Report) -> None:
        """Every phone taps Coccodé at once; the players to reveal reveal; the scorer undoes it."""
        calls = [
            self.pool.submit(self._post, p.http, {"action": {"kind": "coccode", "caller": p.player}}, report)
            for p in self.phones
        ]
        won = [c.result() for c in calls]
        if sum(w is not None for w in won) != 1:
            report.failures.append(f"round {report.rounds}: {sum(w is not None for w in won)} Coccodé accepted, not 1")
            return
        view = self.scorer.get("/api/table").json()
        undo = 1
        for player in list(view["waiting"].get("players") or []):
            phone = next(p for p in self.phones if p.player == player)
            reveal = {"action": {"kind": "reveal", "player": player, "cards": REVEAL}}
            if self._post(phone.http, reveal, report) is not None:
                undo += 1
        for _ in range(undo):
            self._post(self.scorer, {"command": "undo"}, report)
        report.rounds += 1

    def play(self, seconds: float, first: tuple[str, ...] = ()) -> Report:
        """Rounds of calls for `seconds`, after the scorer's `first` lines (the eggs turned up)."""
        report = Report()
        for line in first:
            self._post(self.scorer, {"command": line}, report)
        end = time.monotonic() + seconds
        while time.monotonic() < end and not report.failures:
            self.one_round(report)
        report.final_version = int(self.scorer.get("/api/health").json()["version"])
        return report

    def settled(self, version: int, timeout: float = 30.0) -> list[Phone]:
        """The phones whose socket has not brought `version` within `timeout` seconds."""
        end = time.monotonic() + timeout
        for phone in self.phones:
            with phone.news:
                phone.news.wait_for(phone.has(version), max(0.0, end - time.monotonic()))
        return [p for p in self.phones if not p.versions or p.versions[-1] < version]
