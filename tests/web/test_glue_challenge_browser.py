"""The instant challenge in a real browser, on the demo's recorded camera served live: a phone's
Challenge opens the replay over the table screen and a "Watch the challenge" link on the phone;
the team's next one, past its challenges, is refused by name on the phone."""

from __future__ import annotations

from pathlib import Path

from tests.web.browser import PHONE, SCREEN, WAIT_MS, chromium, errors_of, keep, needs_chromium, shots  # noqa: F401
from tests.web.conftest import Served

pytestmark = needs_chromium
DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"
CLIP = DEMO / "cameras" / "cards" / "seg_000000000.mp4"


def test_a_phones_challenge_plays_over_the_table_screen(chromium, tmp_path, shots):  # noqa: F811
    from playwright.sync_api import expect  # deferred: Playwright loads with the browser tests

    expect.set_options(timeout=WAIT_MS)
    args = ["--table", str(DEMO / "session.json"), "--live", f"cards={CLIP}", "--out", str(tmp_path / "live")]
    server = Served([*args, "--challenge-seconds", "2", "--challenges-per-team", "1"], cwd=tmp_path, timeout=60)
    try:
        screen = chromium.new_context(**SCREEN).new_page()
        problems = errors_of(screen)
        screen.goto(server.url + "/")
        expect(screen.get_by_test_id("events")).to_contain_text("onto the")  # the camera's frames are in

        anna = chromium.new_context(**PHONE).new_page()
        anna.goto(f"{server.url}/join/{server.code}")
        anna.get_by_test_id("join-Anna").click()
        expect(anna.get_by_test_id("challenges-left")).to_contain_text("1 left")
        anna.get_by_test_id("challenge-Bruno").click()

        overlay = screen.get_by_test_id("challenge-overlay")
        expect(overlay).to_be_visible()
        expect(screen.get_by_test_id("challenge-headline")).to_contain_text("Anna challenges Bruno")
        expect(screen.get_by_test_id("challenge-frame")).to_have_attribute("src", "/challenge#n=1")
        expect(anna.get_by_test_id("watch-challenge")).to_have_attribute("href", "/challenge#n=1")
        expect(anna.get_by_test_id("challenges-left")).to_contain_text("0 left")
        replay = screen.frame_locator("[data-testid=challenge-frame]").locator("img[data-cam=cards]")
        expect(replay).to_have_js_property("naturalWidth", 1280)  # the replay plays in the overlay
        screen.screenshot(path=str(shots / "table-challenge.png"))
        keep(shots / "table-challenge.png", "table-challenge.png")

        anna.get_by_test_id("challenge-Bruno").click()
        expect(anna.get_by_test_id("violation-name")).to_have_text("NoChallengesLeft")
        expect(anna.get_by_test_id("violation-message")).to_contain_text("has used all its 1 challenges")

        screen.get_by_test_id("challenge-close").click()
        expect(overlay).to_be_hidden()
        assert problems == []
        screen.context.close()  # its MJPEG stream
        anna.context.close()
    finally:
        server.stop()
