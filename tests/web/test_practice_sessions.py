"""The spotter's quiz on clips cut from a recorded session (the demo session: Bruno raises his
right hand at 1.76-2.08 s, on the people camera, and nothing else is seen there): one clip of
the raise and "nobody" clips of the quiet stretches, all of the same length, served without
their truth, answered and scored; the taker's own signal is not asked of them; a session is cut
once. A team's secret signal is never shown, answered or revealed outside the team: neither a
session's (its log's setup) nor the live table's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tablereferee.web.practice import practice_for, router
from tests.practice.tables import CODE, PINS, bearer, demo_sessions, secret_sessions, table


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = FastAPI()
    app.include_router(router)
    app.state.review_root = demo_sessions(tmp_path_factory.mktemp("sessions"))
    app.state.practice_dir = tmp_path_factory.mktemp("practice")
    with TestClient(app) as c:
        yield c
    app.state.practice.close()


def test_a_recorded_session_gives_the_quiz_a_clip_of_its_signal_and_nobody_clips(client):
    q = client.get("/api/practice/quiz", params={"n": 20})
    assert q.status_code == 200, q.text
    body = q.json()
    assert body["sources"] == {"sessions": 3, "drills": 0}
    clips = body["clips"]
    assert len(clips) == 3 and body["players"] == ["Bruno"]
    assert all(set(c) == {"clip", "frames", "fps", "players", "from"} for c in clips)  # never the truth
    assert {c["from"] for c in clips} == {"a recorded session"}
    assert {c["frames"] for c in clips} == {31} and {c["fps"] for c in clips} == {
        12.5
    }  # 2.5 s each: length tells nothing
    for c in clips:
        pic = client.get(f"/api/practice/quiz/clips/{c['clip']}/0.jpg")
        assert pic.status_code == 200 and pic.content[:2] == b"\xff\xd8"
        img = cv2.imdecode(np.frombuffer(pic.content, np.uint8), cv2.IMREAD_COLOR)
        assert img.shape[1] == 480  # the camera's 640 x 360, shrunk for the quiz
    outcomes = []
    for c in clips:
        r = client.post(
            "/api/practice/quiz/answer",
            json={"player": "Ugo", "clip": c["clip"], "said_player": "Bruno", "said_signal": "raise_hand_right"},
        )
        assert r.status_code == 200, r.text
        outcomes.append(r.json()["outcome"])
        truth = r.json()["truth"]
        assert truth in ({"player": "Bruno", "signal": "raise_hand_right"}, {"player": None, "signal": None})
    assert sorted(outcomes) == ["false alarm", "false alarm", "hit"]
    tally = client.get("/api/practice/quiz/leaderboard").json()["leaderboard"][0]
    assert tally["player"] == "Ugo" and tally["hits"] == 1 and tally["false_alarms"] == 2
    assert tally["d_prime"] == pytest.approx(-0.293, abs=0.001)  # z(1.5 / 2) - z(2.5 / 3): more alarms than hits
    # cut once: the same clips again
    again = client.get("/api/practice/quiz", params={"n": 20}).json()["clips"]
    assert {c["clip"] for c in again} == {c["clip"] for c in clips}


def test_the_takers_own_signal_is_not_asked_of_them(client):
    mine = client.get("/api/practice/quiz", params={"n": 20, "player": "Bruno"}).json()
    ids = [c["clip"] for c in mine["clips"]]
    assert len(ids) == 2  # the two "nobody" stretches; not his own raise
    for clip in ids:
        r = client.post("/api/practice/quiz/answer", json={"player": "Bruno", "clip": clip})
        assert r.json()["outcome"] == "correct rejection"


def test_sources_and_refusals(client):
    assert client.get("/api/practice/quiz/sources").json() == {"sessions": 3, "drills": 0}
    r = client.get("/api/practice/quiz/clips/nope/0.jpg")
    assert r.status_code == 404 and r.json()["error"]["name"] == "NoSuchClip"
    r = client.get("/api/practice/quiz", params={"n": 0})
    assert r.status_code == 422


def _app_with_hub(tmp, sessions, live_signals):
    from tablereferee.web import create_app  # deferred: the table's whole application

    hub, keeper = table(tmp, live_signals)
    app = create_app(hub, sessions_dir=sessions)
    app.state.practice_dir = tmp / "practice"
    return app, hub, keeper


def test_a_sessions_secret_signal_is_shown_to_its_team_only(tmp_path):
    sessions = secret_sessions(tmp_path / "sessions", {"Reds": "touch_chin_left", "Blues": "raise_hand_right"})
    app, hub, keeper = _app_with_hub(tmp_path, sessions, {"Reds": "touch_chin_left", "Blues": "wink_left"})
    with TestClient(app) as c:
        public = c.get("/api/practice/quiz", params={"n": 20}).json()
        assert public["sources"] == {"sessions": 2, "drills": 0}  # the two "nobody" clips only
        store = practice_for(app).clips
        raise_clip = next(x for x in store.all() if x.truth_signal == "raise_hand_right")
        assert raise_clip.team == "Blues"
        assert raise_clip.id not in {x["clip"] for x in public["clips"]}
        anna = c.post("/api/join", json={"code": CODE, "player": "Anna"}).json()["token"]
        reds = c.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}, headers=bearer(anna)).json()["token"]
        for who in (None, anna, reds):  # the public, a player, the other team: as if it did not exist
            h = bearer(who)
            frame = c.get(f"/api/practice/quiz/clips/{raise_clip.id}/0.jpg", headers=h)
            assert frame.status_code == 404 and frame.json()["error"]["name"] == "NoSuchClip"
            answer = c.post(
                "/api/practice/quiz/answer",
                json={
                    "player": "Anna",
                    "clip": raise_clip.id,
                    "said_player": "Bruno",
                    "said_signal": "raise_hand_right",
                },
                headers=h,
            )
            assert answer.status_code == 404 and "raise_hand_right" not in answer.text
            listed = c.get("/api/practice/quiz", params={"n": 20}, headers=h).json()
            assert raise_clip.id not in {x["clip"] for x in listed["clips"]}
        blues = c.post("/api/teams/Blues/unlock", json={"pin": PINS["Blues"]}).json()["token"]
        theirs = c.get("/api/practice/quiz", params={"n": 20}, headers=bearer(blues)).json()
        assert raise_clip.id in {x["clip"] for x in theirs["clips"]}
        told = c.post(
            "/api/practice/quiz/answer",
            json={"player": "Dario", "clip": raise_clip.id, "said_player": "Bruno", "said_signal": "raise_hand_right"},
            headers=bearer(blues),
        ).json()
        assert told["outcome"] == "hit" and told["truth"] == {"player": "Bruno", "signal": "raise_hand_right"}
    practice_for(app).close()
    keeper.close()


def test_the_live_tables_secret_signal_hides_a_clip_of_its_team_making_it(tmp_path):
    """A clip of the Reds making the Reds' signal is the Reds' only; a clip of anyone else making
    it (Carla of the Reds winking, the Blues' signal; Bruno of the Blues raising his hand in a
    recorded session) is everyone's: hiding those would tell which card is whose."""
    sessions = demo_sessions(tmp_path / "sessions")  # no teams in its log: its raise is nobody's secret
    app, hub, keeper = _app_with_hub(tmp_path, sessions, {"Reds": "raise_hand_right", "Blues": "wink_left"})
    with TestClient(app) as c:
        jpeg = cv2.imencode(".jpg", np.zeros((48, 64, 3), np.uint8))[1].tobytes()
        store = practice_for(app).clips
        wink = store.add("Carla", ("Carla", "wink_left"), [jpeg] * 3, 10.0, "drill test")
        raised = store.add("Anna", ("Anna", "raise_hand_right"), [jpeg] * 3, 10.0, "drill test")
        public = c.get("/api/practice/quiz", params={"n": 20}).json()
        assert public["sources"] == {"sessions": 3, "drills": 1}  # all but Anna's raise
        assert raised.id not in {x["clip"] for x in public["clips"]} and wink.id in {x["clip"] for x in public["clips"]}
        reds = c.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}).json()["token"]
        assert c.get("/api/practice/quiz/sources", headers=bearer(reds)).json() == {"sessions": 3, "drills": 2}
        blues = c.post("/api/teams/Blues/unlock", json={"pin": PINS["Blues"]}).json()["token"]
        assert c.get("/api/practice/quiz/sources", headers=bearer(blues)).json() == {"sessions": 3, "drills": 1}
        frame = c.get(f"/api/practice/quiz/clips/{raised.id}/0.jpg", headers=bearer(blues))
        assert frame.status_code == 404 and frame.json()["error"]["name"] == "NoSuchClip"
    practice_for(app).close()
    keeper.close()


