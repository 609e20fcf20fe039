"""The practice page's team, quiz, rehearsal and calibration sections in Debian's Chromium,
against a real server of a refereed Beccato! table (`create_app` with the practice router; the
Reds' signal is the raise of the right hand, PIN 1111) whose sessions folder holds the demo
session (Bruno raises his right hand at 1.76-2.08 s). The camera is faked from the real
gesture clip (tests/fixtures/people): its first 4 s looped (the raise at about 1.6-2.2 s) for
the signaller, its thumbs-up held in front of the face (2.6-4.4 s, the hand's top 0.26-0.30 eye
spans above the eyes) for the calibration.

* the team's PIN: a wrong one is refused by name, the right one shows the team's own card;
* a quiz round of the demo session's clips is answered and scored (one hit, two false alarms);
  without the PIN the raise, the Reds' secret on this table, is not in the quiz at all;
* a rehearsal round: the teammate's page taps Seen after the referee read the raise, and both
  pages report the reaction time;
* a calibration on the brow-high hand moves the raise's line on the page, and the drill tried at
  once judges with the player's own line (the held thumbs-up is still no raise: its forearm and
  wrist do not make one, whatever the line of the hand's top)."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import pytest

from tests.practice.tables import demo_sessions
from tests.web.browser import CHROMIUM, FLAGS, errors_of, needs_chromium, serving

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "fixtures" / "people" / "mps_gesture_recognizer_test_video.mp4"
SERVER = """
import sys
from pathlib import Path
import uvicorn
from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import Tokens

port, sessions, practice = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
setup = {"players": ["Anna", "Bruno", "Carla", "Dario"],
         "teams": {"Reds": ["Anna", "Carla"], "Blues": ["Bruno", "Dario"]},
         "signals": {"Reds": "raise_hand_right", "Blues": "wink_left"}}
keeper = Scorekeeper.start("beccato", setup, practice / "table.db", time=1000.0)
hub = TableHub(keeper, tokens=Tokens(code="PRACT1", pins={"Reds": "1111", "Blues": "2222"}))
app = create_app(hub, sessions_dir=sessions)
app.state.practice_dir = practice
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
"""
pytestmark = needs_chromium


def mjpeg(path: Path, start: float, seconds: float, fps: float = 30.0, width: int = 640) -> Path:
    """`seconds` of the clip from `start`, as Chromium's fake camera reads an MJPEG file."""
    cap = cv2.VideoCapture(str(CLIP))
    src_fps = cap.get(cv2.CAP_PROP_FPS)
    frames, i = [], 0
    while True:
        ok, img = cap.read()
        if not ok or i / src_fps > start + seconds:
            break
        if i / src_fps >= start:
            h, w = img.shape[:2]
            frames.append(cv2.resize(img, (width, round(h * width / w)), interpolation=cv2.INTER_AREA))
        i += 1
    cap.release()
    with path.open("wb") as out:
        for k in range(int(seconds * fps)):
            img = frames[min(int(k / fps * src_fps), len(frames) - 1)]
            out.write(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sessions = demo_sessions(tmp_path_factory.mktemp("sessions"))
    with serving(SERVER, str(sessions), str(tmp_path_factory.mktemp("practice"))) as url:
        yield url


def _browser(p, clip: Path):
    args = FLAGS + [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={clip}",
    ]
    return p.chromium.launch(executable_path=str(CHROMIUM), args=args, headless=True)


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright  # deferred: starts the Playwright driver; only these tests need it

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def raising(playwright, tmp_path_factory):
    """A browser whose camera loops the clip's first 4 s (the raise of the right hand)."""
    browser = _browser(playwright, mjpeg(tmp_path_factory.mktemp("camera") / "raise.mjpeg", 0.0, 4.0))
    yield browser
    browser.close()


def _page(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1800}, permissions=["camera"])
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    errors = errors_of(page)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page, errors


@pytest.fixture(scope="module")
def anna(raising, server):
    """Anna's page (the Reds): the signaller."""
    page, errors = _page(raising, server + "/practice?player=Anna&countdown=0&window=6")
    yield page
    assert not [e for e in errors if "WrongPin" not in e and "403" not in e], errors


def test_the_teams_pin_unlocks_its_own_card(anna):
    team_card = "() => document.querySelector(\"#card option[value='@team']\").disabled"
    assert anna.evaluate(team_card) is True
    anna.fill("#team", "Reds")
    anna.fill("#pin", "0000")
    anna.click("#unlock")
    anna.wait_for_function("() => document.getElementById('team-status').textContent.length > 0")
    assert "PIN" in anna.inner_text("#team-status") and "unlocked" not in anna.inner_text("#team-status")
    anna.fill("#pin", "1111")
    anna.click("#unlock")
    anna.wait_for_function("() => /unlocked/.test(document.getElementById('team-status').textContent)")
    status = anna.inner_text("#team-status")
    assert status.startswith("Reds unlocked on this page.") and "right hand" in status.lower()
    assert anna.evaluate(team_card) is False


