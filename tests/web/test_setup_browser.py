"""The New-table page in a real browser: Debian's Chromium driven by Playwright against a real
server process on 127.0.0.1 (a minimal app: the set-up router and the static pages). The form is
filled, an engine error is shown by name next to its field, a camera is opened, a zone handle is
dragged, and the table created carries the dragged zone into what `referee live` reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tablereferee.run import TableConfig
from tests.web.browser import CHROMIUM, FLAGS, needs_chromium, serving

ROOT = Path(__file__).resolve().parents[2]
PREVIEW = ROOT / "datasets" / "demo" / "preview.jpg"
PEOPLE = ROOT / "tests" / "fixtures" / "people"
SERVER = """
import json, os, sys
from pathlib import Path
import uvicorn
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from tablereferee.web.setup_routes import router

out = Path(sys.argv[2])
app = FastAPI()
app.include_router(router)
app.mount("/static", StaticFiles(directory="tablereferee/web/static"), name="static")
app.state.start_table = lambda manifest: out.write_text(json.dumps(manifest)) and {"session": "browser-test"}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

pytestmark = needs_chromium


@pytest.fixture()
def server(tmp_path):
    out = tmp_path / "table.json"
    with serving(SERVER, str(out)) as url:
        yield url, out


@pytest.fixture()
def page(tmp_path):
    from playwright.sync_api import sync_playwright  # deferred: starts the Playwright driver; only these tests need it

    with sync_playwright() as p:
        # Playwright gives the browser a fresh profile of its own (no --user-data-dir to pass)
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1280, "height": 1800})
        pg = ctx.new_page()
        pg.set_default_timeout(10_000)
        yield pg
        browser.close()


