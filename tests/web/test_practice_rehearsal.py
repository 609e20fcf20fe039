"""Team rehearsal, the team's PIN and each player's calibration through the API, on the
table's own application (a hub refereeing Beccato!, the Reds' signal the raise of the right
hand) fed the real gesture clip (tests/fixtures/people: a right hand raised at about
1.6-2.2 s, then a thumbs-up held in front of the face, the hand's top 0.26-0.30 eye spans
above the eyes).

The round draws the Reds' card only for their PIN; the teammate's tap after the referee read
the raise gives a reaction, a tap before the frames an early one; the round's figures go to
anyone with its id, its card and cue to the PIN only; the history needs the PIN. A
calibration on the thumbs-up moves the raise's line and answers it before and after."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import cv2
import pytest
from fastapi.testclient import TestClient

from tablereferee.web.practice import practice_for
from tests.practice.tables import PINS, bearer, table

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "fixtures" / "people" / "mps_gesture_recognizer_test_video.mp4"


@pytest.fixture(scope="module")
def frames():
    """The clip at 10 frames a second, 640 wide: (t, JPEG bytes)."""
    cap = cv2.VideoCapture(str(CLIP))
    fps = cap.get(cv2.CAP_PROP_FPS)
    out, i = [], 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        if i % round(fps / 10) == 0:
            out.append((i / fps, cv2.imencode(".jpg", cv2.resize(img, (640, 360)))[1].tobytes()))
        i += 1
    cap.release()
    return out


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from tablereferee.web import create_app  # deferred: the table's whole application

    tmp = tmp_path_factory.mktemp("rehearsal")
    hub, keeper = table(tmp, {"Reds": "raise_hand_right", "Blues": "wink_left"})
    app = create_app(hub, sessions_dir=tmp / "sessions")
    with TestClient(app) as c:
        reds = c.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}).json()["token"]
        yield c, app, reds
    practice_for(app).close()
    keeper.close()


def _refused(r, status, name):
    assert r.status_code == status, r.text
    assert r.json()["error"]["name"] == name and r.json()["error"]["message"]


def test_the_teams_card_needs_its_pin(served):
    c, _, reds = served
    _refused(c.post("/api/practice/drill", json={"player": "Anna", "team": "Reds"}), 403, "NotAllowed")
    _refused(c.post("/api/practice/rehearsal", json={"team": "Reds", "signaller": "Anna"}), 403, "NotAllowed")
    _refused(c.post("/api/practice/drill", json={"player": "Anna", "team": "Reds", "free": True}), 403, "NotAllowed")
    d = c.post("/api/practice/drill", json={"player": "Anna", "team": "Reds"}, headers=bearer(reds))
    assert d.status_code == 200 and d.json()["card"]["secret"] and "right hand" in d.json()["card"]["text"].lower()


def test_a_rehearsal_round_times_the_teammates_tap(served, frames):
    c, app, reds = served
    r = c.post(
        "/api/practice/rehearsal", json={"team": "Reds", "signaller": "Anna", "spotter": "Carla"}, headers=bearer(reds)
    )
    assert r.status_code == 200, r.text
    start = r.json()
    assert start["state"] == "waiting" and "right hand" in start["card"]["text"].lower()
    rid = start["rehearsal"]
    key = {"key": practice_for(app).rehearsals[rid].key}
    assert start["spot"] == f"/practice?rehearsal={rid}&key={key['key']}&player=Carla"
    # without the team's PIN or the round's link nobody lists, sees, taps or ends the round
    _refused(c.get("/api/practice/rehearsal", params={"team": "Reds"}), 403, "NotAllowed")
    for call in (c.get(f"/api/practice/rehearsal/{rid}"), c.post(f"/api/practice/rehearsal/{rid}/seen")):
        _refused(call, 403, "NotAllowed")
    _refused(c.post(f"/api/practice/rehearsal/{rid}/finish", params={"key": "guessed"}), 403, "NotAllowed")
    _refused(c.get(f"/api/practice/rehearsal/{rid}", params={"key": "clé-é"}), 403, "NotAllowed")  # not a 500
    opened = c.get("/api/practice/rehearsal", params={"team": "Reds"}, headers=bearer(reds)).json()
    assert [o["rehearsal"] for o in opened["open"]] == [rid]
    assert "raise" not in str(opened) and "card" not in opened["open"][0]
    first = c.post(f"/api/practice/rehearsal/{rid}/seen", params=key, json={"spotter": "Carla"})  # the link, no PIN
    assert first.json()["tap"] == 1  # too early
    tapped = False
    began = time.monotonic()
    while (t := time.monotonic() - began) <= 2.8:  # as the page does: the clip plays on in real time
        jpeg = min(frames, key=lambda f: abs(f[0] - t))[1]
        out = c.post(f"/api/practice/drill/{start['drill']}/frame", params={"t": t}, content=jpeg).json()
        assert out["tapped"] is True
        if out["seen"] and not tapped:
            assert c.post(f"/api/practice/rehearsal/{rid}/seen", params=key).status_code == 200
            tapped = True
    assert tapped
    assert c.get(f"/api/practice/rehearsal/{rid}", params=key).json()["state"] == "watching"
    done = c.post(f"/api/practice/rehearsal/{rid}/finish", headers=bearer(reds)).json()
    res = done["result"]
    assert done["state"] == "over" and res["seen"] and res["early_taps"] == 1
    assert res["gesture_start"] == pytest.approx(done["drill"]["start"]) and 1.3 <= res["gesture_start"] <= 2.0
    assert 0 < res["reaction"] < 1.5 and res["reaction"] >= res["referee_delay"] - 0.05  # the tap followed the read
    assert res["words"].startswith(f"Carla saw it {res['reaction']:.2f} s after the gesture began")
    assert done["drill"]["card"]["signal"] == "raise_hand_right"  # the PIN's caller: the whole verdict
    public = c.get(f"/api/practice/rehearsal/{rid}", params=key)  # the teammate's link
    assert public.json()["result"]["reaction"] == res["reaction"] and "drill" not in public.json()
    assert "raise" not in public.text and "right hand" not in public.text.lower()
    _refused(c.post(f"/api/practice/rehearsal/{rid}/seen", params=key), 409, "RehearsalFinished")
    # the history: the PIN's only; the drill kept as the team's own signal, no quiz clip of it
    _refused(c.get("/api/practice/teams/Reds/rehearsals"), 403, "NotAllowed")
    h = c.get("/api/practice/teams/Reds/rehearsals", headers=bearer(reds)).json()
    assert [x["rehearsal"] for x in h["rounds"]] == [rid] and h["mean_reaction"] == res["reaction"]
    assert h["rounds"][0]["spotter"] == "Carla" and "raise" not in str(h)
    drills = c.get("/api/practice/history/Anna").json()["drills"]
    assert drills and {d["signal"] for d in drills} == {"the team's own signal"}
    assert practice_for(app).clips.all() == []
    _refused(c.get("/api/practice/rehearsal/nope"), 404, "NoSuchRehearsal")


def _b64(frames, a, b):
    return [base64.b64encode(j).decode() for t, j in frames if a <= t <= b]


def test_a_calibration_moves_the_line_and_shows_it_before_and_after(served, frames):
    c, _, _ = served
    lines = c.get("/api/practice/calibration/Eva").json()["lines"]
    top = next(x for x in lines["raise_hand_right"] if x["name"] == "top_above_eyes")
    assert top["catalogue"] == top["yours"] == 0.4
    assert lines["wink_left"] == []  # no single line to move
    perfs = [{"frames": _b64(frames, a, a + 0.6), "fps": 10} for a in (2.7, 3.0)]  # the hand held at the brow
    r = c.post("/api/practice/calibration", json={"player": "Eva", "signal": "raise_hand_right", "performances": perfs})
    assert r.status_code == 200, r.text
    body = r.json()
    moved = next(x for x in body["lines"] if x["name"] == "top_above_eyes")
    assert moved["before"] == 0.4 and 0.1 <= moved["yours"] < 0.3
    assert "above the eyes, in eye spans 0.4 ->" in body["words"] and "_" not in body["words"]
    kept = c.get("/api/practice/calibration/Eva").json()
    assert (
        next(x for x in kept["lines"]["raise_hand_right"] if x["name"] == "top_above_eyes")["yours"] == moved["yours"]
    )


def test_a_touch_calibrated_from_a_hand_far_from_the_face_keeps_its_radius(served, frames):
    c, _, _ = served
    perfs = [{"frames": _b64(frames, a, a + 0.4), "fps": 10} for a in (1.7, 1.8)]  # the fist raised above the head
    r = c.post("/api/practice/calibration", json={"player": "Ivo", "signal": "touch_chin_right", "performances": perfs})
    assert r.status_code == 200, r.text
    assert r.json()["radius"] == {} and "too far to be this signal" in r.json()["words"]
    assert r.json()["lines"][0]["yours"] == r.json()["lines"][0]["catalogue"]
