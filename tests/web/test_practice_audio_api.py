"""The audible drills' API (tablereferee/web/practice_audio.py) driven with the real audio
fixtures (tests/fixtures/audio: a hum at 1.0-4.0 s, a mumble, silence with card taps, game
talk), sent as the page sends them: 16-bit PCM chunks of a quarter second. A hum is heard with
its delay, nonchalance and evidence and goes into the practice history; silence and table
talk are not heard; a quiet drill of game talk has no false alarm, a quiet drill with a hum
has one; a team's own card goes through the PIN check; every refusal is a named 4xx."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens
from tablereferee.web.practice_audio import router
from vision.audio.sources import load

ROOT = Path(__file__).resolve().parents[2]
AUDIO = ROOT / "tests" / "fixtures" / "audio"
CHUNK = 4000  # a quarter second at 16 kHz


def samples(name: str, lead: float = 0.0) -> np.ndarray:
    """A fixture's samples, with `lead` seconds more of its own room noise (its first second) before it."""
    x = load(AUDIO / name).samples
    if lead:
        room = x[:16000]
        x = np.concatenate([np.tile(room, int(lead) + 1)[: int(lead * 16000)], x])
    return x


def pcm(x: np.ndarray) -> bytes:
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


def drill(client: TestClient, body: dict, x: np.ndarray, headers: dict | None = None) -> tuple[list, dict]:
    d = client.post("/api/practice/audio-drill", json={"window": 20, **body}, headers=headers)
    assert d.status_code == 200, d.text
    lives = []
    for i in range(0, len(x), CHUNK):
        r = client.post(
            f"/api/practice/audio-drill/{d.json()['drill']}/audio",
            content=pcm(x[i : i + CHUNK]),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert r.status_code == 200, r.text
        lives.append(r.json())
    v = client.post(f"/api/practice/audio-drill/{d.json()['drill']}/finish")
    assert v.status_code == 200, v.text
    return lives, v.json()


def err(r, status: int, name: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    e = r.json()["error"]
    assert e["name"] == name and e["message"], r.text
    return e


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = FastAPI()
    a.include_router(router)
    a.state.practice_dir = tmp_path_factory.mktemp("practice")
    yield a


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def hum(client):
    return drill(client, {"player": "Anna", "signal": "hum"}, samples("hum.wav"))


def test_the_cards_are_the_audible_ones(client):
    r = client.get("/api/practice/audio-cards").json()
    assert {c["signal"] for c in r["cards"]} == {"hum", "mumble", "talk_tv", "talk_games", "talk_sport"}
    assert r["quiet"]["signal"] == "quiet" and r["rate"] == 16000 and r["calibration"] == 1.0


def test_a_hum_is_heard_with_its_delay_nonchalance_and_evidence(hum):
    lives, v = hum
    assert v["heard"] is True and v["taken_for"] == "hum" and v["card"]["signal"] == "hum"
    assert 0.8 <= v["start"] <= 1.2 and 3.8 <= v["end"] <= 4.2  # the fixture's hum: 1.0-4.0 s
    # heard live: once a second of hum filled the windows, and before the sound was over
    first = next(k for k, live in enumerate(lives) if live["heard"])
    assert all(live["heard"] for live in lives[first:]) and lives[first]["t"] < 4.0
    assert 1.0 <= v["delay"] <= 3.0 and v["recognised_at"] == pytest.approx(v["start"] + v["delay"], abs=1e-3)
    n = v["nonchalance"]
    assert n["read"] and 0 < n["score"] < 100 and set(n["parts"]) == {"quiet", "subtle", "brief", "masked"}
    assert n["parts"]["masked"] == 0.0  # nobody else talked
    assert v["nonchalance_lines"][0].startswith("nonchalance ")
    e = v["evidence"]
    assert len(e["t"]) == len(e["score"]) == len(e["loudness"]) == len(e["label"]) >= 6 and e["line"] == 0.5
    inside = [p for t, p in zip(e["t"], e["score"]) if 1.5 <= t <= 3.5]
    outside = [p for t, p in zip(e["t"], e["score"]) if t < 0.8]
    assert min(inside) > e["line"] > max(outside)
    assert e["event"] == [v["start"], v["end"]]
    assert v["words"].startswith("Heard a hum, ") and "nonchalance" in v["words"]


def test_the_drill_goes_into_the_practice_history(hum, client, app):
    _, v = hum
    h = client.get("/api/practice/audio-history/Anna").json()
    row = next(d for d in h["drills"] if d["drill"] == v["drill"])
    assert row["signal"] == "hum" and row["heard"] and row["delay"] == v["delay"] and row["kind"] == "signal"
    assert h["per_signal"]["hum"]["heard"] >= 1
    shared = app.state.practice.store.history("Anna")  # the practice page's own drills table
    assert any(d["drill"] == v["drill"] and d["signal"] == "hum" and d["seen"] for d in shared)


def test_silence_with_card_taps_is_not_heard(client):
    _, v = drill(client, {"player": "Ben", "signal": "hum"}, samples("silence_taps.wav"))
    assert v["heard"] is False and v["taken_for"] is None and v["nonchalance"]["score"] == 0.0
    assert v["delay"] is None and v["words"] == "Not heard as a hum: the referee heard only the room."


def test_table_talk_is_not_taken_for_a_hum(client):
    _, v = drill(client, {"player": "Ben", "signal": "hum"}, samples("speech_en_game.wav"))
    assert v["heard"] is False and v["taken_for"] == "talking" and v["nonchalance"]["score"] == 0.0
    assert "talk with no topic" in v["words"]


def test_a_hum_while_others_talk_is_heard_and_scores_as_masked(client, hum):
    # the hum at 3.5-6.5 s, the others' game talk until about 3.4 s, their Italian talk from 6.1 s
    _, v = drill(client, {"player": "Anna", "signal": "hum", "table_talk": True}, samples("hum.wav", lead=2.5))
    assert v["heard"] is True and v["table_talk"] is True
    assert 3.3 <= v["start"] <= 3.7
    assert v["nonchalance"]["parts"]["masked"] > 0.5
    assert [round(a) for a, _ in v["evidence"]["others"]] == [1, 6]  # their game talk, their Italian talk
    assert v["nonchalance"]["score"] > hum[1]["nonchalance"]["score"]
    others = [e for e in v["events"] if not e["yours"]]
    assert others and all(e["signal"] == "talking" for e in others)  # the others' talk is theirs, and no signal


def test_a_quiet_drill_of_game_talk_has_no_false_alarm(client):
    _, v = drill(client, {"player": "Carla", "quiet": True}, samples("speech_en_game.wav"))
    assert v["kind"] == "quiet" and v["clean"] is True and v["false_alarms"] == []
    assert v["own_talk_seconds"] >= 1.0 and v["words"].startswith("No false alarm")


def test_a_quiet_drill_with_a_hum_counts_a_false_alarm(client):
    _, v = drill(client, {"player": "Carla", "signal": "quiet"}, samples("hum.wav"))
    assert v["clean"] is False and [f["signal"] for f in v["false_alarms"]] == ["hum"]
    assert v["false_alarms_per_minute"] > 0 and v["words"].startswith("1 false alarm")
    per = client.get("/api/practice/audio-history/Carla").json()["per_signal"]["quiet"]
    assert per["drills"] == 2 and per["false_alarms"] == 1


def test_refusals_are_named(client):
    start = "/api/practice/audio-drill"
    err(client.post(start, json={"player": "Anna", "signal": "raise_hand_right"}), 422, "NotAnAudibleSignal")
    e = err(client.post(start, json={"player": "Anna", "signal": "whistle"}), 422, "NotAnAudibleSignal")
    assert "hum" in e["message"]
    err(client.post(start, json={"player": "Anna", "team": "Reds"}), 403, "NotAllowed")  # no table, no PIN
    err(client.post(start, json={"signal": "hum"}), 422, "BadSetupField")
    err(client.post(start, content=b"{", headers={"Content-Type": "application/json"}), 400, "NotJSON")
    octet = {"Content-Type": "application/octet-stream"}
    err(client.post("/api/practice/audio-drill/nope/audio", content=b"\0\0", headers=octet), 404, "NoSuchAudioDrill")
    d = client.post(start, json={"player": "Anna", "signal": "mumble"}).json()["drill"]
    chunk = f"/api/practice/audio-drill/{d}/audio"
    err(client.post(chunk, content=b"\0\0\0", headers=octet), 422, "NotPCM")
    err(client.post(chunk, content=b"", headers=octet), 422, "NotPCM")
    for wrong in ({"Content-Type": "application/json"}, {"Content-Type": "text/plain"}, {}):  # not sound
        err(client.post(chunk, content=b'{"a":"bc"}', headers=wrong), 422, "NotPCM")
    err(client.post(chunk + "?rate=100", content=b"\0\0", headers=octet), 422, "BadSetupField")
    assert client.post(chunk + "?rate=48000", content=b"\0\0" * 480, headers=octet).status_code == 200
    err(client.post(chunk, content=b"\0\0", headers=octet), 422, "BadAudioRate")  # 16 kHz after 48 kHz
    err(client.post(chunk + "?rate=48000", content=b"\0\0" * 48000 * 30, headers=octet), 413, "TooMuchAudio")
    v = client.post(f"/api/practice/audio-drill/{d}/finish").json()
    assert v["heard"] is False and "too little sound" in v["words"]
    err(client.post(chunk + "?rate=48000", content=b"\0\0", headers=octet), 409, "AudioDrillOver")


# -- a team's own card, behind its PIN ------------------------------------------------------


@pytest.fixture
def table(tmp_path):
    setup = {
        "players": ["Anna", "Ben", "Carla", "Dan"],
        "teams": {"Reds": ["Anna", "Carla"], "Blues": ["Ben", "Dan"]},
        "signals": {"Reds": "hum", "Blues": "touch_chin_left"},
    }
    keeper = Scorekeeper.start("beccato", setup, tmp_path / "table.db", time=1_000.0)
    hub = TableHub(keeper, tokens=Tokens(code="JOINME", pins={"Reds": "1111", "Blues": "2222"}))
    app = create_app(hub, sessions_dir=tmp_path / "sessions")
    with TestClient(app) as c:
        yield c, app
    keeper.close()


def test_a_teams_own_audible_card_needs_its_pin_and_is_kept_secret(table):
    client, app = table
    err(client.post("/api/practice/audio-drill", json={"player": "Anna", "team": "Reds"}), 403, "NotAllowed")
    reds = {"Authorization": "Bearer " + client.post("/api/teams/Reds/unlock", json={"pin": "1111"}).json()["token"]}
    _, v = drill(client, {"player": "Anna", "team": "Reds"}, samples("hum.wav"), headers=reds)
    assert v["card"] == {"signal": "hum", "text": "Hum.", "secret": True} and v["heard"] is True
    # not in the histories anyone may read: a row would tell the team's card is a heard one
    kept = client.get("/api/practice/audio-history/Anna").json()
    assert kept["drills"] == [] and kept["per_signal"] == {}
    assert app.state.practice.store.history("Anna") == []
    blues = {"Authorization": "Bearer " + client.post("/api/teams/Blues/unlock", json={"pin": "2222"}).json()["token"]}
    e = err(
        client.post("/api/practice/audio-drill", json={"player": "Ben", "team": "Blues"}, headers=blues),
        422,
        "NotAnAudibleSignal",
    )
    assert "chin" not in e["message"] and "chin" not in json.dumps(e)  # a refusal never names the team's card
