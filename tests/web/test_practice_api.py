"""The practice API (tablereferee/web/practice.py) on a minimal app that includes its router,
fed the real gesture clip (tests/fixtures/people: a right hand raised at about 1.6-2.2 s, then
a thumbs-up held): a drill watching the clip reads the raise and reports its delay, cue and
nonchalance; the history keeps it; the quiz serves its clip and scores answers; a Free Signal
is enrolled from real frames, a mismatched demonstration refused by name; every refusal is a
named 4xx."""

from __future__ import annotations

import base64
from pathlib import Path

import cv2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tablereferee.web.practice import router

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "fixtures" / "people" / "mps_gesture_recognizer_test_video.mp4"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = FastAPI()
    app.include_router(router)
    app.state.practice_dir = tmp_path_factory.mktemp("practice")
    with TestClient(app) as c:
        yield c
    app.state.practice.close()


@pytest.fixture(scope="module")
def clip_frames():
    """The clip's frames at 10 a second, shrunk to 640 wide: (t, JPEG bytes)."""
    cap = cv2.VideoCapture(str(CLIP))
    fps = cap.get(cv2.CAP_PROP_FPS)
    out, i = [], 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        if i % round(fps / 10) == 0:
            small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
            out.append((i / fps, cv2.imencode(".jpg", small)[1].tobytes()))
        i += 1
    cap.release()
    return out


@pytest.fixture(scope="module")
def camera_drill(client):
    d = client.post("/api/practice/drill", json={"player": "Anna", "signal": "raise_hand_right"}).json()
    r = client.post(f"/api/practice/drill/{d['drill']}/camera", json={"source": str(CLIP), "seconds": 3.0})
    assert r.status_code == 200, r.text
    return r.json()


def _b64(frames):
    return [base64.b64encode(j).decode() for _, j in frames]


def _between(frames, a, b):
    return [f for f in frames if a <= f[0] <= b]


def test_the_cards_are_the_visible_ones_a_camera_can_score(client):
    cards = {c["signal"] for c in client.get("/api/practice/cards").json()["cards"]}
    assert {"raise_hand_right", "touch_nose_left", "wink_left"} <= cards
    assert not cards & {"hum", "mumble", "talk_sport", "cards_only_two", "free"}


def test_a_drill_on_the_table_camera_reads_the_raise_with_its_delay_and_nonchalance(camera_drill):
    r = camera_drill
    assert r["seen"] is True and r["card"]["signal"] == "raise_hand_right"
    assert 1.3 <= r["start"] <= 2.0 and r["end"] <= 2.6
    assert 0.2 < r["delay"] <= 1.5  # the dwell (0.3 s less a frame), a frame, and the reading
    assert "right hand's landmarks" in r["cue"]
    n = r["nonchalance"]
    assert n["read"] and 0 < n["score"] < 100 and set(n["parts"]) == {"subtle", "brief", "unhurried", "masked"}
    primary = [m for m in r["evidence"] if m["primary"]]
    assert primary and primary[0]["line"] == 0.4 and len(primary[0]["t"]) == r["frames"]
    assert r["words"].startswith("Seen, ") and "nonchalance" in r["words"] and "{" not in r["words"]


def test_the_history_keeps_the_drill(client, camera_drill):
    h = client.get("/api/practice/history/Anna").json()
    mine = [d for d in h["drills"] if d["drill"] == camera_drill["drill"]]
    assert mine and mine[0]["seen"] and mine[0]["delay"] == camera_drill["delay"]
    assert h["per_signal"]["raise_hand_right"]["seen"] >= 1
    assert client.get("/api/practice/history/Nobody").json()["drills"] == []


def test_browser_frames_are_read_one_by_one_and_the_verdict_follows(client, clip_frames):
    d = client.post("/api/practice/drill", json={"player": "Ben", "signal": "raise_hand_right", "window": 3}).json()
    first_seen = None
    for t, jpeg in _between(clip_frames, 0.0, 2.6):
        r = client.post(
            f"/api/practice/drill/{d['drill']}/frame",
            params={"t": t},
            content=jpeg,
            headers={"content-type": "image/jpeg"},
        )
        assert r.status_code == 200, r.text
        if r.json()["seen"] and first_seen is None:
            first_seen = t
    assert first_seen is not None and 1.5 <= first_seen <= 2.3
    v = client.post(f"/api/practice/drill/{d['drill']}/finish").json()
    assert v["seen"] and first_seen < v["recognised_at"] < first_seen + 2.0 and v["delay"] > 0
    again = client.post(f"/api/practice/drill/{d['drill']}/finish").json()
    assert again == v  # finishing twice answers the same verdict, stored once
    assert len(client.get("/api/practice/history/Ben").json()["drills"]) == 1
    late = client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": 9}, content=clip_frames[0][1])
    assert late.status_code == 422 and late.json()["error"]["name"] == "DrillOver"


