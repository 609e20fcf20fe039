"""The table screen of the trick games in a real browser: a Beccaccino hand (trump, the trick with
its cards, the announcements, points in thirds) and a Bestia deal (pot, chips, who is in), each
on a real `referee serve` process, the scorer's lines sent over HTTP as a scorer's phone sends them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.web.browser import PHONE, SCREEN, WAIT_MS, chromium, errors_of, keep, needs_chromium, shots  # noqa: F401
from tests.web.conftest import Served

pytestmark = needs_chromium
PLAYERS = "Anna,Ben,Carla,Dan"


def screen_of(browser: Any, server: Served, lines: list[str]) -> Any:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for line in lines:
            answer = http.post(
                "/api/commands", json={"command": line}, headers={"Authorization": f"Bearer {server.scorer}"}
            )
            assert answer.status_code == 200, answer.text
    page = browser.new_context(**SCREEN).new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    return page


def phone_of(browser: Any, server: Served, player: str) -> Any:
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{server.url}/join/{server.code}")
    page.get_by_test_id(f"join-{player}").click()
    page.wait_for_selector("body[data-view=main]")
    return page


def test_beccaccino_shows_trump_trick_announcements_and_thirds(chromium, tmp_path: Path, shots: Path):  # noqa: F811
    server = Served(["--game", "beccaccino", "--players", PLAYERS, "--log", str(tmp_path / "b.db")], cwd=tmp_path)
    try:
        lines = ["declare Dan spade", "marafona Dan", "play Dan 3 di spade striscio", "play Anna Re di spade"]
        page = screen_of(chromium, server, lines)
        problems = errors_of(page)
        page.wait_for_selector("body[data-game=beccaccino]")
        assert page.get_by_test_id("trump").inner_text().split() == ["TRUMP", "spade"]
        trick = page.get_by_test_id("trick")
        assert trick.locator(".card figcaption").all_inner_texts() == ["3 di spade", "Re di spade"]
        assert trick.locator(".trick-player").all_inner_texts() == ["Dan", "Anna", "Ben to play"]
        assert trick.locator("img").first.evaluate("img => img.complete && img.naturalWidth") > 50
        assert "Dan: Striscio (slide) (trick 1)" in page.get_by_test_id("announcements").inner_text()
        text = page.inner_text("body")
        assert "Waiting for: Ben to play a card to trick 1." in text
        assert "This hand: 0 points (0 thirds)" in text and "Marafona" in text and "Ben & Dan" in text
        assert "Hand 1 · Anna deals · trick 1 of 10 · playing to 41" in text
        page.screenshot(path=str(shots / "beccaccino.png"))
        keep(shots / "beccaccino.png", "beccaccino.png")
        # Ben's phone plays his card by its picture; a trick won: its thirds go to the team that took it
        ben = phone_of(browser=chromium, server=server, player="Ben")
        ben.get_by_test_id("button-play").click()
        six = ben.get_by_test_id("pick-card-6S")
        assert six.locator("img").get_attribute("src") == "/api/cards/6S.png" and six.inner_text() == "6 di spade"
        assert ben.get_by_test_id("pick-call-busso").count() == 0  # announcements go with a lead only
        six.click()
        ben.get_by_test_id("pick-send").click()
        page.locator(".trick-card", has_text="6 di spade").wait_for()
        with httpx.Client(base_url=server.url, timeout=10) as http:
            answer = http.post(
                "/api/commands",
                json={"command": "play Carla Cavallo di spade"},
                headers={"Authorization": f"Bearer {server.scorer}"},
            )
            assert answer.status_code == 200
        dan = phone_of(browser=chromium, server=server, player="Dan")
        dan.get_by_test_id("button-play").click()
        # Dan leads trick 2, but said striscio in trick 1: one announcement a hand, none offered now
        assert dan.get_by_test_id("pick-call-busso").count() == 0
        last = page.get_by_test_id("last-trick")
        last.wait_for()
        assert last.locator("h2").inner_text().casefold() == "last trick: dan took it"
        assert last.locator("figcaption").all_inner_texts() == [
            "3 di spade",
            "Re di spade",
            "6 di spade",
            "Cavallo di spade",
        ]
        assert page.get_by_test_id("thirds-Ben+Dan").inner_text() == "This hand: 1 point (3 thirds)"
        assert page.get_by_test_id("thirds-Anna+Carla").inner_text() == "This hand: 0 points (0 thirds)"
        assert problems == []
    finally:
        server.stop()


def test_bestia_shows_the_pot_the_chips_and_who_is_in(chromium, tmp_path: Path, shots: Path):  # noqa: F811
    server = Served(["--game", "bestia", "--players", PLAYERS, "--log", str(tmp_path / "s.db")], cwd=tmp_path)
    try:
        lines = [
            "trump 5♥",
            "knock Ben",
            "pass Carla",
            "knock Dan",
            "pass Anna",
            "doctor Carla",
            "decline Anna",
            "play Ben A♥",
        ]
        page = screen_of(chromium, server, lines)
        page.wait_for_selector("body[data-game=bestia]")
        assert page.get_by_test_id("pot").inner_text().split() == ["POT", "3", "chips"]
        assert page.get_by_test_id("trump").locator("figcaption").inner_text() == "5♥"
        chips = page.get_by_test_id("chips")
        assert chips.locator(".player-chips.status-in").count() == 3
        anna = chips.locator(".player-chips[data-player=Anna]")
        assert "47 chips" in anna.inner_text() and "out" in anna.inner_text()
        assert "in · 0 tricks" in chips.locator("[data-player=Ben]").inner_text()
        assert chips.locator(".player-chips.turn").get_attribute("data-player") == "Carla"
        assert page.get_by_test_id("trick").locator("figcaption").all_inner_texts() == ["A♥"]
        assert "Waiting for: Carla to play a card to trick 1." in page.inner_text("body")
        newest = page.locator(".event.newest").inner_text()
        assert newest == "Ben plays A♥."
        page.screenshot(path=str(shots / "bestia.png"))
        keep(shots / "bestia.png", "bestia.png")
    finally:
        server.stop()