def test_a_quiz_round_of_a_recorded_sessions_clips_is_answered_and_scored(anna, raising, server):
    anna.click("#quiz-start")
    anna.wait_for_selector("#quiz:not([hidden])")
    assert anna.inner_text("#sources").startswith("3 clips from recorded sessions")
    outcomes = []
    for k in range(1, 4):
        anna.wait_for_selector("#answer:not([disabled])")
        assert anna.inner_text("#clip-from") == "from a recorded session"
        anna.wait_for_function("() => document.getElementById('clip').naturalWidth === 480")
        anna.select_option("#said-player", "Bruno")
        anna.select_option("#said-signal", "raise_hand_right")
        anna.click("#answer")
        anna.wait_for_function(f"() => document.getElementById('outcome').dataset.answered === '{k}'")
        outcomes.append(anna.inner_text("#outcome").split(":")[0])
    assert sorted(outcomes) == ["false alarm", "false alarm", "hit"], outcomes
    assert "d′" in anna.inner_text("#outcome")
    anna.wait_for_function("() => /Anna/.test(document.getElementById('board').textContent)")
    row = next(r for r in anna.inner_text("#board").splitlines() if r.startswith("Anna"))
    assert row.split("\t")[1:5] == ["1", "0", "0", "2"], row  # hits, wrong, misses, false alarms
    # without the Reds' PIN: Bruno (of the Blues) raising his hand, the Reds' signal, gives the Reds
    # away to nobody, so it is in the quiz (a Red making it would not be: tests/web/test_practice_sessions.py)
    public, _ = _page(raising, server + "/practice?player=Ugo")
    public.click("#quiz-start")
    public.wait_for_selector("#quiz:not([hidden])")
    assert public.inner_text("#sources").startswith("3 clips from recorded sessions"), public.inner_text("#sources")
    public.context.close()


def test_a_rehearsal_round_reports_the_teammates_reaction(anna, raising, server):
    anna.fill("#spotter", "Carla")
    anna.click("#reh-start")
    anna.wait_for_selector("#reh-link:not([hidden])")
    spot_url = anna.get_attribute("#reh-url", "href")
    assert spot_url and spot_url.startswith("/practice?rehearsal=")
    carla, errors = _page(raising, server + spot_url)  # her own phone: no PIN, no camera
    carla.wait_for_selector("#spot:not([hidden])")
    assert "right hand" not in (carla.inner_text("#rehearsal-section") + carla.inner_text("#team-status")).lower()
    anna.wait_for_function("() => document.getElementById('live').textContent === 'Seen by the referee!'")
    carla.click("#seen")
    anna.wait_for_function("() => document.getElementById('reaction').dataset.reaction !== undefined")
    reaction = float(anna.get_attribute("#reaction", "data-reaction") or "nan")
    assert 0 < reaction < 3.0, anna.inner_text("#reaction")
    words = anna.inner_text("#reaction")
    assert words.startswith(f"Carla saw it {reaction:.2f} s after the gesture began"), words
    assert re.search(r"Quiz-takers spotted this signal in 1 of 1 clips", words), words  # Anna's hit above
    carla.wait_for_function("() => /saw it/.test(document.getElementById('spot-status').textContent)")
    assert carla.inner_text("#spot-status") == words and "right hand" not in words.lower()
    anna.wait_for_function("() => document.querySelectorAll('#reh-history tbody tr').length >= 1")
    assert f"{reaction:.2f} s" in anna.inner_text("#reh-history")
    assert not errors, errors
    carla.context.close()


@pytest.fixture(scope="module")
def at_the_brow(playwright, tmp_path_factory):
    """A browser whose camera loops the thumbs-up held in front of the face (2.6-4.4 s)."""
    browser = _browser(playwright, mjpeg(tmp_path_factory.mktemp("camera") / "brow.mjpeg", 2.6, 1.8))
    yield browser
    browser.close()


def test_a_calibration_moves_the_shown_line_and_the_drill_tried_at_once_uses_it(at_the_brow, server):
    url = "/practice?player=Eva&calibrate=raise_hand_right&perf=1.2&countdown=0&window=1.5"
    page, errors = _page(at_the_brow, server + url)
    row = "#cal-lines tr[data-line='top_above_eyes'] td"
    page.wait_for_selector(row)
    assert page.locator(row).all_inner_texts()[1:] == ["0.4", "0.4", "-"]
    for n in (1, 2):
        page.click("#cal-record")
        page.wait_for_function(
            f"() => document.getElementById('cal-count').textContent === '{n} performance{'s' if n > 1 else ''}'"
        )
    page.click("#cal-go")
    page.wait_for_function(
        "() => /above the eyes, in eye spans 0.4 ->/.test(document.getElementById('cal-words').textContent)"
    )
    cells = page.locator(row).all_inner_texts()
    assert cells[1:3] == ["0.4", "0.4"] and 0.1 <= float(cells[3]) < 0.3, cells
    page.click("#cal-try")
    page.wait_for_selector("#verdict:not([hidden])", timeout=90_000)
    assert page.get_attribute("#line", "data-line") == cells[3], page.inner_text("#line")
    assert page.inner_text("#line").startswith("top of the right hand above the eyes")
    assert not errors, errors
    page.context.close()