def test_a_session_cut_again_keeps_its_clips_and_tags_a_signal_that_became_a_secret(tmp_path):
    from referee.sessionlog import SessionLog  # deferred: only this test writes to a session's log
    from tablereferee.practice.clips import ClipStore  # deferred: the store without a server
    from tablereferee.practice.sessions import cut_session  # deferred: as above

    sessions = secret_sessions(tmp_path / "sessions", {})
    store = ClipStore(tmp_path / "clips")
    first = {c.id: c for c in cut_session(store, "teams", sessions / "teams")}
    assert len(first) == 3 and all(c.team is None for c in first.values())
    assert cut_session(store, "teams", sessions / "teams") == []  # unchanged: nothing to do
    log = SessionLog.open(sessions / "teams" / "log.db")
    change = {"kind": "change_signal", "team": "Blues", "egg": "moon-2", "signal": "raise_hand_right"}
    log.append("action", {"action": change}, time=log.entries[-1].time + 1.0)
    log.close()
    again = cut_session(store, "teams", sessions / "teams")
    assert [(c.truth_signal, c.team) for c in again] == [("raise_hand_right", "Blues")]  # the raise, cut anew
    now = {c.id: c for c in store.all()}
    assert len(now) == 3 and set(now) - set(first) == {again[0].id}  # the nobody clips kept as they were
