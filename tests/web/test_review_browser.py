"""The review page and the challenge page in a real Chromium, against a real server process on
127.0.0.1 (`python -m tablereferee.web.review`) serving the demo session: open it, click the
Coccodé, step frames, switch overlays, ask the nose question, play a challenge."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from referee.sessionlog import read_log
from tests.test_challenge import demo_folder
from tests.web.browser import SCREEN, WAIT_MS, chromium, errors_of, keep, needs_chromium, shots  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
pytestmark = needs_chromium


class ReviewServer:
    def __init__(self, args: list[str], cwd: Path) -> None:
        self.err = (cwd / "review-server.err").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablereferee.web.review", *args, "--port", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        started = threading.Event()
        self.lines: list[str] = []

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.strip())
                if line.startswith("serving on "):
                    started.set()
            started.set()

        threading.Thread(target=read, daemon=True).start()
        assert started.wait(120) and self.proc.poll() is None, (self.lines, (cwd / "review-server.err").read_text())
        self.url = next(x for x in self.lines if x.startswith("serving on ")).split()[-1]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.err.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ReviewServer]:
    demo = demo_folder()
    s = ReviewServer(
        [str(demo.parent), "--challenge-from", str(demo), "--challenge-until", "4.5"], tmp_path_factory.mktemp("srv")
    )
    yield s
    s.stop()


def test_the_review_settles_the_coccode(chromium, server, shots):  # noqa: F811
    from playwright.sync_api import expect  # deferred: Playwright loads with the browser tests

    page = chromium.new_context(**SCREEN).new_page()
    errors = errors_of(page)
    page.goto(server.url + "/review")
    expect(page.get_by_test_id("open-demo")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("sessions")).to_contain_text("Anna, Bruno, Carla, Dario")
    expect(page.get_by_test_id("sessions")).to_contain_text("2 eggs")
    page.get_by_test_id("open-demo").click()
    page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS * 2)

    page.get_by_test_id("ev-11").click()  # Anna's Coccodé at 4.0 s
    expect(page.get_by_test_id("verdict")).to_contain_text("Anna calls Coccodé", timeout=WAIT_MS)
    expect(page.get_by_test_id("now")).to_have_text("4.00 s")
    expect(page.get_by_test_id("frame-info")).to_contain_text("frame 41 of 140 at 4.000 s")
    at = page.evaluate("() => document.querySelector('[data-testid=video-cards]').currentTime")
    assert abs(at - 4.0) < 0.01  # the first segment, 4 s in
    shot = shots / "review-coccode.png"
    page.screenshot(path=str(shot))
    keep(shot, "review-coccode.png")

    page.get_by_test_id("ev-14").click()  # Carla's reveal: the verdict in words
    expect(page.get_by_test_id("verdict")).to_contain_text("Anna's Coccodé is right (three Orloff)")

    page.get_by_test_id("ev-11").click()
    expect(page.get_by_test_id("now")).to_have_text("4.00 s")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("frame-info")).to_contain_text("frame 42 of 140 at 4.100 s")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("frame-info")).to_contain_text("frame 40 of 140 at 3.900 s")
    shown = dict(page.evaluate("() => window.review.shown()"))
    assert abs(shown["cards"] - 3.9) < 0.02  # the frame the video element presented (requestVideoFrameCallback)

    page.get_by_test_id("rate").select_option("0.5")
    page.get_by_test_id("play").click()
    page.wait_for_function("() => window.review.state.t > 4.2", timeout=WAIT_MS)  # the clock follows the video
    assert page.evaluate("() => document.querySelector('[data-testid=video-cards]').playbackRate") == 0.5
    page.get_by_test_id("play").click()  # pause
    expect(page.get_by_test_id("play")).to_have_text("Play")

    raise_ = next(  # Bruno's raised fist: its entry in the log
        e.seq
        for e in read_log(demo_folder() / "log.db").entries
        if e.kind == "observation" and e.payload.get("type") == "signal" and e.payload.get("player") == "Bruno"
    )
    page.get_by_test_id(f"ev-{raise_}").click()  # the landmarks drawn
    expect(page.get_by_test_id("evidence-plot")).to_be_visible(timeout=WAIT_MS)
    inked = (  # the overlay canvas's drawn pixels
        "() => { const c = document.querySelector('[data-testid=overlay-people]');"
        " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; }"
    )
    with_landmarks = page.evaluate(inked)
    page.locator("#ov-landmarks").uncheck()
    without = page.evaluate(inked)
    page.locator("#ov-seats").uncheck()
    bare = page.evaluate(inked)
    assert with_landmarks > without > bare == 0
    page.locator("#ov-landmarks").check()
    assert page.evaluate(inked) > without

    page.get_by_label("player").select_option("Bruno")
    page.get_by_label("signal").fill("touch_nose_left")
    page.get_by_label("from").fill("4")
    page.get_by_label("to").fill("7")
    page.get_by_role("button", name="Ask").click()
    expect(page.get_by_test_id("answer-word")).to_have_text("no", timeout=WAIT_MS * 2)
    expect(page.get_by_test_id("answer")).to_contain_text("left hand to the nose, in contact radii")
    shot = shots / "review-ask.png"
    page.screenshot(path=str(shot), full_page=True)
    keep(shot, "review-ask.png")
    assert shot.stat().st_size > 50_000
    assert errors == []


def test_a_challenge_plays_at_normal_speed_then_slowed_down(chromium, server, shots):  # noqa: F811
    from playwright.sync_api import expect  # deferred: Playwright loads with the browser tests

    screen = chromium.new_context(**SCREEN).new_page()
    errors = errors_of(screen)
    screen.goto(server.url + "/challenge")
    expect(screen.get_by_test_id("headline")).to_have_text("Waiting for a challenge...")
    made = httpx.post(server.url + "/api/challenges", json={"accused": "Bruno", "by": "Anna"}, timeout=10).json()
    assert made["made_in"] < 2.0
    screen.wait_for_selector("body[data-state=normal]", timeout=WAIT_MS)
    expect(screen.get_by_test_id("headline")).to_contain_text("Anna challenges Bruno")
    screen.wait_for_selector("body[data-state=slow]", timeout=WAIT_MS)
    expect(screen.get_by_test_id("phase")).to_contain_text("Slowed down 4x around Bruno's strongest cue")
    shot = shots / "challenge-slow.png"
    screen.screenshot(path=str(shot))
    keep(shot, "challenge-slow.png")
    clock = float(screen.get_by_test_id("clock").inner_text().split()[0])
    assert 0.9 <= clock <= 2.95  # inside the slowed-down stretch around 1.92 s
    screen.wait_for_selector("body[data-state=done]", timeout=WAIT_MS)
    assert screen.get_by_test_id("cams").locator("img").count() == 2
    assert errors == []