def test_a_drill_without_the_signal_is_not_seen_and_scores_zero(client, clip_frames):
    d = client.post("/api/practice/drill", json={"player": "Carla", "signal": "touch_nose_left"}).json()
    for t, jpeg in _between(clip_frames, 0.0, 1.0):
        client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": t}, content=jpeg)
    v = client.post(f"/api/practice/drill/{d['drill']}/finish").json()
    assert v["seen"] is False and v["nonchalance"]["score"] == 0 and v["delay"] is None
    assert v["words"].startswith("Not seen")


def test_refusals_are_named(client, clip_frames):
    def err(r, status, name):
        assert r.status_code == status, r.text
        body = r.json()["error"]
        assert body["name"] == name and body["message"] and "Traceback" not in body["message"]

    err(client.post("/api/practice/drill", json={"player": "Anna", "signal": "hum"}), 422, "NoSuchSignal")
    err(client.post("/api/practice/drill", json={"player": "Anna", "signal": "dance"}), 422, "NoSuchSignal")
    err(client.post("/api/practice/drill", json={"player": ""}), 422, "BadSetupField")
    err(client.post("/api/practice/drill", content=b"{", headers={"content-type": "application/json"}), 400, "NotJSON")
    err(client.post("/api/practice/drill", json={"player": "Anna", "team": "Reds"}), 403, "NotAllowed")
    err(client.post("/api/practice/drill", json={"player": "Anna", "free": True}), 422, "BadPracticeField")
    err(client.post("/api/practice/drill", json={"player": "Anna", "free": True, "team": "Reds"}), 422, "NoSuchSignal")
    err(client.post("/api/practice/drill/nope/frame", params={"t": 0}, content=b"x"), 404, "NoSuchDrill")
    err(client.post("/api/practice/free-signal/Nobody/try", json={"frames": ["a", "b"]}), 404, "NoFreeSignal")
    d = client.post("/api/practice/drill", json={"player": "Anna"}).json()
    assert d["card"]["text"] and not d["card"]["secret"]
    err(
        client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": 0}, content=b"not a jpeg"),
        422,
        "NotAPicture",
    )
    err(client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": -1}, content=b"x"), 422, "BadSetupField")
    ok = client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": 0.5}, content=clip_frames[0][1])
    assert ok.status_code == 200 and ok.json()["person"] is True
    err(
        client.post(f"/api/practice/drill/{d['drill']}/frame", params={"t": 0.5}, content=clip_frames[1][1]),
        422,
        "BadFrameTime",
    )
    err(client.post(f"/api/practice/drill/{d['drill']}/camera", json={"source": "/no/such.mp4"}), 404, "MediaNotFound")


def test_the_quiz_serves_the_drills_clip_without_its_truth_and_scores_answers(client, camera_drill):
    q = client.get("/api/practice/quiz", params={"n": 20}).json()
    assert q["clips"] and "raise_hand_right" in {s["signal"] for s in q["signals"]}
    assert all(set(c) == {"clip", "frames", "fps", "players", "from"} for c in q["clips"])
    clip = q["clips"][0]
    pic = client.get(f"/api/practice/quiz/clips/{clip['clip']}/0.jpg")
    assert pic.status_code == 200 and pic.content[:2] == b"\xff\xd8"
    assert client.get(f"/api/practice/quiz/clips/{clip['clip']}/{clip['frames']}.jpg").status_code == 404
    answers = []
    for c in q["clips"]:
        r = client.post(
            "/api/practice/quiz/answer",
            json={
                "player": "Dario",
                "clip": c["clip"],
                "said_player": c["players"][0],
                "said_signal": "raise_hand_right",
            },
        ).json()
        answers.append(r)
        truth = r["truth"]
        expected = (
            "hit" if truth["signal"] == "raise_hand_right" else "false alarm" if truth["player"] is None else "wrong"
        )
        assert r["outcome"] == expected
    tally = answers[-1]["tally"]
    assert tally["answers"] == len(q["clips"]) and tally["hits"] >= 1
    board = client.get("/api/practice/quiz/leaderboard").json()["leaderboard"]
    assert board[0]["player"] == "Dario" and board[0]["d_prime"] == tally["d_prime"]
    r = client.post("/api/practice/quiz/answer", json={"player": "Dario", "clip": "nope"})
    assert r.status_code == 404 and r.json()["error"]["name"] == "NoSuchClip"


# Three takes of the thumbs-up, 0.2 s apart. (Extracted afresh, two windows of the held
# thumbs-up 1.4 s apart are as far apart in the features, 1.5, as the raise is from them: the
# foreshortened thumb's landmarks jump. docs/practice.md, "Free Signal".)
THUMBS = [(2.8, 4.0), (3.0, 4.2), (3.2, 4.4)]


@pytest.mark.slow  # about 35 s of MediaPipe; the fast version: tests/signals/test_free_enrolment.py
def test_a_free_signal_is_enrolled_from_real_frames_and_tried_at_once(client, clip_frames):
    demos = [{"frames": _b64(_between(clip_frames, a, b)), "fps": 10} for a, b in THUMBS]
    r = client.post("/api/practice/free-signal", json={"team": "Reds", "player": "Anna", "demonstrations": demos})
    assert r.status_code == 200, r.text
    e = r.json()
    assert e["label"] == "Reds's signal" and e["threshold"] > 0 and len(e["costs"]) == 3
    assert "threshold" not in e["words"] or "under" in e["words"]
    tried = client.post(
        "/api/practice/free-signal/Reds/try", json={"frames": _b64(_between(clip_frames, 2.4, 6.0)), "fps": 10}
    )
    t = tried.json()
    assert t["seen"] and len(t["events"]) == 1 and t["events"][0]["team"] == "Reds" and t["cost"] < t["threshold"]
    raised = client.post(
        "/api/practice/free-signal/Reds/try", json={"frames": _b64(_between(clip_frames, 0.8, 2.4)), "fps": 10}
    )
    assert raised.json()["seen"] is False and raised.json()["words"].startswith("not Reds")


def test_a_mismatched_demonstration_is_refused_with_the_reason(client, clip_frames):
    demos = [{"frames": _b64(_between(clip_frames, a, b)), "fps": 10} for a, b in (THUMBS[0], THUMBS[2], (1.0, 2.4))]
    r = client.post("/api/practice/free-signal", json={"team": "Blues", "demonstrations": demos})
    assert r.status_code == 422
    body = r.json()["error"]
    assert body["name"] == "DemonstrationsDisagree" and "demonstration 3 is not the same gesture" in body["message"]
    assert len(body["descriptions"]) == 3 and "raised" in body["descriptions"][2]  # what each take showed
    two = client.post("/api/practice/free-signal", json={"team": "Blues", "demonstrations": demos[:2]})
    assert two.status_code == 422 and two.json()["error"]["name"] == "FreeSignalError"
    bad = client.post(
        "/api/practice/free-signal", json={"team": "Blues", "demonstrations": [{"frames": ["!!", "!!"]}] * 3}
    )
    assert bad.status_code == 422 and bad.json()["error"]["name"] == "BadDemonstration"


def test_a_players_calibration_is_kept_with_the_table(client, clip_frames):
    perf = {"frames": _b64(_between(clip_frames, 1.2, 2.4)), "fps": 10}
    r = client.post(
        "/api/practice/calibration", json={"player": "Eva", "signal": "raise_hand_right", "performances": [perf, perf]}
    )
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["format"] == "player-calibration/1" and p["player"] == "Eva"
    assert p["params"] == {}  # a plain, high raise: the catalogue's lines already fit, and none is made harder
    assert p["words"] == "the catalogue's lines already fit"
    assert client.get("/api/practice/calibration/Eva").json()["player"] == "Eva"
    assert client.get("/api/practice/calibration/Nobody").json()["params"] == {}
    bad = client.post(
        "/api/practice/calibration", json={"player": "Eva", "signal": "hum", "performances": [perf, perf]}
    )
    assert bad.status_code == 422 and bad.json()["error"]["name"] == "BadPracticeField"
    one = client.post(
        "/api/practice/calibration", json={"player": "Eva", "signal": "raise_hand_right", "performances": [perf]}
    )
    assert one.status_code == 422 and one.json()["error"]["name"] == "PersonalCalibrationError"
    d = client.post("/api/practice/drill", json={"player": "Eva", "signal": "raise_hand_right"})
    assert d.status_code == 200
