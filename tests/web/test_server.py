"""A real `referee serve` process on 127.0.0.1: phones over HTTP, the table screen over a
WebSocket, a reconnect, and kill -9 in the middle of a game."""

from __future__ import annotations

import json
from typing import Any

import httpx
from websockets.sync.client import connect

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
