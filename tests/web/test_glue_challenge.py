"""The hub and the challenge together: a Caught! logged at the table opens its challenge (on the
hub's own thread, without using one of the team's), and every WebSocket is told."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from referee.scorekeeper import Scorekeeper
from tablereferee.challenge import ChallengeBook, Challenges
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens
from tests.web.conftest import CODE, PINS, SETUP, TEAMS, join, start_play
from vision.capture.sources import CameraFrame

STARTED = 1_000.0  # the log's created time: the session's time 0
CALLED = 2.5  # the session time the table's clock gives every call


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableHub, Challenges]]:
    keeper = Scorekeeper.start("beccato", SETUP, tmp_path / "table.db", time=STARTED)
    hub = TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS), clock=lambda: STARTED + CALLED)
    challenges = Challenges(book=ChallengeBook(per_team=1), teams=TEAMS, predraw=False)
    for i in range(40):  # 4 s of a real (drawn) camera at 10 fps
        image = np.full((120, 160, 3), 30 + 5 * i, np.uint8)
        challenges.buffer.add(CameraFrame("cards", i, i / 10, image))
    yield hub, challenges
    keeper.close()


def test_a_caught_called_at_the_table_opens_its_challenge_on_every_screen(table) -> None:
    hub, challenges = table
    with TestClient(create_app(hub, challenges=challenges)) as client:
        scorer = {"Authorization": f"Bearer {hub.tokens.scorer_token}"}
        start_play(client, scorer)
        anna = join(client, "Anna")
        with client.websocket_connect("/ws") as screen:
            assert screen.receive_json()["type"] == "table"
            called = client.post("/api/commands", json={"command": "caught Anna Ben"}, headers=anna)
            assert called.status_code == 200, called.text
            messages = [screen.receive_json() for _ in range(2)]  # the new view, and the challenge
            told = next(m for m in messages if m["type"] == "challenge")
            assert told == {
                "type": "challenge",
                **{k: told[k] for k in ("number", "headline")},
                "url": "/challenge#n=1",
            }
            assert told["headline"] == "Anna challenges Ben: the 2 s before the call at 2.50 s"
            made = client.get("/api/challenges/1").json()
            assert made["at"] == CALLED and made["cameras"][0]["frames"][-1]["t"] == CALLED
            assert client.get(made["cameras"][0]["frames"][0]["url"]).headers["content-type"] == "image/jpeg"
            assert client.get("/api/challenges").json()["left"] == {"Reds": 1, "Blues": 1}  # a call uses none
            asked = client.post("/api/challenges", json={"accused": "Ben"}, headers=anna)
            assert asked.status_code == 200 and asked.json()["left"]["Reds"] == 0
            assert screen.receive_json()["url"] == "/challenge#n=2"
            again = client.post("/api/challenges", json={"accused": "Ben"}, headers=anna)
            assert again.status_code == 409 and again.json()["error"]["name"] == "NoChallengesLeft"


def test_a_call_before_any_frame_stands_without_its_replay(tmp_path: Path) -> None:
    keeper = Scorekeeper.start("beccato", SETUP, tmp_path / "table.db", time=STARTED)
    hub = TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS), clock=lambda: STARTED + CALLED)
    challenges = Challenges(teams=TEAMS, predraw=False)  # no camera has sent a frame
    try:
        with TestClient(create_app(hub, challenges=challenges)) as client:
            start_play(client, {"Authorization": f"Bearer {hub.tokens.scorer_token}"})
            called = client.post("/api/commands", json={"command": "caught Anna Ben"}, headers=join(client, "Anna"))
            assert called.status_code == 200 and called.json()["entry"] is not None
            hub.close()  # the hub's thread has shown every action: none made a challenge
            assert hub._actions_seen == keeper.log.next_seq
            assert challenges.made == {} and keeper.log.entries[-1].payload["action"]["kind"] == "caught"
    finally:
        keeper.close()


def test_a_new_tables_live_cameras_bring_the_challenge(tmp_path: Path) -> None:
    """The New-table page's live table (`app.state.start_table(manifest)` with a video camera)."""
    import json  # deferred: only this test reads the demo's table

    from tests.web.conftest import ROOT, bearer

    demo = ROOT / "datasets" / "demo"
    manifest = json.loads((demo / "session.json").read_text(encoding="utf-8"))
    manifest["cameras"] = {"cards": {"source": str(demo / "cameras" / "cards"), "kind": "video", "size": [1280, 720]}}
    hub = TableHub(tokens=Tokens(code=CODE))
    app = create_app(hub, sessions_dir=tmp_path)
    with TestClient(app) as client:
        assert client.get("/api/challenges").json()["error"]["name"] == "NoChallengeTable"  # no table yet
        app.state.start_table(manifest)
        live = hub.live
        assert live is not None
        try:
            _, number = live.wait_jpeg("cards", -1, 30.0)  # type: ignore[attr-defined]
            assert number >= 0  # a frame is in, and so in the challenge's buffer
            anna = bearer(client.post("/api/join", json={"code": CODE, "player": "Anna"}).json()["token"])
            made = client.post("/api/challenges", json={"accused": "Bruno"}, headers=anna)
            assert made.status_code == 200, made.text
            assert made.json()["cameras"][0]["name"] == "cards" and sorted(made.json()["left"].values()) == [2, 3]
        finally:
            live.stop()  # type: ignore[attr-defined]
