"""The audible practice page in Debian's Chromium, its microphone faked from the real hum
fixture (tests/fixtures/audio/hum.wav, a hum at 1.0-4.0 s, with 1.5 s more of its room before
and 2 s after), against a real server on 127.0.0.1 that includes the audible drills' router: a
drill of "Hum." is heard from the browser's own microphone chunks, and the page shows the
verdict, the delay, the nonchalance and the evidence plot, and the history keeps the drill."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.web.browser import CHROMIUM, FLAGS, errors_of, needs_chromium, serving
from vision.audio.sources import AudioClip, load, save_wav

ROOT = Path(__file__).resolve().parents[2]
HUM = ROOT / "tests" / "fixtures" / "audio" / "hum.wav"
SERVER = """
import sys
import uvicorn
from fastapi import FastAPI
from tablereferee.web.practice_audio import router

app = FastAPI()
app.include_router(router)
app.state.practice_dir = sys.argv[2]
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""
pytestmark = needs_chromium


def microphone_file(path: Path) -> Path:
    """The hum fixture with more of its own room around it: what the fake microphone plays."""
    x = load(HUM).samples
    room = x[:16000]
    save_wav(AudioClip(np.concatenate([room, room[:8000], x, room, room])), path)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(SERVER, str(tmp_path_factory.mktemp("practice-audio"))) as url:
        yield url


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from playwright.sync_api import sync_playwright  # deferred: starts the Playwright driver; only these tests need it

    wav = microphone_file(tmp_path_factory.mktemp("microphone") / "hum.wav")
    args = FLAGS + [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}",
        "--autoplay-policy=no-user-gesture-required",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args, headless=True)
        ctx = browser.new_context(viewport={"width": 1280, "height": 1400}, permissions=["microphone"])
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        yield pg
        browser.close()


def test_a_hum_into_the_browsers_microphone_is_heard_and_the_verdict_shows(server, page):
    errors = errors_of(page)
    page.goto(server + "/practice-audio?player=Anna&card=hum&countdown=0&window=9")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#start")
    page.wait_for_selector("#verdict:not([hidden])", timeout=90_000)
    words = page.inner_text("#words")
    assert words.startswith("Heard a hum, "), (words, page.inner_text("#live"), page.inner_text("#latency"))
    assert page.inner_text("#taken") == "hum"
    delay = page.inner_text("#delay")
    assert delay.endswith("s from the start of the sound to recognition"), delay
    assert 0.5 < float(delay.split()[0]) < 4.0
    score = page.inner_text("#score")
    assert score.endswith("of 100") and 0 < int(score.split()[0]) < 100
    assert "ms from a chunk to the verdict so far" in page.inner_text("#latency")
    assert page.locator("#parts li").count() == 4
    drawn = page.evaluate(
        "() => { const c = document.getElementById('evidence'); const d = c.getContext('2d')"
        ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
        " for (let i = 3; i < d.length; i += 4) n += d[i] > 0; return n; }"
    )
    assert drawn > 500
    page.wait_for_function("() => document.querySelectorAll('#per-signal tbody tr').length >= 1")
    assert page.inner_text("#per-signal tbody tr td") == "hum"
    assert not errors, errors
