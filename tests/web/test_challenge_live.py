"""The instant challenge on a served live table: the demo's recorded camera served live, a phone's
Challenge tells every screen, its frames are served, and a
team's 4th challenge is refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np
from websockets.sync.client import ClientConnection, connect

from tests.web.conftest import ROOT, Served, bearer

DEMO = ROOT / "datasets" / "demo"
WAIT = 30.0


def next_of(screen: ClientConnection, kind: str, where: Any = lambda m: True) -> dict[str, Any]:
    while True:
        message = json.loads(screen.recv(timeout=WAIT))
        if message["type"] == kind and where(message):
            return message


def test_a_challenge_reaches_every_screen_and_a_fourth_is_refused(tmp_path: Path) -> None:
    args = ["--table", str(DEMO / "session.json"), "--live", f"cards={DEMO / 'cameras' / 'cards'}"]
    args += ["--out", str(tmp_path / "live"), "--challenge-seconds", "2"]
    served = Served(args, cwd=tmp_path, timeout=90)
    try:
        with httpx.Client(base_url=served.url, timeout=WAIT) as http, connect(served.ws_url) as screen:
            next_of(screen, "table", lambda m: any(e["source"] == "camera" for e in m["events"]))  # frames are in
            anna = bearer(http.post("/api/join", json={"code": served.code, "player": "Anna"}).json()["token"])
            left = http.get("/api/challenges").json()["left"]
            assert sorted(left.values()) == [3, 3]
            team = next(t for t, ms in http.get("/api/table").json()["teams"].items() if "Anna" in ms)

            made = http.post("/api/challenges", json={"accused": "Bruno"}, headers=anna)
            assert made.status_code == 200, made.text
            assert made.json()["by"] == "Anna" and made.json()["left"][team] == 2
            told = next_of(screen, "challenge")
            number = made.json()["number"]
            assert told == {
                "type": "challenge",
                "number": number,
                "headline": made.json()["headline"],
                "url": f"/challenge#n={number}",
            }
            assert "Bruno" in told["headline"]
            frames = http.get(f"/api/challenges/{number}").json()["cameras"][0]["frames"]
            assert len(frames) >= 2 and frames[-1]["t"] - frames[0]["t"] <= 2.1  # the seconds asked for
            picture = http.get(frames[0]["url"])
            assert picture.headers["content-type"] == "image/jpeg"
            assert cv2.imdecode(np.frombuffer(picture.content, np.uint8), cv2.IMREAD_COLOR).shape == (720, 1280, 3)
            assert http.get("/challenge").headers["content-type"].startswith("text/html")

            for _ in range(2):
                assert http.post("/api/challenges", json={"accused": "Bruno"}, headers=anna).status_code == 200
            fourth = http.post("/api/challenges", json={"accused": "Bruno"}, headers=anna)
            assert fourth.status_code == 409 and fourth.json()["error"]["name"] == "NoChallengesLeft"
            assert team in fourth.json()["error"]["message"]
            assert http.get("/api/challenges").json()["left"][team] == 0
            nobody = http.post("/api/challenges", json={"accused": "Bruno"})
            assert nobody.status_code == 401 and nobody.json()["error"]["name"] == "NotSignedIn"

    finally:
        served.stop()
