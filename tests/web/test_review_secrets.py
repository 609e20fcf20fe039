"""The review page keeps a team's secret: a signal seen that was a team's secret signal is shown
(who, when, how sure) without its name, its measures or its evidence plot; a signal that was
nobody's secret keeps its name. The demo session's log, read with a setup that names the
Dollars' signal as the raise Bruno makes (the demo itself draws none)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.core import get_engine
from referee.secrecy import PUBLIC, Viewer, public_contents, secret_signals
from referee.sessionlog import read_log
from tablereferee.recording import clip
from tablereferee.web import review
from tablereferee.web.review import review_app
from tests.test_challenge import demo_folder

SECRET = "raise_hand_right"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sessions")
    shutil.copytree(demo_folder(), folder / "demo")
    return folder


def _with_signals(signals: dict[str, str]):
    def read(path, *args, **kwargs):
        contents = read_log(path, *args, **kwargs)
        setup = {**(contents.header.setup or {}), "signals": signals}
        return dataclasses.replace(contents, header=dataclasses.replace(contents.header, setup=setup))

    return read


@pytest.fixture()
def client(root: Path, monkeypatch):
    for module in (review, clip):
        monkeypatch.setattr(module, "read_log", _with_signals({"dollar": SECRET, "star": "wink_left"}))
    with TestClient(review_app(root)) as c:
        yield c


def test_a_secret_signal_seen_is_shown_without_its_name(client):
    d = client.get("/api/review/sessions/demo").json()
    seen = d["lanes"]["Bruno"][0]
    assert seen["signal"] == "hidden" and seen["text"] == "a team's signal"
    assert 1.7 < seen["start"] < 1.8 and 0 < seen["confidence"] < 1
    whole = json.dumps(d)
    assert SECRET not in whole and "raise hand right" not in whole and "wrist_above" not in whole


def test_its_measure_is_refused_by_name_and_a_question_naming_it_is_answered(client):
    entry = client.get("/api/review/sessions/demo").json()["lanes"]["Bruno"][0]["entry"]
    png = client.get(f"/api/review/sessions/demo/evidence/{entry}.png")
    assert png.status_code == 403 and png.json()["error"]["name"] == "SignalIsSecret"
    assert SECRET not in png.text


def test_a_signal_nobody_held_keeps_its_name(root, monkeypatch):
    for module in (review, clip):
        monkeypatch.setattr(module, "read_log", _with_signals({"dollar": "wink_left", "star": "touch_nose_left"}))
    with TestClient(review_app(root)) as c:
        seen = c.get("/api/review/sessions/demo").json()["lanes"]["Bruno"][0]
    assert seen["signal"] == SECRET and seen["text"] == "raise hand right"


def test_the_signals_the_engine_drew_from_the_seed_and_each_change_are_secrets():
    contents = read_log(demo_folder() / "log.db")
    seeded = dataclasses.replace(
        contents, header=dataclasses.replace(contents.header, setup={**contents.header.setup, "seed": 3})
    )
    engine = get_engine("beccato")
    drawn = engine.new_game(seeded.header.setup).signals
    found = secret_signals(engine, seeded)
    assert {s: t for s, (t,) in ((s, tuple(ts)) for s, ts in found.items())} == {v: k for k, v in drawn.items()}
    assert secret_signals(engine, contents) == {}  # the demo draws no signal


def test_a_public_copy_of_the_log_hides_the_signal_and_the_team_still_sees_it():
    contents = _with_signals({"dollar": SECRET, "star": "wink_left"})(demo_folder() / "log.db")
    engine = get_engine("beccato")
    shown, left_out = public_contents(engine, contents, PUBLIC)
    raised = [e.seq for e in contents.entries if e.kind == "observation" and e.payload.get("signal") == SECRET]
    seen = [shown.entries[k - 1] for k in raised]
    assert seen and all(e.payload["signal"] == "hidden" and "evidence" not in e.payload for e in seen)
    others = [e for e in shown.entries if e.kind == "observation" and e.payload.get("type") == "signal"]
    assert all(e.payload["signal"] != SECRET for e in others)
    assert f"entry {seen[0].seq}: signal" in left_out
    dollars = Viewer(name="dollar", teams=frozenset({"dollar"}))
    theirs = public_contents(engine, contents, dollars)[0].entries[seen[0].seq - 1]
    assert theirs.payload["signal"] == SECRET and theirs.payload["evidence"]
    stars = Viewer(name="star", teams=frozenset({"star"}))
    assert public_contents(engine, contents, stars)[0].entries[seen[0].seq - 1].payload["signal"] == "hidden"