def test_fill_the_form_drag_a_zone_and_create_the_table(server, page, tmp_path):
    url, out = server
    page.goto(url + "/static/new.html")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("[data-testid=game]", "beccato")
    names = page.locator("[data-testid=player-name]")
    assert names.count() == 4  # the fewest players the engine takes
    for i, name in enumerate(["Anna", "Bruno", "Carla", "Dario"]):
        names.nth(i).fill(name)
        names.nth(i).dispatch_event("change")
    page.wait_for_selector("[data-testid=team-of-Anna]")
    assert page.locator("#teams select").count() == 4
    # every option of the engine is a field; a value the engine refuses is shown by name next to it
    for option in ("pass_direction", "egg_pyramid", "five_player", "alternate_seats"):
        assert page.locator(f"[data-testid=option-{option}]").count() == 1
    page.select_option("[data-testid=option-five_player]", "true")
    slot = page.locator('.field-error[data-error-for="options.five_player"]')
    slot.wait_for(state="visible")
    assert slot.inner_text().startswith("BadOption:") and "five_player" in slot.inner_text()
    page.select_option("[data-testid=option-five_player]", "")
    slot.wait_for(state="hidden")
    # the signals are drawn on the server: the page offers how, never shows which
    assert page.locator("#signals select").count() == 2

    # a missing camera is a named error on the page
    page.check("input[name=kind][value=path]")
    page.fill("[data-testid=camera-path]", "/no/such/camera.mp4")
    page.click("[data-testid=open-camera]")
    err = page.locator("#camera-error")
    err.wait_for(state="visible")
    assert err.inner_text().startswith("MediaNotFound:")

    page.fill("[data-testid=camera-path]", str(PREVIEW))
    page.click("[data-testid=open-camera]")
    page.wait_for_selector("[data-testid=overlay-cards] polygon.zone")
    assert page.locator("[data-testid=overlay-cards] polygon.zone").count() == 5
    assert err.is_hidden()

    # the eggs' bottom-right corner is Anna's and Dario's too: one handle moves all three
    handle = page.locator('[data-testid="handle-eggs-2"]')
    assert handle.get_attribute("data-members") == "eggs-2 seat:Anna-3 seat:Dario-2"
    corner = (
        "(() => { const z = newTable.state.cameras[0].proposal.zones;"
        " return [z[0].polygon[2], z[1].polygon[3], z[4].polygon[2]]; })()"
    )
    before = page.evaluate(corner)
    assert before[0] == before[1] == before[2]
    handle.scroll_into_view_if_needed()  # the mouse works in the viewport
    box = handle.bounding_box()
    shown = page.locator("[data-testid=overlay-cards]").bounding_box()
    scale = 1280 / shown["width"]
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=5)
    page.mouse.up()
    moved = page.evaluate(corner)
    after = moved[0]
    assert moved[0] == moved[1] == moved[2]
    assert after[0] == pytest.approx(before[0][0] + 60 * scale, abs=3 * scale)
    assert after[1] == pytest.approx(before[0][1] + 40 * scale, abs=3 * scale)
    shots = Path(os.environ.get("REFEREE_TEST_ARTIFACTS") or tmp_path)  # kept where CI asks for the artefacts
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "new-table.png"), full_page=True)

    assert page.input_value("[data-testid=use-cards]") == "cards"  # a cloth and no face: it watches the cards

    # a picture of two players sent from the browser: it watches the players (their body signals)
    page.fill("[data-testid=camera-name]", "people")
    page.check("input[name=kind][value=upload]")
    page.set_input_files("[data-testid=camera-file]", str(PEOPLE / "mps_face_detector_testImg.jpeg"))
    page.click("[data-testid=open-camera]")
    page.wait_for_selector("[data-testid=overlay-people] rect.region")
    assert page.input_value("[data-testid=use-people]") == "players"
    assert page.locator("[data-testid=overlay-people] rect.region").count() == 2
    seen = page.evaluate(
        "newTable.state.cameras[1].proposal.seats.filter((s) => s.from === 'face').map((s) => s.player)"
    )
    assert len(seen) == 2

    page.click("[data-testid=create]")
    page.wait_for_selector("body[data-created=true]")
    text = page.inner_text("[data-testid=status]")
    assert text.startswith("Table created: Anna, Bruno, Carla, Dario") and "5 zones on 2 cameras" in text
    manifest = json.loads(out.read_text())
    assert manifest["zones"][1]["name"] == "seat:Anna" and manifest["zones"][1]["polygon"][3] == after
    assert len(manifest["setup"]["signals"]) == 2
    html = page.content()
    assert not any(f'"{s}"' in html or f">{s}<" in html for s in manifest["setup"]["signals"].values())
    assert sorted(s["name"] for s in manifest["calibration"]["seats"]) == sorted(seen)
    assert {s["camera"] for s in manifest["calibration"]["seats"]} == {"people"}
    config = TableConfig.from_manifest(manifest)
    assert config.card_cameras() == ["cards"] and config.signal_cameras() == ["people"]
    assert config.zones.seat_of("Anna").polygon[3] == tuple(after) == config.zones.by_name["eggs"].polygon[2]
    assert os.path.getsize(shots / "new-table.png") > 10_000


def test_another_game_brings_its_variants_and_their_options(server, page):
    url, _ = server
    page.goto(url + "/static/new.html")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("[data-testid=game]", "bestia")
    assert page.locator("#variant-row").is_visible()
    assert page.locator("[data-testid=variant] option").count() == 7
    assert page.locator("#signals-section").is_hidden()  # no secret signals in Bestia
    assert page.input_value("[data-testid=option-stake]") == "3"
    page.select_option("[data-testid=variant]", "italian")
    assert page.input_value("[data-testid=option-stake]") == "5"  # the variant's own default
    assert page.inner_text("#player-range") == "3 to 7 players."
    assert "counter-clockwise" in page.inner_text("#seat-direction")
    names = page.locator("[data-testid=player-name]")
    for i, name in enumerate(["Anna", "Bruno", "Carla"]):
        names.nth(i).fill(name)
    page.fill("[data-testid=option-stake]", "0")
    page.dispatch_event("[data-testid=option-stake]", "change")
    slot = page.locator('.field-error[data-error-for="options.stake"]')
    slot.wait_for(state="visible")
    assert slot.inner_text() == "BadOption: the stake must be a positive number of chips"
