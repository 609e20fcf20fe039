"""The practice page in Debian's Chromium, its camera faked from the real gesture clip
(tests/fixtures/people/mps_gesture_recognizer_test_video.mp4, its first 4 s looped: a right
hand raised at about 1.6-2.2 s), against a real server on 127.0.0.1 that includes the practice
router: a drill of "Raise your right hand" is read from the browser's own frames and the page
reports the delay, the cue and the nonchalance, and draws the evidence; the history shows the
drill; a quiz round on the drill's clip is scored (by another player: a taker is not quizzed on
their own drills)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.web.browser import CHROMIUM, FLAGS, errors_of, needs_chromium, serving

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "fixtures" / "people" / "mps_gesture_recognizer_test_video.mp4"
SERVER = """
import sys
import uvicorn
from fastapi import FastAPI
from tablereferee.web.practice import router

app = FastAPI()
app.include_router(router)
app.state.practice_dir = sys.argv[2]
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""
pytestmark = needs_chromium


def make_mjpeg(path: Path, seconds: float = 4.0, fps: float = 30.0, width: int = 640) -> Path:
    """The clip's first `seconds` as Chromium's fake camera reads an MJPEG file: JPEG frames
    back to back, played at 30 a second (the clip's 25 are resampled to keep its clock)."""
    cap = cv2.VideoCapture(str(CLIP))
    src_fps = cap.get(cv2.CAP_PROP_FPS)
    frames: list[np.ndarray] = []
    while len(frames) < seconds * src_fps:
        ok, img = cap.read()
        if not ok:
            break
        h, w = img.shape[:2]
        frames.append(cv2.resize(img, (width, round(h * width / w)), interpolation=cv2.INTER_AREA))
    cap.release()
    with path.open("wb") as out:
        for k in range(int(seconds * fps)):
            img = frames[min(int(k / fps * src_fps), len(frames) - 1)]
            out.write(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(SERVER, str(tmp_path_factory.mktemp("practice"))) as url:
        yield url


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from playwright.sync_api import sync_playwright  # deferred: starts the Playwright driver; only these tests need it

    clip = make_mjpeg(tmp_path_factory.mktemp("camera") / "gesture.mjpeg")
    args = FLAGS + [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={clip}",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args, headless=True)
        ctx = browser.new_context(viewport={"width": 1280, "height": 1600}, permissions=["camera"])
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        yield pg
        browser.close()


def test_a_drill_on_the_browsers_camera_reads_the_raise_and_reports_the_delay(server, page):
    errors = errors_of(page)
    page.goto(server + "/practice?player=Anna&card=raise_hand_right&countdown=0&window=8")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#start")
    page.wait_for_selector("#verdict:not([hidden])", timeout=90_000)
    words = page.inner_text("#words")
    assert words.startswith("Seen, "), (words, page.inner_text("#fps"), page.inner_text("#live"))
    delay = page.inner_text("#delay")
    assert delay.endswith("s from the start of the gesture to recognition"), delay
    assert 0.0 < float(delay.split()[0]) < 1.5
    assert "right hand's landmarks" in page.inner_text("#cue")
    score = page.inner_text("#score")
    assert score.endswith("of 100") and 0 < int(score.split()[0]) < 100
    assert "camera to verdict" in page.inner_text("#fps")
    # the evidence is drawn: the plot is not blank
    drawn = page.evaluate(
        "() => { const c = document.getElementById('evidence'); const d = c.getContext('2d')"
        ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
        " for (let i = 3; i < d.length; i += 4) n += d[i] > 0; return n; }"
    )
    assert drawn > 500
    page.wait_for_function("() => document.querySelectorAll('#per-signal tbody tr').length >= 1")
    assert "raise_hand_right" in page.inner_text("#per-signal")
    assert not errors, errors


def test_a_quiz_round_on_the_drills_clip_is_scored(server, page):
    page.fill("#player", "Ben")  # another player: a taker is not quizzed on their own drills
    page.click("#quiz-start")
    page.wait_for_selector("#quiz:not([hidden])")
    page.select_option("#said-player", "Anna")
    page.select_option("#said-signal", "raise_hand_right")
    page.click("#answer")
    page.wait_for_function("() => /d′/.test(document.getElementById('outcome').textContent)")
    outcome = page.inner_text("#outcome")
    assert outcome.split(":")[0] in ("hit", "false alarm"), outcome
    page.wait_for_function("() => document.querySelectorAll('#board tbody tr').length >= 1")
    assert "Ben" in page.inner_text("#board")


def _demonstration(a: float, b: float) -> str:
    """The clip from `a` to `b` seconds at 10 frames a second, as the page records a take."""
    cap = cv2.VideoCapture(str(CLIP))
    fps = cap.get(cv2.CAP_PROP_FPS)
    frames, i = [], 0
    while True:
        ok, img = cap.read()
        if not ok or i / fps > b:
            break
        if i % round(fps / 10) == 0 and i / fps >= a:
            small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
            frames.append("data:image/jpeg;base64," + base64.b64encode(cv2.imencode(".jpg", small)[1]).decode())
        i += 1
    cap.release()
    return json.dumps({"frames": frames, "fps": 10})


def test_a_mismatched_free_signal_demonstration_is_refused_on_the_page(server, page):
    """Two thumbs-ups and a raise from the real clip, put in the page's takes as its camera
    would record them (the camera's own recording is the drill's test above): "Learn it" is
    refused, the odd take named, and each take is listed with what it showed."""
    errors = errors_of(page)
    page.goto(server + "/practice?player=Anna")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#team", "Blues")
    takes = [_demonstration(2.8, 4.0), _demonstration(3.2, 4.4), _demonstration(1.0, 2.4)]
    page.evaluate("(takes) => { state.demos = takes.map((t) => JSON.parse(t)); }", takes)
    page.evaluate("() => { document.getElementById('enrol').disabled = false; }")
    page.click("#enrol")
    page.wait_for_function("() => document.querySelectorAll('#free-takes li').length === 3", timeout=90_000)
    said = page.inner_text("#free-words")
    assert "demonstration 3 is not the same gesture" in said, said
    listed = page.inner_text("#free-takes")
    assert "Demonstration 3: a fist raised" in listed and "thumb" in listed.split("Demonstration 3")[0], listed
    # the refusal itself is a 422 the browser logs; nothing else may go wrong
    assert [e for e in errors if "status of 422" not in e] == [], errors
