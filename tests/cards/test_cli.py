"""`referee cards` and `referee enroll-deck`: output shape and named errors."""

import json

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from tablereferee.cli import cli
from tests.cards.helpers import cloth, degrade, place, quad
from vision.cards.decks import faces


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_cards_json_on_an_image_and_overlay(tmp_path):
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), degrade(place(cloth(), faces("beccato")[0], quad(480, 360, 330))))
    overlay = tmp_path / "out.png"
    res = run("cards", img, "--deck", "beccato", "--json", "--overlay", overlay)
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0]["frame"] == 0 and lines[0]["time"] == 0.0
    for card in lines[0]["cards"]:
        assert set(card) >= {"label", "confidence", "corners", "face_up", "orientation", "track_id", "zone"}
    written = cv2.imread(str(overlay))
    assert written is not None and written.shape == (720, 960, 3)


def test_cards_on_a_video_gives_times(tmp_path):
    p = tmp_path / "v.avi"
    w = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"MJPG"), 5, (320, 240))
    for _ in range(3):
        w.write(np.full((240, 320, 3), 80, np.uint8))
    w.release()
    res = run("cards", p, "--json", "--seats", "A,B")
    assert res.exit_code == 0, res.output
    assert [json.loads(x)["time"] for x in res.output.splitlines()] == pytest.approx([0, 0.2, 0.4])


def test_cards_bad_input_is_a_named_error(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"nope")
    res = CliRunner().invoke(cli, ["cards", str(bad), "--json"])
    assert res.exit_code == 3 and json.loads(res.stderr)["error"] == "UnreadableImage"
    empty = tmp_path / "empty.avi"
    cv2.VideoWriter(str(empty), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48)).release()
    res = CliRunner().invoke(cli, ["cards", str(empty)])
    assert res.exit_code == 3 and "EmptyVideo" in res.stderr
    good = tmp_path / "ok.png"
    cv2.imwrite(str(good), cloth(100, 100))
    res = CliRunner().invoke(
        cli, ["cards", str(good), "--deck", "no-such-deck", "--decks-dir", str(tmp_path), "--json"]
    )
    err = json.loads(res.stderr)
    assert res.exit_code == 2 and err["error"] == "UnknownDeck" and "beccato" in err["known"]


def test_enroll_deck_command(tmp_path):
    cards = faces("french40")[:3]
    photos = []
    for k, c in enumerate(cards):
        p = tmp_path / f"{c.face_key}.png"
        cv2.imwrite(str(p), degrade(place(cloth(seed=k), c, quad(480, 360, 420), "outline"), seed=k))
        photos.append(p)
    decks = tmp_path / "decks"
    res = run("enroll-deck", "poker", *photos, "--decks-dir", decks, "--json", "--model", tmp_path / "none.onnx")
    assert res.exit_code == 3  # an explicit model that does not exist is an error
    res = CliRunner().invoke(cli, ["enroll-deck", "poker", *map(str, photos), "--decks-dir", str(decks), "--json"])
    assert res.exit_code == 0, res.output + res.stderr
    out = json.loads(res.output)
    assert out["deck"] == "poker" and out["cards"] == 3
    res = CliRunner().invoke(cli, ["enroll-deck", "empty", "--decks-dir", str(decks)])
    assert res.exit_code == 2 and "EmptyEnrollment" in res.stderr
    res = CliRunner().invoke(cli, ["enroll-deck", "x", "--base", "italian", "--per-photo", "10", "--guide"])
    assert res.exit_code == 0 and len([x for x in res.output.splitlines() if x.startswith("photo ")]) == 4
    assert "How to take the photos" in res.output and "plain surface" in res.output


def test_cards_missing_camera_is_a_named_error():
    res = CliRunner().invoke(cli, ["cards", "97", "--json"])
    assert res.exit_code == 3 and json.loads(res.stderr)["error"] == "CameraNotFound"
