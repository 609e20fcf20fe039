"""The review's API (tablereferee/web/review.py) on the demo session: every route, and bad input
refused with a named 4xx in the table's error style."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tablereferee.web.review import review_app
from tests.test_challenge import demo_folder

SID = "demo"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A folder of two sessions: the demo and a copy of it (a replay with the same models)."""
    folder = tmp_path_factory.mktemp("sessions")
    shutil.copytree(demo_folder(), folder / "demo")
    shutil.copytree(demo_folder(), folder / "replay")
    (folder / "not-a-session").mkdir()
    return folder


@pytest.fixture(scope="module")
def client(root: Path):
    with TestClient(review_app(root)) as c:
        yield c


def refused(answer, status: int, name: str) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["name"] == name
    assert error["message"] and "Traceback" not in error["message"]
    return error


def test_the_sessions_are_listed_with_date_game_players_and_result(client):
    sessions = client.get("/api/review/sessions").json()["sessions"]
    assert [s["id"] for s in sessions] == ["demo", "replay"]
    demo = sessions[0]
    assert demo["game"] == "beccato" and demo["players"] == ["Anna", "Bruno", "Carla", "Dario"]
    assert demo["date"].endswith("UTC") and demo["duration"] == 14.0
    assert any("2 eggs" in line for line in demo["result"])


def test_a_session_has_its_timeline_lanes_verdicts_and_video(client):
    d = client.get(f"/api/review/sessions/{SID}").json()
    coccode = next(e for e in d["events"] if e["kind"] == "coccode" and e["time"] == 4.0)
    assert coccode["text"] == "Anna calls Coccodé."
    # Carla's reveal: her four cards confirmed at 4.8-5.0 s (two sure frames, or the 0.4 s dwell)
    assert any(e["kind"] == "reveal" and 4.7 <= e["time"] <= 5.0 for e in d["events"])
    assert any(e["kind"] == "camera_lost" for e in d["events"])
    raise_ = d["lanes"]["Bruno"][0]
    assert raise_["signal"] == "raise_hand_right" and raise_["unsure"] and 0 < raise_["confidence"] < 1
    assert d["lanes"]["Anna"] == []
    reveal = next(v for v in d["verdicts"] if v["entry"] == 14)
    assert "Anna's Coccodé is right (three Orloff): the Dollars win an egg." in reveal["lines"]
    cams = {c["name"]: c for c in d["cameras"]}
    assert [s["start"] for s in cams["cards"]["segments"]] == [0.0, 10.0]
    frames = cams["cards"]["segments"][0]["frames"]
    assert frames[:3] == [0.0, 0.1, 0.2] and len(frames) == 100  # the camera's own 10 fps
    assert any("people" in g for g in d["gaps"])  # its video ends at 7.8 s: said


