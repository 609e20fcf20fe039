"""A real `referee serve` process on 127.0.0.1: phones over HTTP, the table screen over a
WebSocket, a reconnect, and kill -9 in the middle of a game."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from referee.scorekeeper import Scorekeeper
from tests.web.conftest import CODE, EGGS, PINS, SIGNALS, Served, bearer

WAIT = 15.0  # seconds a message may take before the test fails (it never sleeps)


def until(ws: Any, done: Any) -> dict[str, Any]:
    """The first message of `ws` for which `done(message)` holds."""
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if done(message):
            return message


def last_entry(message: dict[str, Any]) -> int | None:
    events = message.get("events") or []
    return events[-1]["entry"] if events else None


def test_two_phones_call_and_reveal_and_the_table_screen_sees_it(served: Served):
    with httpx.Client(base_url=served.url, timeout=WAIT) as http, connect(served.ws_url) as screen:
        first = json.loads(screen.recv(timeout=WAIT))
        assert first["type"] == "table" and first["events"] == []
        for line in EGGS:
            assert http.post("/api/commands", json={"command": line}, headers=bearer(served.scorer)).status_code == 200
        anna = bearer(http.post("/api/join", json={"code": served.code, "player": "Anna"}).json()["token"])
        carla = bearer(http.post("/api/join", json={"code": served.code, "player": "Carla"}).json()["token"])
        call = http.post("/api/commands", json={"action": {"kind": "coccode", "caller": "Anna"}}, headers=anna)
        assert call.status_code == 200, call.text
        assert until(screen, lambda m: last_entry(m) == 4)["waiting"]["players"] == ["Carla"]
        wrong = http.post("/api/commands", json={"command": "reveal Anna orloff orloff orloff"}, headers=carla)
        assert wrong.json()["error"]["name"] == "NotYourCall"
        reveal = {"kind": "reveal", "player": "Carla", "cards": ["orloff", "orloff", "orloff"]}
        assert http.post("/api/commands", json={"action": reveal}, headers=carla).status_code == 200
        seen = until(screen, lambda m: last_entry(m) == 5)
        assert "Carla" in seen["events"][-1]["text"]
        assert all(s not in json.dumps(seen) for s in SIGNALS.values())
    with connect(served.ws_url) as again:  # a screen that dropped: the table as it is now
        assert last_entry(json.loads(again.recv(timeout=WAIT))) == 5


def test_a_server_killed_mid_game_loses_nothing_it_accepted(served: Served, tmp_path):
    with httpx.Client(base_url=served.url, timeout=WAIT) as http:
        for line in EGGS:
            http.post("/api/commands", json={"command": line}, headers=bearer(served.scorer))
        ben = bearer(http.post("/api/join", json={"code": CODE, "player": "Ben"}).json()["token"])
        assert http.post("/api/commands", json={"command": "coccode Ben"}, headers=ben).status_code == 200
        before = http.get("/api/table").json()
    served.kill()
    again = Served([str(tmp_path / "served.db"), "--pin", f"Reds={PINS['Reds']}"], cwd=tmp_path)
    try:
        with httpx.Client(base_url=again.url, timeout=WAIT) as http:
            after = http.get("/api/table").json()
            assert [e["text"] for e in after["events"]] == [e["text"] for e in before["events"]]
            assert after["view"] == before["view"] and after["waiting"]["players"] == ["Dan"]
            dan = bearer(http.post("/api/join", json={"code": again.code, "player": "Dan"}).json()["token"])
            reveal = http.post("/api/commands", json={"command": "reveal Dan serama serama serama"}, headers=dan)
            assert reveal.status_code == 200 and reveal.json()["entry"] == 5  # the game goes on
    finally:
        again.stop()


def test_the_terminal_and_another_process_act_on_the_served_table(tmp_path):
    log = tmp_path / "typed.db"
    args = ["--game", "beccato", "--players", "Anna,Ben,Carla,Dan", "--log", str(log)]
    served = Served(args, cwd=tmp_path, prompt=True)
    try:
        with connect(served.ws_url) as screen:
            assert json.loads(screen.recv(timeout=WAIT))["events"] == []
            served.type("egg dollar-1")  # typed at the server's own terminal
            assert "dollar-1" in until(screen, lambda m: last_entry(m) == 1)["events"][-1]["text"]
            other = Scorekeeper.resume(log)  # `referee play --resume` on the same log, in another process
            try:
                assert other.submit("egg star-2", time=2.0).accepted
            finally:
                other.close()
            assert until(screen, lambda m: last_entry(m) == 2)["view"]["henhouses"]["padovana"] == "star-2"
        served.type("quit")
        assert served.proc.wait(WAIT) == 0
    finally:
        served.stop()
    assert any(line.startswith("#1 ") for line in served.lines)  # the terminal's own answer
    assert served.lines[-1] == f"log: {log}"


@pytest.mark.slow
def test_the_demo_serves_its_refereed_session(tmp_path):
    """`referee demo --serve` (about 30 s: the demo is refereed first)."""
    served = Served(
        ["--serve", "--quiet", "--no-clip", "--out", str(tmp_path / "demo")], cwd=tmp_path, timeout=240, command="demo"
    )
    try:
        with httpx.Client(base_url=served.url, timeout=WAIT) as http:
            table = http.get("/api/table").json()
            assert table["game"] == "beccato" and len(table["events"]) == 9
            assert http.get("/").status_code == 200
    finally:
        served.stop()
