"""The live table on the web: a recorded camera of the demo session served as a live one, its
frames drawn with their overlays, its decisions on the table screen's WebSocket."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import httpx
import numpy as np
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from referee.observations import CardReading, CardsSeen
from tablereferee.commands.live import load_table
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import PUBLIC_GRANT, Tokens
from tablereferee.web.live import LiveRunner
from tests.web.conftest import ROOT, Served, bearer
from vision.capture.sources import CameraFrame

DEMO = ROOT / "datasets" / "demo"
WAIT = 30.0


def test_a_frame_is_drawn_with_its_zones_and_the_cards_by_name_never_a_signal(tmp_path: Path) -> None:
    config = load_table(None, str(DEMO))
    runner = LiveRunner(config, {"cards": str(DEMO / "cameras" / "cards")}, tmp_path / "live")
    image = np.full((720, 1280, 3), 40, np.uint8)
    corners = ((500.0, 300.0), (600.0, 300.0), (600.0, 450.0), (500.0, 450.0))
    seen = CardsSeen(1.0, "cards", (CardReading("egg:star-3", 0.97, True, "eggs", corners),))
    runner.frame(CameraFrame("cards", 0, 1.0, image), [seen])
    assert runner._frames["cards"][2][0]["card"] == "Egg 3 (*)"  # the card's name, not its id
    drawn = cv2.imdecode(np.frombuffer(runner.jpeg("cards"), np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == image.shape
    assert drawn[300, 550, 1] > 150 and drawn[300, 550, 2] < 100  # the card's green outline
    seat = next(z for z in config.zones if z.name == "seat:Anna")
    x, y = (int(v) for v in seat.polygon[0])
    assert drawn[min(y, 719), min(x + 20, 1279)].min() > 150  # the seat's outline, in grey
    assert runner.jpeg("cards") == runner.jpeg("cards")  # one encoding per frame


def test_a_recorded_camera_served_live_reaches_the_table_screen(tmp_path: Path) -> None:
    args = ["--table", str(DEMO / "session.json"), "--live", f"cards={DEMO / 'cameras' / 'cards'}"]
    served = Served([*args, "--out", str(tmp_path / "live")], cwd=tmp_path, timeout=90)
    try:
        with httpx.Client(base_url=served.url, timeout=WAIT) as http, connect(served.ws_url) as screen:
            while True:  # the camera's first decision, pushed to the screen
                message = json.loads(screen.recv(timeout=WAIT))
                if any(e["source"] == "camera" for e in message["events"]):
                    break
            assert message["cameras"][0]["name"] == "cards" and "Egg" in message["events"][0]["text"]
            frame = http.get("/api/cameras/cards/frame.jpg")
            assert frame.headers["content-type"] == "image/jpeg"
            assert cv2.imdecode(np.frombuffer(frame.content, np.uint8), cv2.IMREAD_COLOR).shape == (720, 1280, 3)
            with http.stream("GET", "/api/cameras/cards/live.mjpg") as stream:
                assert stream.headers["content-type"].startswith("multipart/x-mixed-replace")
                chunks = b""
                for chunk in stream.iter_bytes():
                    chunks += chunk
                    if chunks.count(b"--frame") >= 2:
                        break
            assert b"Content-Type: image/jpeg" in chunks and b"\xff\xd8" in chunks
            assert http.get("/api/cameras/people/frame.jpg").json()["error"]["name"] == "NoCameras"
            anna = bearer(http.post("/api/join", json={"code": served.code, "player": "Anna"}).json()["token"])
            teammate = http.post("/api/commands", json={"command": "caught Anna Carla"}, headers=anna)
            assert teammate.status_code == 422 and teammate.json()["error"]["name"]  # checked before it is queued
    finally:
        served.stop()
    assert (tmp_path / "live" / "log.db").is_file()


def test_a_new_table_with_cameras_starts_a_live_table(tmp_path: Path) -> None:
    """What the New-table page hands on (`app.state.start_table(manifest)`) with a camera."""
    manifest = json.loads((DEMO / "session.json").read_text(encoding="utf-8"))
    manifest["cameras"] = {"cards": {"source": str(DEMO / "cameras" / "cards"), "kind": "video", "size": [1280, 720]}}
    manifest["calibration"] = None  # the cards' camera only
    hub = TableHub(tokens=Tokens())
    started = create_app(hub, sessions_dir=tmp_path).state.start_table(manifest)
    try:
        assert started["live"] is True and Path(started["folder"]).parent == tmp_path
        view = hub.table_view(PUBLIC_GRANT)
        assert view["ready"] and [c["name"] for c in view["cameras"]] == ["cards"]
        assert set(hub.tokens.pins) == set(view["teams"])
    finally:
        assert hub.live is not None
        hub.live.stop()  # type: ignore[attr-defined]


class AskingTable:
    """A live table (the hub's `LiveTable`) that asks one question and keeps the lines it gets."""

    def __init__(self, keeper) -> None:
        self.keeper = keeper
        self.lines: list[str] = []
        self.running = True

    def put_line(self, text: str) -> None:
        self.lines.append(text)

    def questions(self) -> list[dict]:
        asked = [] if any(line.startswith(("yes 7", "no 7")) for line in self.lines) else [7]
        return [{"id": q, "text": f"Question {q}: did Anna play? Answer yes {q} or no {q}."} for q in asked]

    def cameras(self) -> list[str]:
        return ["cards"]


def test_a_question_of_the_live_table_is_answered_with_one_tap(keeper) -> None:
    table = AskingTable(keeper)
    hub = TableHub(tokens=Tokens(code="ASKME"), live=table)
    with TestClient(create_app(hub)) as client:
        view = client.get("/api/table").json()
        assert view["questions"] == table.questions() and view["cameras"][0]["live"] == "/api/cameras/cards/live.mjpg"
        assert client.post("/api/questions/7", json={"answer": "yes"}).status_code == 403  # the public
        anna = bearer(client.post("/api/join", json={"code": "ASKME", "player": "Anna"}).json()["token"])
        assert client.get("/api/me", headers=anna).json()["questions"][0]["id"] == 7
        assert client.post("/api/questions/8", json={"answer": "no"}, headers=anna).status_code == 404
        answer = client.post("/api/questions/7", json={"answer": "no"}, headers=anna)
        assert answer.status_code == 200 and answer.json()["queued"] is True
        assert table.lines == ["no 7"] and client.get("/api/table").json()["questions"] == []
        call = client.post("/api/commands", json={"action": {"kind": "coccode", "caller": "Anna"}}, headers=anna)
        assert call.status_code == 422 and table.lines == ["no 7"]  # checked at once: nothing queued
        client.post("/api/commands", json={"command": "egg dollar-1"}, headers=bearer(hub.tokens.scorer_token))
        assert table.lines[-1] == "egg dollar-1"  # in order with what the cameras see
        table.running = False  # the cameras ended: the scorekeeper takes the lines itself
        client.post("/api/commands", json={"command": "egg star-2"}, headers=bearer(hub.tokens.scorer_token))
        assert len(keeper.log.entries) == 1 and table.lines[-1] == "egg dollar-1"