def test_segments_are_served_with_ranges(client):
    url = f"/api/review/sessions/{SID}/video/cards/seg_000000000.mp4"
    whole = client.get(url)
    assert whole.status_code == 200 and whole.headers["content-type"] == "video/mp4"
    part = client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == whole.content[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{len(whole.content)}"


@pytest.mark.parametrize(
    "url, name",
    [
        ("/api/review/sessions/nope", "NoSuchSession"),
        ("/api/review/sessions/not-a-session", "NoSuchSession"),
        (f"/api/review/sessions/{SID}/video/cards/seg_1.mp4", "NoSuchSegment"),
        (f"/api/review/sessions/{SID}/video/cards/..%2Fsession.json", "NotFound"),
        (f"/api/review/sessions/{SID}/video/cards/log.db", "NoSuchSegment"),
        (f"/api/review/sessions/{SID}/video/attic/seg_000000000.mp4", "NoSuchCamera"),
        (f"/api/review/sessions/{SID}/tracks/attic", "NoSuchCamera"),
        (f"/api/review/sessions/{SID}/evidence/11.png", "NoSuchEntry"),
        (f"/api/review/sessions/{SID}/evidence/999.png", "NoSuchEntry"),
        ("/api/review/compare?a=demo&b=nope", "NoSuchSession"),
        ("/api/review/nothing", "NotFound"),
    ],
)
def test_what_is_not_there_is_a_named_404(client, url, name):
    refused(client.get(url), 404, name)


def test_the_tracks_are_the_stored_reads(client):
    people = client.get(f"/api/review/sessions/{SID}/tracks/people").json()
    assert people["size"] == [640, 360] and people["seats"][0]["name"] == "Bruno"
    lm = next(f for f in people["landmarks"] if f["persons"])
    person = lm["persons"][0]
    assert len(person["face"]) == 117 and len(person["pose"]) == 33  # every 4th face point
    cards = client.get(f"/api/review/sessions/{SID}/tracks/cards").json()
    assert {z["name"] for z in cards["zones"]} >= {"seat:Anna", "eggs"}
    read = next(f for f in cards["cards"] if f["cards"])
    assert read["cards"][0]["card"].startswith("egg:") and len(read["cards"][0]["corners"]) == 4


def test_the_nose_question_is_answered_no_with_its_picture(client):
    a = client.post(
        f"/api/review/sessions/{SID}/ask", json={"player": "Bruno", "signal": "touch_nose_left", "from": 4, "to": 7}
    )
    assert a.status_code == 200, a.text
    a = a.json()
    assert a["answer"] == "no" and a["lines"][0] == "no"
    assert a["landmarks"] == "as the run found them"
    assert a["picture"].startswith("data:image/png;base64,") and a["plot"].startswith("data:image/png;base64,")
    assert a["measures"][0]["line"] == 1.0 and a["closest"]["value"] > 1.0


def test_the_raise_is_measured_against_the_eyes_and_the_shoulders(client):
    body = {"player": "Bruno", "signal": "raise_hand_right", "from": 0, "to": 4}
    a = client.post(f"/api/review/sessions/{SID}/ask", json=body).json()
    assert a["answer"] in ("yes", "unsure") and 1.5 <= a["closest"]["t"] <= 2.3
    top, wrist = a["measures"]
    assert top["name"] == "top of the right hand above the eyes, in eye spans" and top["line"] == 0.4
    assert wrist["name"] == "right wrist above the shoulder line, in shoulder widths" and wrist["line"] == 0.15
    assert any(
        line.startswith("right wrist above the shoulder line") and "inside the line" in line for line in a["lines"]
    )


def test_the_raise_evidence_is_a_picture(client):
    raise_ = client.get(f"/api/review/sessions/{SID}").json()["lanes"]["Bruno"][0]  # Bruno's raised fist
    png = client.get(f"/api/review/sessions/{SID}/evidence/{raise_['entry']}.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cards_of_the_reveal_are_shown_beside_their_templates(client):
    import cv2  # deferred: only this test decodes a picture
    import numpy as np  # deferred: as above

    jpeg = client.get(f"/api/review/sessions/{SID}/cards/14.jpg")
    assert jpeg.status_code == 200 and jpeg.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(jpeg.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[0] == 270 and image.shape[1] > 4 * 370  # four crops, each beside its template
    refused(client.get(f"/api/review/sessions/{SID}/cards/11.jpg"), 404, "NoSuchEntry")


@pytest.mark.parametrize(
    "body, name",
    [
        ({"player": "Bruno", "signal": "touch_nose_lft", "from": 4, "to": 7}, "UnknownSignal"),
        ({"player": "Zed", "signal": "touch_nose_left", "from": 4, "to": 7}, "UnknownSeat"),
        ({"player": "Anna", "signal": "touch_nose_left", "from": 4, "to": 7}, "UnknownSeat"),
        ({"player": "Bruno", "signal": "touch_nose_left", "from": 7, "to": 4}, "QuestionError"),
        ({"player": "Bruno", "signal": "touch_nose_left", "from": 40, "to": 47}, "NothingSeen"),
        ({"player": "Bruno", "signal": "touch_nose_left", "from": -1, "to": 4}, "BadRequest"),
        ({"player": "Bruno", "signal": "touch_nose_left", "from": "soon", "to": 4}, "BadRequest"),
        ({"player": "Bruno", "from": 1, "to": 4}, "BadRequest"),
    ],
)
def test_a_question_that_cannot_be_asked_is_a_named_422(client, body, name):
    refused(client.post(f"/api/review/sessions/{SID}/ask", json=body), 422, name)


def test_a_question_that_is_not_json_is_a_bad_request(client):
    answer = client.post(f"/api/review/sessions/{SID}/ask", content=b"{", headers={"Content-Type": "application/json"})
    refused(answer, 422, "BadRequest")


def test_two_replays_are_compared(client):
    same = client.get("/api/review/compare", params={"a": "demo", "b": "replay"}).json()
    assert same["same_log"] and same["same_actions"] and same["only_a"] == [] and same["only_b"] == []
    assert same["entries"][0] == same["entries"][1] > 20
    refused(client.get("/api/review/compare", params={"a": "demo"}), 422, "BadRequest")


def test_a_different_replay_names_the_actions_that_differ(root, tmp_path):
    from referee.scorekeeper import Scorekeeper  # deferred: as above
    from referee.sessionlog import read_log  # deferred: only this test rewrites a log

    other = tmp_path / "sessions"
    shutil.copytree(root / "demo", other / "demo")
    shutil.copytree(root / "demo", other / "changed")
    header = read_log(other / "demo" / "log.db").header
    (other / "changed" / "log.db").unlink()
    for extra in (other / "changed").glob("log.db-*"):
        extra.unlink()
    keeper = Scorekeeper.start(header.game, header.setup, other / "changed" / "log.db", time=header.created)
    keeper.close()
    with TestClient(review_app(other)) as c:
        diff = c.get("/api/review/compare", params={"a": "demo", "b": "changed"}).json()
    assert not diff["same_log"] and not diff["same_actions"] and diff["first_difference"] == 1
    assert "Anna calls Coccodé." in diff["only_a"] and diff["only_b"] == []
    assert any("Bruno" in s for s in diff["observations"]["only_a"])


def test_the_page_is_served_and_a_server_without_sessions_says_so(client):
    page = client.get("/review")
    assert page.status_code == 200 and "review.js" in page.text
    assert client.get("/static/review.js").status_code == 200
    with TestClient(review_app(None)) as bare:
        refused(bare.get("/api/review/sessions"), 409, "NoReviewFolder")
        refused(bare.post("/api/review/sessions"), 405, "MethodNotAllowed")
