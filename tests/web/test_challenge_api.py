"""The challenge routes (tablereferee/web/challenge_routes.py): a challenge made from the demo
session's frames fed through the buffer, its frames served drawn, and the refusals named."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tablereferee.challenge import Challenges, fill_from_session
from tablereferee.web.review import review_app
from tests.test_challenge import demo_folder
from tests.web.conftest import CODE, bearer, hub, keeper  # noqa: F401


def table(until: float = 4.5) -> Challenges:
    challenges = Challenges(predraw=False)  # drawn on request: the frames asked for are drawn
    challenges.teams_from_session(demo_folder())
    fill_from_session(challenges.buffer, demo_folder(), until=until)
    return challenges


@pytest.fixture(scope="module")
def filled():
    challenges = table()
    yield challenges
    challenges.close()


@pytest.fixture
def client(filled: Challenges):
    filled.made.clear()
    filled.book.used.clear()
    with TestClient(review_app(None, challenges=filled)) as c:
        yield c


def refused(answer, status: int, name: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["name"] == name
    assert answer.json()["error"]["message"]


def test_a_challenge_is_ready_with_every_camera_and_its_phases(client):
    made = client.post("/api/challenges", json={"accused": "Bruno", "by": "Anna"})
    assert made.status_code == 200, made.text
    ch = made.json()
    assert ch["made_in"] < 2.0 and ch["team"] == "dollar" and ch["left"]["dollar"] == 2
    assert [p["name"] for p in ch["phases"]] == ["normal", "slow"] and ch["phases"][1]["rate"] == 0.25
    assert ch["cue"]["source"] == "signal" and "Bruno" in ch["headline"]
    cams = {c["name"]: c["frames"] for c in ch["cameras"]}
    assert set(cams) == {"cards", "people"} and len(cams["cards"]) >= 40
    frame = client.get(cams["people"][20]["url"])
    assert frame.status_code == 200 and frame.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(frame.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (360, 640, 3)
    assert client.get("/api/challenges/latest").json()["number"] == ch["number"]
    assert client.get(f"/api/challenges/{ch['number']}").json()["cue"] == ch["cue"]
    listed = client.get("/api/challenges").json()
    assert [c["number"] for c in listed["challenges"]] == [ch["number"]] and listed["left"]["star"] == 3
    assert client.get("/challenge").status_code == 200


def test_a_fourth_challenge_of_a_team_is_refused(client):
    for _ in range(3):
        assert client.post("/api/challenges", json={"accused": "Bruno", "by": "Carla"}).status_code == 200
    refused(client.post("/api/challenges", json={"accused": "Bruno", "by": "Anna"}), 409, "NoChallengesLeft")
    assert client.post("/api/challenges", json={"accused": "Anna", "by": "Dario"}).status_code == 200


@pytest.mark.parametrize(
    "method, url, body, status, name",
    [
        ("post", "/api/challenges", {"accused": "Zed"}, 404, "UnknownPlayer"),
        ("post", "/api/challenges", {"accused": "Bruno", "by": "Zed"}, 404, "UnknownPlayer"),
        ("post", "/api/challenges", {"by": "Anna"}, 422, "BadRequest"),
        ("post", "/api/challenges", {"accused": ""}, 422, "BadRequest"),
        ("get", "/api/challenges/latest", None, 404, "NoSuchChallenge"),
        ("get", "/api/challenges/7", None, 404, "NoSuchChallenge"),
        ("get", "/api/challenges/seven", None, 422, "BadRequest"),
        ("delete", "/api/challenges", None, 405, "MethodNotAllowed"),
    ],
)
def test_bad_requests_are_named(client, method, url, body, status, name):
    answer = client.request(method.upper(), url, json=body) if body is not None else client.request(method.upper(), url)
    refused(answer, status, name)


def test_a_frame_that_is_not_there_is_named(client):
    number = client.post("/api/challenges", json={"accused": "Bruno"}).json()["number"]
    refused(client.get(f"/api/challenges/{number}/frames/people/9999.jpg"), 404, "NoSuchFrame")
    refused(client.get(f"/api/challenges/{number}/frames/attic/0.jpg"), 404, "NoSuchFrame")


def test_a_table_without_cameras_has_no_challenges():
    with TestClient(review_app(None)) as c:
        refused(c.post("/api/challenges", json={"accused": "Bruno"}), 409, "NoChallengeTable")
    with TestClient(review_app(None, challenges=Challenges(teams={"a": ["Ann"]}))) as c:
        refused(c.post("/api/challenges", json={"accused": "Ann", "by": "Ann"}), 409, "NothingToReplay")


def test_on_a_table_a_challenge_is_a_players_own(filled, hub):  # noqa: F811
    app = review_app(None, challenges=filled)
    app.state.hub = hub  # the table's tokens: Anna, Ben, Carla, Dan with their teams
    filled.teams = {"Reds": ["Anna", "Carla"], "Blues": ["Ben", "Dan", "Bruno"]}
    with TestClient(app) as c:
        refused(c.post("/api/challenges", json={"accused": "Bruno"}), 401, "NotSignedIn")
        anna = bearer(c_join(hub, "Anna"))
        refused(c.post("/api/challenges", json={"accused": "Bruno", "by": "Carla"}, headers=anna), 403, "NotAllowed")
        made = c.post("/api/challenges", json={"accused": "Bruno"}, headers=anna).json()
        assert made["by"] == "Anna" and made["team"] == "Reds" and made["left"]["Reds"] == 2
        scorer = bearer(hub.tokens.scorer_token)
        assert (
            c.post("/api/challenges", json={"accused": "Bruno", "by": "Ben"}, headers=scorer).json()["team"] == "Blues"
        )
    filled.teams_from_session(demo_folder())


def c_join(hub, player: str) -> str:  # noqa: F811
    return hub.join(CODE, player).token
