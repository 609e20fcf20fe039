"""The table screen and the phones in a real browser: Debian's Chromium driven by Playwright
against a real `referee serve` process on 127.0.0.1 (tests/web/conftest.py's `served`).

A 4-player Beccato! table: the scorer's phone turns the eggs up by tapping their pictures, Anna's
phone calls Coccodé, Carla's phone reveals her hand by picking the cards' pictures, and the table
screen shows each step as it happens (waited for, never slept). A phone whose screen is late
(its WebSocket held back) taps a call that is no longer legal: the violation shows on that phone
and nothing changes. The team PIN shows Anna her signal on her phone; the table screen never has
a team's signal. Screenshots of every page are kept and checked for their key text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.signal_cards import BY_ID
from tests.web.browser import PHONE, SCREEN, WAIT_MS, chromium, errors_of, keep, needs_chromium, shots  # noqa: F401
from tests.web.conftest import PINS, SIGNALS, Served

pytestmark = needs_chromium
SECRETS = [*SIGNALS.values(), *(BY_ID[s].text for s in SIGNALS.values())]  # ids and the words of each signal


def expect() -> Any:
    from playwright.sync_api import expect as expect_  # deferred: Playwright loads with the browser tests

    expect_.set_options(timeout=WAIT_MS)
    return expect_


def phone(browser: Any, url: str) -> Any:
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    return page


def join(browser: Any, served: Served, player: str) -> Any:
    page = phone(browser, f"{served.url}/join/{served.code}")
    page.get_by_test_id(f"join-{player}").click()
    page.wait_for_selector("body[data-view=main]")
    expect()(page.get_by_test_id("who")).to_have_text(player)
    return page


def real_problems(seen: list[str]) -> list[str]:
    """A page's errors, less the browser's own note of a refused request (a 4xx the page shows)."""
    return [s for s in seen if "the server responded with a status of 4" not in s]


def table(served: Served) -> dict[str, Any]:
    return httpx.get(served.url + "/api/table", timeout=10).json()


def test_two_phones_call_and_reveal_and_the_table_screen_follows(chromium, served, shots):  # noqa: F811
    look = expect()
    screen = chromium.new_context(**SCREEN).new_page()
    screen.set_default_timeout(WAIT_MS)
    screen_errors = errors_of(screen)
    screen.goto(served.url + "/")
    screen.wait_for_selector("body[data-ready=true][data-game=beccato]")
    look(screen.get_by_test_id("join-code")).to_have_text(served.code)
    look(screen.get_by_test_id("waiting")).to_contain_text("egg turned up")

    # the scorer turns the three eggs up by tapping their pictures
    scorer = phone(chromium, f"{served.url}/phone#scorer={served.scorer}")
    scorer.wait_for_selector("body[data-view=main][data-role=scorer]")
    for egg, breed in (("dollar-1", "orloff"), ("star-2", "padovana"), ("moon-3", "brahma")):
        scorer.get_by_test_id("button-draw_egg").click()
        picture = scorer.get_by_test_id(f"pick-egg-{egg}").locator("img")
        look(picture).to_have_attribute("src", f"/api/cards/egg:{egg}.png")
        look(picture).to_have_js_property("complete", True)
        assert picture.evaluate("img => img.naturalWidth") > 50  # the card's picture, drawn by the server
        scorer.get_by_test_id(f"pick-egg-{egg}").click()
        scorer.get_by_test_id("pick-send").click()
        look(screen.locator(f".henhouse[data-breed={breed}] .egg")).to_have_attribute("data-egg", egg)
    look(screen.get_by_test_id("events")).to_contain_text("onto the Brahma henhouse")

    anna, carla, ben = (join(chromium, served, p) for p in ("Anna", "Carla", "Ben"))
    ben_errors = errors_of(ben)
    version = table(served)["version"]
    for page in (anna, ben):
        page.wait_for_selector(f"body[data-version='{version}']")
        look(page.get_by_test_id("button-coccode")).to_be_visible()

    # Ben's phone falls behind: its WebSocket messages are held from now on
    held: list[Any] = []
    ben.context.route_web_socket("**/ws*", lambda ws: hold(ws, held))
    ben.evaluate("phone.state.socket.reopen(phone.state.token)")  # the phone reconnects through the slow link
    ben.wait_for_selector("body[data-connection=open]")

    anna.get_by_test_id("button-coccode").click()
    look(anna.get_by_test_id("ok")).to_contain_text("Anna calls Coccodé")
    look(screen.get_by_test_id("call")).to_contain_text("Coccodé called by Anna")
    look(screen.get_by_test_id("waiting")).to_have_text("Waiting for: The hand of Carla.")
    before = table(served)

    # an illegal call: Ben's stale Coccodé button, after Anna's call
    ben.get_by_test_id("button-coccode").click()
    look(ben.get_by_test_id("violation-name")).to_have_text("CallInProgress")
    look(ben.get_by_test_id("violation-message")).to_contain_text("Anna's Coccodé")
    after = table(served)
    assert after["version"] == before["version"] and after["events"] == before["events"]  # nothing changed
    assert anna.get_by_test_id("violation").is_hidden()  # shown on Ben's phone only
    ben.screenshot(path=str(shots / "phone-violation.png"))
    keep(shots / "phone-violation.png", "phone-violation.png")

    # Carla reveals by tapping the pictures of her three Orloff
    look(carla.get_by_test_id("button-reveal")).to_be_visible()
    carla.get_by_test_id("button-reveal").click()
    for _ in range(3):
        carla.get_by_test_id("pick-cards-orloff").click()
    look(carla.get_by_test_id("picked-cards")).to_have_text("Picked: Orloff, Orloff, Orloff")
    carla.screenshot(path=str(shots / "phone-reveal.png"))
    keep(shots / "phone-reveal.png", "phone-reveal.png")
    carla.get_by_test_id("pick-send").click()
    newest = screen.locator(".event.newest")
    look(newest).to_contain_text("Anna's Coccodé is right (three Orloff): Reds win an egg.")
    look(screen.locator(".team[data-team=Reds] .egg")).to_have_attribute("data-egg", "dollar-1")
    look(screen.get_by_test_id("henhouses").locator(".henhouse[data-breed=orloff] .egg-caption")).to_have_text("empty")
    look(carla.get_by_test_id("status")).to_contain_text("for the Orloff henhouse")

    # Anna's team PIN: her phone shows the Reds' signal; nothing else does
    anna.get_by_test_id("pin").fill(PINS["Reds"])
    anna.get_by_test_id("unlock").click()
    anna.get_by_test_id("show-secret").click()
    look(anna.get_by_test_id("secret")).to_contain_text(BY_ID[SIGNALS["Reds"]].text)
    assert SIGNALS["Blues"] not in anna.content() and BY_ID[SIGNALS["Blues"]].text not in anna.content()
    anna.get_by_test_id("show-secret").click()  # hidden again before the phone goes down on the table
    anna.screenshot(path=str(shots / "phone-anna.png"))

    screen.screenshot(path=str(shots / "table-screen.png"))
    scorer.screenshot(path=str(shots / "phone-scorer.png"), full_page=True)
    shown = screen.inner_text("body")
    for key in ("Beccato!", "Henhouses", "Reds", "Blues", "Anna deals", "What happened", served.code):
        assert key.casefold() in shown.casefold(), key
    for page in (screen, ben, carla, scorer):
        html = page.content() + page.inner_text("body")
        assert not any(secret in html for secret in SECRETS), page.url
    assert not any(secret in json.dumps(held) for secret in SECRETS)  # nor what the public socket carried
    assert real_problems(screen_errors) == [] and real_problems(ben_errors) == []
    for name in ("table-screen.png", "phone-violation.png", "phone-reveal.png", "phone-anna.png"):
        assert (shots / name).stat().st_size > 20_000, name


def hold(ws: Any, held: list[Any]) -> None:
    """A slow link: the page's messages go to the server, the server's are kept back."""
    server = ws.connect_to_server()
    ws.on_message(lambda message: server.send(message))
    server.on_message(held.append)


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """A finished Beccato! game under the Egg Pyramid (datasets/games/variants.beccato)."""
    import subprocess  # deferred: only this fixture runs the terminal scorekeeper
    import sys  # deferred: only this fixture runs the terminal scorekeeper

    log = tmp_path / "over.db"
    script = Path(__file__).resolve().parents[2] / "datasets" / "games" / "variants.beccato"
    cmd = [sys.executable, "-m", "tablereferee.cli", "play", "beccato", "--script", str(script), "--log", str(log)]
    subprocess.run([*cmd, "--quiet"], check=True, capture_output=True, timeout=60)
    return log


def test_game_over_shows_each_teams_eggs_and_the_pyramid_bonus(chromium, finished, tmp_path, shots):  # noqa: F811
    look = expect()
    server = Served([str(finished)], cwd=tmp_path)
    try:
        over = chromium.new_context(**SCREEN).new_page()
        over.set_default_timeout(WAIT_MS)
        over.goto(server.url + "/over")
        over.wait_for_selector("body[data-over=true]")
        look(over.get_by_test_id("winners")).to_have_text("Winner: Reds \u2014 Reds reached 6 eggs.")
        look(over.get_by_test_id("sum-Reds")).to_have_text("Eggs 10 + pyramid bonus 5 = 15 points")
        look(over.get_by_test_id("sum-Blues")).to_have_text("Eggs 4 + pyramid bonus 0 = 4 points")
        reds = over.locator(".final .team[data-team=Reds]")
        assert reds.locator(".pyramid-place").count() == 6
        assert reds.locator(".pyramid-place[data-place=top] .egg").get_attribute("data-egg") == "chick"
        assert reds.locator(".pyramid-place[data-place=b1] .egg.face-down").count() == 1
        assert over.locator(".final .team[data-team=Blues] .pyramid-place.empty").count() == 3
        over.screenshot(path=str(shots / "game-over.png"), full_page=True)
        keep(shots / "game-over.png", "game-over.png")
        screen = chromium.new_context(**SCREEN).new_page()
        screen.goto(server.url + "/")
        look(screen.get_by_test_id("waiting")).to_have_text("Game over: Reds reached 6 eggs.")
        look(screen.get_by_test_id("final")).to_contain_text("pyramid bonus 5")
        assert screen.get_by_test_id("join").is_hidden()
    finally:
        server.stop()


def test_a_dropped_phone_reconnects_then_catches_and_the_scorer_amends_and_undoes(chromium, served):  # noqa: F811
    look = expect()
    screen = chromium.new_context(**SCREEN).new_page()
    screen.set_default_timeout(WAIT_MS)
    screen.goto(served.url + "/")
    ben = join(chromium, served, "Ben")
    # the phone drops: while it is away the eggs are turned up; back, it has the table as it is now
    offline = ben.get_by_test_id("offline")
    ben.wait_for_selector("body[data-connection=open]")  # joining reconnects with the new token first
    ben.context.set_offline(True)
    # The link goes and comes back. Chromium's offline mode leaves WebSockets alone, so the phone
    # is away only for its reconnect delay: the page itself reports when it showed "offline"
    # (synchronised on the change, not on a poll that could fall between two states).
    shown = ben.evaluate(
        """(wait) => new Promise((resolve) => {
            const note = document.getElementById("offline");
            const seen = new MutationObserver(() => {
                if (!note.hidden) { seen.disconnect(); resolve(true); }
            });
            seen.observe(note, { attributes: true });
            setTimeout(() => { seen.disconnect(); resolve(false); }, wait);
            phone.state.socket.reopen(phone.state.token);
        })""",
        WAIT_MS,
    )
    assert shown, "the phone never said it had lost the connection"
    with httpx.Client(base_url=served.url, timeout=10) as http:
        for line in ("egg dollar-1", "egg star-2", "egg moon-3"):
            answer = http.post(
                "/api/commands", json={"command": line}, headers={"Authorization": f"Bearer {served.scorer}"}
            )
            assert answer.status_code == 200
    ben.context.set_offline(False)
    look(offline).to_be_hidden()
    look(ben.get_by_test_id("last")).to_contain_text("Brahma henhouse")

    caught = ben.locator(".group[data-group='Caught!']")
    look(caught.locator(".group-title")).to_have_text("Caught! \u2014 pick whom")
    assert caught.locator("button").all_inner_texts() == ["Anna", "Carla"]
    ben.get_by_test_id("button-caught-Anna").click()
    banner = screen.get_by_test_id("call")
    look(banner).to_have_text("Caught! called by Ben \u2014 to show their hand: Anna")

    scorer = phone(chromium, f"{served.url}/phone#scorer={served.scorer}")
    scorer.wait_for_selector("body[data-role=scorer]")
    scorer.wait_for_selector("body[data-connection=open]")  # its first table has come: no re-render under the fill
    look(scorer.locator(".corrections li[data-entry='4']")).to_contain_text("Ben calls Caught! on Anna")
    scorer.get_by_test_id("amend-line").fill("caught Ben")
    # a table update redraws the corrections while the scorer types: the line and the caret stay
    scorer.evaluate("document.querySelector('[data-testid=amend-line]').dataset.drawnBefore = 'yes'")
    scorer.evaluate("phone.refresh()")
    redrawn = scorer.locator("[data-testid=amend-line]:not([data-drawn-before])")
    look(redrawn).to_have_value("caught Ben")
    look(redrawn).to_be_focused()
    scorer.keyboard.type(" Carla")
    look(redrawn).to_have_value("caught Ben Carla")
    scorer.get_by_test_id("amend-4").click()
    look(banner).to_have_text("Caught! called by Ben \u2014 to show their hand: Carla")
    look(screen.locator(".event.newest")).to_contain_text("Carla")
    scorer.get_by_test_id("undo-last").click()
    look(banner).to_have_count(0)
    look(screen.get_by_test_id("waiting")).to_contain_text("Play to go on")
    assert table(served)["waiting"]["step"] != "reveal"
