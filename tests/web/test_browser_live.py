"""The live view in a real browser: `referee serve --table ... --live cards=CLIP` on the recorded
demo session (datasets/demo: a rendered top-down card camera, 10 fps). The table screen shows the
camera's picture with its overlays, the eggs the camera sees turn up on the henhouses without
anyone typing, and a phone's call goes into the live table in order with what the camera sees."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.web.browser import PHONE, SCREEN, WAIT_MS, chromium, errors_of, keep, needs_chromium, shots  # noqa: F401
from tests.web.conftest import Served

pytestmark = needs_chromium
DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo"
CLIP = DEMO / "cameras" / "cards" / "seg_000000000.mp4"


def mjpeg_frames(url: str, count: int) -> list[bytes]:
    """The first `count` pictures of an MJPEG stream (multipart/x-mixed-replace)."""
    frames: list[bytes] = []
    buffer = b""
    with httpx.stream("GET", url, timeout=WAIT_MS / 1000) as answer:
        assert answer.headers["content-type"].startswith("multipart/x-mixed-replace")
        for chunk in answer.iter_bytes():
            buffer += chunk
            while (start := buffer.find(b"\xff\xd8")) >= 0 and (end := buffer.find(b"\xff\xd9", start)) >= 0:
                frames.append(buffer[start : end + 2])
                buffer = buffer[end + 2 :]
            if len(frames) >= count:
                return frames
    return frames


def test_the_live_camera_and_what_it_sees_are_on_the_table_screen(chromium, tmp_path, shots):  # noqa: F811
    from playwright.sync_api import expect  # deferred: Playwright loads with the browser tests

    expect.set_options(timeout=WAIT_MS)
    args = ["--table", str(DEMO / "session.json"), "--live", f"cards={CLIP}", "--out", str(tmp_path / "live")]
    server = Served(args, cwd=tmp_path, timeout=60)
    try:
        anna = chromium.new_context(**PHONE).new_page()
        anna.set_default_timeout(WAIT_MS)
        anna.goto(f"{server.url}/join/{server.code}")
        anna.get_by_test_id("join-Anna").click()
        anna.wait_for_selector("body[data-view=main]")

        screen = chromium.new_context(**SCREEN).new_page()
        screen.set_default_timeout(WAIT_MS)
        problems = errors_of(screen)
        screen.goto(server.url + "/")
        camera = screen.get_by_test_id("camera-cards")
        expect(camera).to_have_attribute("src", "/api/cameras/cards/live.mjpg")
        screen.wait_for_function("document.querySelector('[data-testid=camera-cards]').naturalWidth === 1280")
        # the camera sees the three eggs turned up (at 1, 2 and 3 s of the clip): nobody typed them
        expect(screen.locator(".henhouse[data-breed=brahma] .egg")).to_have_attribute("data-egg", "moon-2")
        expect(screen.get_by_test_id("events")).to_contain_text("onto the Brahma henhouse")
        # Anna's phone calls Coccodé: the live table takes it in order with the camera
        anna.get_by_test_id("button-coccode").click()
        expect(anna.get_by_test_id("ok")).to_have_text("Sent: the referee takes it in order.")
        expect(screen.get_by_test_id("events")).to_contain_text("Anna calls Coccodé")

        frames = mjpeg_frames(server.url + "/api/cameras/cards/live.mjpg", 3)
        assert len(frames) == 3 and len(set(frames)) == 3  # new pictures, one after another
        still = httpx.get(server.url + "/api/cameras/cards/frame.jpg", timeout=10)
        assert still.headers["content-type"] == "image/jpeg" and still.content[:2] == b"\xff\xd8"
        screen.screenshot(path=str(shots / "table-live.png"))
        keep(shots / "table-live.png", "table-live.png")
        assert problems == []
        screen.context.close()  # its MJPEG stream open would hold the server's graceful stop
    finally:
        server.stop()
