"""A Beccaccino lead's play button offers its announcements from the engine's legal actions
(busso, volo, striscio, each optional), never on a follow nor once its player has made one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens
from tests.web.conftest import bearer

PLAYERS = ["Anna", "Ben", "Carla", "Dan"]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TestClient, TableHub]]:
    keeper = Scorekeeper.start("beccaccino", {"players": PLAYERS}, tmp_path / "b.db", time=1_000.0)
    hub = TableHub(keeper, tokens=Tokens(code="PLAYME"))
    with TestClient(create_app(hub)) as client:
        yield client, hub
    keeper.close()


def play_button(client: TestClient, player: str) -> dict:
    token = client.post("/api/join", json={"code": "PLAYME", "player": player}).json()["token"]
    buttons = client.get("/api/me", headers=bearer(token)).json()["buttons"]
    return next(b for b in buttons if b["kind"] == "play")


def test_a_lead_offers_its_announcements_and_a_follow_none(table) -> None:
    client, hub = table
    scorer = bearer(hub.tokens.scorer_token)
    assert client.post("/api/commands", json={"command": "declare Dan spade"}, headers=scorer).status_code == 200
    lead = play_button(client, "Dan")
    assert lead["choose"]["call"] == {"choices": ["busso", "striscio", "volo"], "counts": [], "optional": True}
    assert "call" not in lead["action"] and lead["choose"]["card"]["choices"]
    for line in ["play Dan 3 di spade striscio", "play Anna Re di spade"]:
        assert client.post("/api/commands", json={"command": line}, headers=scorer).status_code == 200
    follow = play_button(client, "Ben")
    assert "call" not in follow["choose"] and follow["action"]["call"] is None
    for line in ["play Ben 6 di spade", "play Carla Cavallo di spade"]:
        assert client.post("/api/commands", json={"command": line}, headers=scorer).status_code == 200
    again = play_button(client, "Dan")  # Dan leads trick 2, but has said striscio this hand already
    assert "call" not in again["choose"] and again["action"]["call"] is None
    refused = client.post("/api/commands", json={"command": "play Dan 2 di spade busso"}, headers=scorer)
    assert refused.status_code == 422 and "already said striscio" in refused.json()["error"]["message"]


def test_a_lead_sent_without_its_announcement_is_a_plain_play(table) -> None:
    client, hub = table
    scorer = bearer(hub.tokens.scorer_token)
    assert client.post("/api/commands", json={"command": "declare Dan spade"}, headers=scorer).status_code == 200
    token = client.post("/api/join", json={"code": "PLAYME", "player": "Dan"}).json()["token"]
    lead = play_button(client, "Dan")
    sent = client.post("/api/commands", json={"action": {**lead["action"], "card": "3S"}}, headers=bearer(token))
    assert sent.status_code == 200, sent.text
    assert hub.keeper is not None and hub.keeper.log.entries[-1].payload["action"]["call"] is None
