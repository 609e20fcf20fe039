"""Real-browser fixtures: Debian's Chromium driven by Playwright's sync API (../shared/notes/STACK.md).

    def test_x(chromium, served):
        screen = chromium.new_context().new_page()
        screen.goto(served.url + "/")

`chromium` is one headless browser for the test module (a fresh profile: Playwright gives each
launch a new temporary user-data directory); every `new_context()` is a separate phone (its own
storage, its own token). `shots` is where screenshots are kept: pytest's tmp path, or
`$REFEREE_TEST_ARTIFACTS` when CI collects them; `$REFEREE_SCREENSHOTS=docs/images` also copies
the chosen ones there for the README (`keep`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000  # how long a page may take to show what the server sent (the test never sleeps)
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
SCREEN = {"viewport": {"width": 1600, "height": 900}}

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt install chromium)"
)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # deferred: starts Playwright's driver; only browser tests need it

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REFEREE_TEST_ARTIFACTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keep(shot: Path, name: str) -> None:
    """Copy a screenshot to $REFEREE_SCREENSHOTS (docs/images for the README) when it is set."""
    target = os.environ.get("REFEREE_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(target) / name)


def errors_of(page: Any) -> list[str]:
    """The page's script errors and failed requests, collected from now on (a page must have none)."""
    seen: list[str] = []
    page.on("pageerror", lambda exc: seen.append(f"script error: {exc}"))
    page.on("console", lambda msg: seen.append(f"console: {msg.text}") if msg.type == "error" else None)
    return seen
