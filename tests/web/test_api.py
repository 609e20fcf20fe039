"""The web table's API, role by role (FastAPI's TestClient, in process)."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from referee.scorekeeper import Scorekeeper
from tablereferee.web import TableHub, create_app
from tablereferee.web.auth import MAX_TRIES, WINDOW, Tokens
from tests.web.conftest import CODE, PINS, SETUP, SIGNALS, bearer, join, start_play


def entries(hub: TableHub) -> int:
    assert hub.keeper is not None
    return len(hub.keeper.log.entries)


# -- public ------------------------------------------------------------------------------------


def test_the_public_table_names_players_seats_teams_and_what_the_referee_waits_for(client):
    view = client.get("/api/table").json()
    assert view["ready"] and view["game"] == "beccato" and view["role"]["role"] == "public"
    assert [p["name"] for p in view["players"]] == SETUP["players"]
    assert view["players"][1] == {"name": "Ben", "seat": 1, "team": "Blues"}
    assert "Orloff" in view["waiting_for"] and "{" not in view["waiting_for"]
    assert view["view"]["signals"] == {"Reds": "hidden", "Blues": "hidden"}
    assert view["join"] == {"code": CODE, "url": f"http://table.test/join/{CODE}", "path": f"/join/{CODE}"}
    assert view["over"] is False and view["final"] is None


def test_the_public_cannot_call_unlock_with_a_bad_pin_or_see_a_secret(client, hub):
    before = entries(hub)
    answer = client.post("/api/commands", json={"command": "egg dollar-1"})
    assert answer.status_code == 403 and answer.json()["error"]["name"] == "NotAllowed"
    assert client.get("/api/teams/Reds/secret").json()["error"]["name"] == "NotAllowed"
    assert client.get("/api/me", headers=bearer("forged")).status_code == 401
    assert entries(hub) == before


# -- players -----------------------------------------------------------------------------------


def test_joining_needs_the_tables_code_and_a_player_of_the_table(client):
    wrong = client.post("/api/join", json={"code": "NOPE12", "player": "Anna"})
    assert wrong.status_code == 403 and wrong.json()["error"]["name"] == "WrongJoinCode"
    nobody = client.post("/api/join", json={"code": CODE, "player": "Zoe"})
    assert nobody.status_code == 404 and nobody.json()["error"]["name"] == "NoSuchPlayer"
    ok = client.post("/api/join", json={"code": CODE.lower(), "player": "anna"}).json()
    assert ok["player"] == "Anna" and ok["role"] == "player" and ok["token"]


def test_a_phone_shows_its_players_own_buttons_and_calls_as_that_player(client, hub, scorer):
    start_play(client, scorer)
    anna = join(client, "Anna")
    me = client.get("/api/me", headers=anna).json()
    assert me["game"] == "beccato"  # the phone names its cards before the first TableView arrives
    groups = {b["group"] for b in me["buttons"]}
    assert {"Coccodé", "Caught!", "Chicchirichì"} <= groups
    assert all(b["action"].get("caller", b["action"].get("player")) == "Anna" for b in me["buttons"])
    caught = [b["action"]["target"] for b in me["buttons"] if b["kind"] == "caught"]
    assert sorted(caught) == ["Ben", "Dan"]  # the opponents only
    coccode = next(b for b in me["buttons"] if b["kind"] == "coccode")
    done = client.post("/api/commands", json={"action": coccode["action"]}, headers=anna)
    assert done.status_code == 200, done.text
    assert done.json()["accepted"] and done.json()["entry"] == 4
    events = client.get("/api/table").json()["events"]
    assert events[-1]["entry"] == 4 and "Anna" in events[-1]["text"] and "Coccodé" in events[-1]["text"]
    # Carla must now show her hand: her phone offers the reveal, with the cards to pick from
    carla = client.get("/api/me", headers=join(client, "Carla")).json()
    reveal = next(b for b in carla["buttons"] if b["kind"] == "reveal")
    assert reveal["action"] == {"kind": "reveal", "player": "Carla"}
    assert reveal["choose"]["cards"]["counts"] == [3, 4] and "orloff" in reveal["choose"]["cards"]["choices"]


def test_a_phone_cannot_act_for_another_player_and_nothing_changes(client, hub, scorer):
    start_play(client, scorer)
    anna = join(client, "Anna")
    before, version = entries(hub), hub.version
    answer = client.post("/api/commands", json={"action": {"kind": "coccode", "caller": "Ben"}}, headers=anna)
    assert answer.status_code == 403 and answer.json()["error"]["name"] == "NotYourCall"
    typed = client.post("/api/commands", json={"command": "caught Ben Anna"}, headers=anna)
    assert typed.json()["error"]["name"] == "NotYourCall"
    chance = client.post("/api/commands", json={"command": "egg sun-1"}, headers=anna)
    assert chance.status_code == 403 and chance.json()["error"]["name"] == "ScorerOnly"
    undo = client.post("/api/commands", json={"command": "undo"}, headers=anna)
    assert undo.status_code == 403 and undo.json()["error"]["name"] == "ScorerOnly"
    assert (entries(hub), hub.version) == (before, version)


def test_an_illegal_call_comes_back_to_the_phone_by_name_and_changes_nothing(client, hub):
    anna = join(client, "Anna")
    before = entries(hub)
    answer = client.post("/api/commands", json={"action": {"kind": "coccode", "caller": "Anna"}}, headers=anna)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["name"] == "OutOfOrder" and error["message"] and "Traceback" not in error["message"]
    assert entries(hub) == before


# -- teams -------------------------------------------------------------------------------------


def test_a_team_pin_shows_that_teams_signal_and_no_other(client):
    anna = join(client, "Anna")
    assert client.get("/api/teams/Reds/secret", headers=anna).status_code == 403
    assert client.get("/api/table", headers=anna).json()["view"]["signals"]["Reds"] == "hidden"
    unlocked = client.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}, headers=anna)
    assert unlocked.status_code == 200 and unlocked.json()["teams"] == ["Reds"]
    secret = client.get("/api/teams/Reds/secret", headers=anna).json()
    assert secret["signal"]["id"] == SIGNALS["Reds"] and secret["signal"]["text"].startswith("Touch your chin")
    assert client.get("/api/table", headers=anna).json()["view"]["signals"] == {
        "Reds": SIGNALS["Reds"],
        "Blues": "hidden",
    }
    assert client.get("/api/teams/Blues/secret", headers=anna).status_code == 403
    assert client.get("/api/teams/Greens/secret", headers=anna).json()["error"]["name"] == "NoSuchTeam"


def test_a_teams_pin_shows_its_practice_the_signals_seen_of_its_players(client, hub, keeper):
    for player, signal in (("Anna", SIGNALS["Reds"]), ("Carla", "hum"), ("Ben", SIGNALS["Blues"])):
        seen = {"type": "signal", "player": player, "signal": signal, "start": 1.0, "end": 2.0, "confidence": 0.9}
        keeper.observe(seen, time=3.0, confidence=0.9)
    reds = bearer(client.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}).json()["token"])
    practice = client.get("/api/teams/Reds/secret", headers=reds).json()["practice"]
    assert [(p["player"], p["theirs"]) for p in practice] == [("Anna", True), ("Carla", False)]
    assert SIGNALS["Reds"] not in client.get("/api/table").text  # the public never sees an observation


def test_a_pin_alone_makes_a_team_token(client):
    answer = client.post("/api/teams/Blues/unlock", json={"pin": PINS["Blues"]}).json()
    assert answer["role"] == "team" and answer["player"] is None
    secret = client.get("/api/teams/Blues/secret", headers=bearer(answer["token"])).json()
    assert secret["signal"]["id"] == SIGNALS["Blues"]


def test_pin_tries_are_rate_limited_per_team(keeper):
    now = [0.0]
    hub = TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS, clock=lambda: now[0]))
    with TestClient(create_app(hub)) as client:
        for i in range(MAX_TRIES):
            wrong = client.post("/api/teams/Reds/unlock", json={"pin": "0000"})
            assert wrong.status_code == 403 and wrong.json()["error"]["tries_left"] == MAX_TRIES - 1 - i
        blocked = client.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]})  # even the right one
        assert blocked.status_code == 429 and blocked.json()["error"]["name"] == "TooManyTries"
        assert int(blocked.headers["Retry-After"]) > 0
        assert client.post("/api/teams/Blues/unlock", json={"pin": PINS["Blues"]}).status_code == 200
        now[0] = WINDOW + 1
        assert client.post("/api/teams/Reds/unlock", json={"pin": PINS["Reds"]}).status_code == 200


# -- the scorer --------------------------------------------------------------------------------


def test_the_scorer_enters_chance_undoes_and_amends(client, hub, scorer):
    start_play(client, scorer)
    assert entries(hub) == 3
    undone = client.post("/api/commands", json={"command": "undo"}, headers=scorer).json()
    assert undone["accepted"] and "undone" in undone["text"]
    assert client.get("/api/table").json()["view"]["henhouses"]["brahma"] is None
    amended = client.post("/api/commands", json={"command": "amend 1 egg sun-4"}, headers=scorer)
    assert amended.status_code == 200, amended.text
    assert client.get("/api/table").json()["view"]["henhouses"]["orloff"] == "sun-4"
    me = client.get("/api/me", headers=scorer).json()
    assert me["corrections"]["last"] == 2 and me["buttons"]  # the egg for the Brahma henhouse


def test_the_scorers_pickers_show_the_cards_as_pictures_never_a_signal_card(client, scorer):
    assert client.get("/api/cards").status_code == 403
    listing = client.get("/api/cards", headers=scorer).json()
    kinds = {c["kind"] for c in listing["cards"]}
    assert {"chicken", "egg"} <= kinds and "signal" not in kinds and "guild" not in kinds
    egg = next(c for c in listing["cards"] if c["value"] == "star-2")
    picture = client.get(egg["picture"])
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert picture.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get("/api/cards/signal:hum:1.png").json()["error"]["name"] == "NoSuchCard"
    assert client.get("/api/cards/nothing.png").status_code == 404


# -- bad input ---------------------------------------------------------------------------------


def test_malformed_requests_are_named_4xx_never_a_500(client):
    cases = [
        client.post("/api/join", content=b"{not json", headers={"content-type": "application/json"}),
        client.post("/api/join", json={"code": CODE}),
        client.post("/api/join", json={"code": CODE, "player": 3}),
        client.post("/api/commands", json={"command": None, "action": None}, headers=join(client, "Ben")),
        client.post("/api/commands", json={"action": {"kind": "fly"}}, headers=join(client, "Ben")),
        client.post("/api/questions/x", json={"answer": "yes"}),
        client.post("/api/questions/3", json={"answer": "maybe"}),
        client.get("/nowhere"),
        client.delete("/api/table"),
    ]
    for answer in cases:
        assert 400 <= answer.status_code < 500, answer.text
        error = answer.json()["error"]
        assert set(error) >= {"name", "message"} and error["name"][0].isupper()
    assert [a.json()["error"]["name"] for a in cases[:3]] == ["BadRequest"] * 3
    assert cases[4].json()["error"]["name"] == "MalformedAction"
    assert cases[-1].status_code == 405


def test_a_question_nobody_asks_is_refused_by_name(client):
    answer = client.post("/api/questions/7", json={"answer": "yes"}, headers=join(client, "Dan"))
    assert answer.status_code == 404 and answer.json()["error"]["name"] == "NoSuchQuestion"


# -- changes and other processes ---------------------------------------------------------------


def test_every_websocket_gets_the_table_then_each_change(client, scorer):
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "table" and first["events"] == []
        client.post("/api/commands", json={"command": "egg dollar-1"}, headers=scorer)
        second = ws.receive_json()
        assert second["version"] > first["version"] and second["events"][-1]["entry"] == 1
    with client.websocket_connect("/ws") as again:  # a phone that reconnects: the current table
        assert again.receive_json()["events"][-1]["entry"] == 1
    with client.websocket_connect("/ws?token=forged") as bad:
        assert bad.receive_json()["error"]["name"] == "NotSignedIn"


def test_what_another_process_appends_to_the_log_reaches_the_screen(client, hub, keeper):
    other = Scorekeeper.resume(keeper.log.path)  # the terminal's `referee play` on the same log
    try:
        assert other.submit("egg dollar-1", time=1.0).accepted
        version = hub.version
        assert hub.poll() is True and hub.version == version + 1
        assert client.get("/api/table").json()["view"]["henhouses"]["orloff"] == "dollar-1"
        assert hub.poll() is False
    finally:
        other.close()


def test_a_table_set_up_later_is_served_once_it_exists(tmp_path):
    hub = TableHub(tokens=Tokens(code=CODE))
    with TestClient(create_app(hub, sessions_dir=tmp_path)) as client:
        assert client.get("/api/table").json()["ready"] is False
        assert client.post("/api/join", json={"code": CODE, "player": "Anna"}).json()["error"]["name"] == "NoTable"
        started = client.app.state.start_table({"game": "beccato", "setup": SETUP})  # what /new hands on
        assert started["log"].startswith(str(tmp_path))
        assert client.get("/api/table").json()["ready"] is True
        assert set(hub.tokens.pins) == {"Reds", "Blues"}
    assert hub.keeper is not None
    hub.keeper.close()


def test_the_game_over_page_gets_the_final_count_with_the_pyramid_worked_out(tmp_path):
    setup = {"players": SETUP["players"], "seed": 3, "options": {"egg_pyramid": True}}
    keeper = Scorekeeper.start("beccato", setup, tmp_path / "over.db", time=1.0)
    rng = random.Random(1)
    while not keeper.state.is_over:
        actions = keeper.state.legal_actions()
        calls = [a for a in actions if a.kind in ("coccode", "caught", "chicchirichi")]
        others = [a for a in actions if a not in calls]
        keeper.act(rng.choice(calls if calls and (rng.random() < 0.3 or not others) else others), time=2.0)
    hub = TableHub(keeper)
    final = hub.table_view(hub.tokens.grant(None))["final"]
    keeper.close()
    assert final["winners"] == ["dollar"]
    for team, line in final["teams"].items():
        pyramid = line["pyramid"]
        assert pyramid["points"] == line["points"] == pyramid["plain_points"] + pyramid["bonus"]
        assert len(line["cards"]) == line["eggs"]
        assert all(p in ("b1", "b2", "b3", "m1", "m2", "top") for p in pyramid["places"]), team


def test_a_simulated_deals_buttons_never_tell_a_hand_to_a_phone_without_the_pin(tmp_path):
    setup = {"players": SETUP["players"], "teams": SETUP["teams"], "seed": 5}
    keeper = Scorekeeper.start("beccato", setup, tmp_path / "seeded.db", time=1.0)
    hub = TableHub(keeper, tokens=Tokens(code=CODE, pins=PINS))
    with TestClient(create_app(hub)) as client:
        scorer = bearer(hub.tokens.scorer_token)
        while client.get("/api/table").json()["waiting"]["step"] == "draw":
            egg = next(b for b in client.get("/api/me", headers=scorer).json()["buttons"] if b["kind"] == "draw_egg")
            assert egg["choose"]["egg"]["choices"] == []  # the egg order stays secret, from the scorer too
            top = keeper.state.deck[0]  # the egg the scorer sees turned up
            assert client.post("/api/commands", json={"command": f"egg {top}"}, headers=scorer).status_code == 200
        holder = client.get("/api/table").json()["waiting"]["holder"]
        phone = join(client, holder)
        hand = sorted(set(keeper.state.hands[holder]))  # what the referee knows of a simulated deal
        passing = next(b for b in client.get("/api/me", headers=phone).json()["buttons"] if b["kind"] == "pass")
        assert passing["choose"]["card"] == {"choices": [], "counts": [], "picker": "/api/cards"}
        assert "card" not in passing["action"]
        assert client.get("/api/cards", headers=phone).status_code == 200
        team = next(t for t, ms in SETUP["teams"].items() if holder in ms)
        client.post(f"/api/teams/{team}/unlock", json={"pin": PINS[team]}, headers=phone)
        passing = next(b for b in client.get("/api/me", headers=phone).json()["buttons"] if b["kind"] == "pass")
        assert sorted(passing["choose"]["card"]["choices"]) == hand  # their own hand, behind their team's PIN
    keeper.close()
