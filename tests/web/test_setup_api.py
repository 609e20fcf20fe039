"""The New-table API (`tablereferee.web.setup_routes`) on a minimal app that includes its router:
every option of every engine as a form field, each named error next to its field, the cameras
and their pictures, seats and zones proposed from real pictures, and the table they make read
back by `referee live`'s own loader."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from referee.beccaccino.game import OPTIONS as BECCACCINO_OPTIONS
from referee.beccato import OPTIONS as BECCATO_OPTIONS
from referee.bestia.variants import VARIANTS, options_for
from referee.core import RefereeError
from referee.signal_cards import SIGNAL_CARDS
from tablereferee.commands.live import load_table
from tablereferee.run import TableConfig
from tablereferee.web.setup_routes import router

ROOT = Path(__file__).resolve().parents[2]
PREVIEW = ROOT / "datasets" / "demo" / "preview.jpg"
PEOPLE = ROOT / "tests" / "fixtures" / "people"
FOUR = ["Anna", "Bruno", "Carla", "Dario"]
DECLARED = {
    "beccato": BECCATO_OPTIONS,
    "beccaccino": BECCACCINO_OPTIONS,
    "bestia": {k: v for k, v in options_for(VARIANTS["classic"], FOUR).items() if k != "variant"},
}
PLAYERS = {"beccato": FOUR, "beccaccino": FOUR, "bestia": ["Anna", "Bruno", "Carla"]}
SIGNAL_IDS = [c.id for c in SIGNAL_CARDS]


@pytest.fixture()
def app():
    app = FastAPI()
    app.include_router(router)
    yield app
    cams = getattr(app.state, "setup_cameras", None)
    if cams is not None:
        cams.close()


@pytest.fixture()
def client(app):
    with TestClient(app) as c:
        yield c


def _no_signal(text: str) -> None:
    leaked = [s for s in SIGNAL_IDS if f'"{s}"' in text]
    assert not leaked, leaked


# -- games ---------------------------------------------------------------------------------------


def test_every_engine_lists_every_option_its_variants_and_the_signal_cards(client):
    body = client.get("/api/games").json()
    games = {g["name"]: g for g in body["games"]}
    assert sorted(games) == ["beccaccino", "beccato", "bestia"]
    for name, declared in DECLARED.items():
        options = {o["name"]: o for o in games[name]["options"]}
        assert list(options) == list(declared), name
        for opt_name, spec in declared.items():
            o = options[opt_name]
            assert o["type"] == {bool: "bool", int: "int", str: "str"}[spec.kind]
            assert o["description"] == spec.doc and o["choices"] == list(spec.choices)
            assert o["nullable"] == spec.nullable
            if not o["default_from_players"]:
                assert o["default"] == spec.default
    assert games["beccato"]["players"] == {"min": 4, "max": 9} and games["beccaccino"]["players"] == {
        "min": 4,
        "max": 4,
    }
    assert [v["name"] for v in games["bestia"]["variants"]] == list(VARIANTS)
    italian = next(v for v in games["bestia"]["variants"] if v["name"] == "italian")
    assert italian["players"] == {"min": 3, "max": 7}
    assert next(o for o in italian["options"] if o["name"] == "stake")["default"] == 5
    assert games["beccato"]["signals"] and not games["bestia"]["signals"]
    assert games["beccato"]["centre_zone"] == "eggs" and games["bestia"]["centre_zone"] == "trick"
    assert [c["id"] for c in body["signal_cards"]] == SIGNAL_IDS
    assert set(body["signal_choices"]) == {"random", "free"}


def _good_value(game: str, name: str, spec):
    if name == "dealer":
        return "Bruno"
    if name == "deals_to_play":
        return 2
    if spec.kind is bool:
        return not spec.default if spec.default is not None else False
    if spec.choices:
        return next(c for c in spec.choices if c != spec.default)
    return spec.default


def _bad_value(name: str, spec):
    if spec.kind is bool:
        return "maybe"
    if spec.kind is int:
        return "lots"
    if spec.choices:
        return "sideways"
    return "Nobody"  # the dealer: not a player


@pytest.mark.parametrize("game, name", [(g, n) for g, opts in DECLARED.items() for n in opts])
def test_every_option_field_is_read_and_checked_by_the_engine(client, game, name):
    spec = DECLARED[game][name]
    good = _good_value(game, name, spec)
    if name == "five_player":
        good = False  # on only with five players
    base = {"game": game, "players": PLAYERS[game]}
    if name == "without_twos":
        base["variant"] = "julepe"  # an option of that variant only (the engine says so otherwise)
    r = client.post("/api/setup/validate", json={**base, "options": {name: good}})
    assert r.status_code == 200, r.text
    assert r.json()["options"][name] == good
    r = client.post("/api/setup/validate", json={**base, "options": {name: _bad_value(name, spec)}})
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["name"] == "BadOption" and err["field"] == f"options.{name}" and name in err["message"]


MAPPED = [
    ({"game": "beccato", "players": ["Anna", "Bruno", "Carla"]}, "BadPlayerCount", "players"),
    ({"game": "beccaccino", "players": ["Anna", "Bruno", "Carla"]}, "BadPlayerCount", "players"),
    ({"game": "bestia", "players": ["Anna", "Bruno"]}, "BadPlayerCount", "players"),
    ({"game": "beccato", "players": ["Anna", "Anna", "Carla", "Dario"]}, "BadTeams", "teams"),
    ({"game": "beccato", "players": FOUR, "teams": {"Reds": FOUR}}, "BadTeams", "teams"),
    (
        {"game": "beccato", "players": FOUR, "teams": {"Reds": ["Anna", "Bruno"], "Blues": ["Carla", "Dario"]}},
        "SeatingNotAlternating",
        "players",
    ),
    (
        {"game": "beccaccino", "players": FOUR, "teams": {"A": ["Anna"], "B": ["Bruno", "Carla", "Dario"]}},
        "BadTeams",
        "teams",
    ),
    ({"game": "beccato", "players": FOUR, "options": {"house_rule": True}}, "UnknownOption", "options.house_rule"),
    ({"game": "beccato", "players": FOUR, "options": {"five_player": True}}, "BadOption", "options.five_player"),
    ({"game": "bestia", "players": ["Anna", "Bruno", "Carla"], "options": {"stake": 4}}, "BadOption", "options.stake"),
    ({"game": "bestia", "variant": "poker", "players": ["Anna", "Bruno", "Carla"]}, "BadOption", "variant"),
    ({"game": "beccato", "variant": "classic", "players": FOUR}, "NoVariants", "variant"),
    ({"game": "chess", "players": FOUR}, "UnknownGame", "game"),
    ({"game": "beccato", "players": FOUR, "signals": {"dollar": "free"}}, "BadSetupField", "signals.dollar"),
    ({"game": "beccato", "players": FOUR, "signals": {"Pirates": "random"}}, "BadSetupField", "signals"),
    ({"game": "bestia", "players": ["Anna", "Bruno", "Carla"], "signals": {"x": "random"}}, "BadSetupField", "signals"),
    ({"game": "beccato", "players": "Anna, Bruno"}, "BadSetupField", "players"),
    ({"players": FOUR}, "BadSetupField", "game"),
    (
        {"game": "bestia", "players": ["Anna", "Bruno", "Carla"], "options": {"stake": 3.5}},
        "BadSetupField",
        "options.stake",
    ),
    ({"game": "beccato", "players": FOUR, "signals": {"dollar": "chosen"}}, "BadSetupField", "signals.dollar"),
    ({"game": "beccato", "players": FOUR, "signals": {"dollar": "wink_left"}}, "BadSetupField", "signals.dollar"),
]


@pytest.mark.parametrize("body, name, field", MAPPED, ids=[f"{m[1]}-{m[2]}" for m in MAPPED])
def test_each_named_error_comes_with_its_field(client, body, name, field):
    for route in ("/api/setup/validate", "/api/setup/table"):
        r = client.post(route, json=body)
        assert r.status_code == 422, r.text
        err = r.json()["error"]
        assert (err["name"], err["field"]) == (name, field), err
        assert err["message"] and "{" not in err["message"] and "Traceback" not in r.text
        _no_signal(r.text)


@pytest.mark.parametrize("raw", [b"{players: [", b"", b"\xff\xfe"])
def test_a_body_that_is_not_json_is_a_named_400(client, raw):
    r = client.post("/api/setup/validate", content=raw, headers={"content-type": "application/json"})
    assert r.status_code in (400, 422), r.text
    err = r.json()["error"]
    assert err["name"] in ("NotJSON", "BadSetupField") and err["message"]
    r = client.post("/api/setup/table", content=b"[1, 2", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["name"] == "NotJSON"


def test_a_list_for_a_body_is_named(client):
    r = client.post("/api/setup/validate", json=[1, 2])
    assert r.status_code == 422 and r.json()["error"] == {
        "name": "BadSetupField",
        "message": "the request body is a JSON object of the fields the form sends",
        "field": None,
    }


# -- signals ---------------------------------------------------------------------------------------


def test_signals_are_drawn_on_the_server_and_never_answered(app, client):
    started = []
    app.state.start_table = lambda manifest: (
        started.append(manifest) or {"session": "tonight", "leak": manifest["setup"]}
    )
    body = {"game": "beccato", "players": FOUR + ["Elena", "Fabio"], "signals": {}}
    r = client.post("/api/setup/validate", json=body)
    assert r.status_code == 200 and set(r.json()["signals"].values()) == {"drawn"}
    _no_signal(r.text)
    r = client.post("/api/setup/table", json=body)
    assert r.status_code == 201, r.text
    _no_signal(r.text)
    out = r.json()
    assert out["created"] and out["started"] is None  # a hub answer that tells a signal is not passed on
    signals = started[0]["setup"]["signals"]
    assert set(signals) == set(out["teams"]) and len(set(signals.values())) == len(signals)
    assert all(s in SIGNAL_IDS and next(c for c in SIGNAL_CARDS if c.id == s).printed for s in signals.values())
    assert app.state.setup_table is started[0]


def test_free_signal_teams_invent_their_own(app, client):
    body = {"game": "beccato", "players": FOUR, "options": {"free_signal": True}, "signals": {"star": "random"}}
    r = client.post("/api/setup/table", json=body)
    assert r.status_code == 201, r.text
    assert r.json()["signals"] == {"dollar": "free", "star": "drawn"}
    signals = app.state.setup_table["setup"]["signals"]
    assert signals["dollar"] == "free" and signals["star"] in SIGNAL_IDS


# -- cameras --------------------------------------------------------------------------------------


def test_a_picture_on_the_server_is_a_camera_with_its_snapshot(client):
    r = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)})
    assert r.status_code == 200, r.text
    cam = r.json()
    assert cam["kind"] == "picture" and cam["size"] == [1280, 720] and cam["name"] == "cards"
    snap = client.get(cam["snapshot"])
    assert snap.status_code == 200 and snap.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(snap.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (720, 1280, 3)
    assert np.abs(image.astype(int) - cv2.imread(str(PREVIEW)).astype(int)).mean() < 4
    assert [c["id"] for c in client.get("/api/setup/cameras").json()["cameras"]] == [cam["id"]]
    assert client.get(cam["snapshot"] + "?fresh=true").status_code == 200
    assert client.delete(f"/api/setup/cameras/{cam['id']}").json() == {"closed": cam["id"]}
    gone = client.get(cam["snapshot"])
    assert gone.status_code == 404 and gone.json()["error"]["name"] == "NoSuchCamera"


def test_videos_and_recorded_cameras_open_too(client):
    video = client.post(
        "/api/setup/cameras", json={"name": "people", "source": str(PEOPLE / "mps_gesture_recognizer_test_video.mp4")}
    )
    assert video.status_code == 200 and video.json()["kind"] == "video" and video.json()["size"] == [1280, 720]
    folder = client.post(
        "/api/setup/cameras", json={"name": "cards", "source": str(ROOT / "datasets/demo/cameras/cards")}
    )
    assert folder.status_code == 200 and folder.json()["kind"] == "video" and folder.json()["size"] == [1280, 720]


@pytest.mark.parametrize(
    "source, name, status",
    [
        ("/no/such/table.mp4", "MediaNotFound", 404),
        ("97", "CameraNotFound", 404),
        (str(ROOT / "datasets/demo/session.json"), "UnreadableVideo", 422),
        (str(ROOT / "datasets"), "MediaNotFound", 404),
    ],
)
def test_a_missing_camera_is_a_named_error_on_its_field(client, source, name, status):
    r = client.post("/api/setup/cameras", json={"name": "cards", "source": source})
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["name"] == name and err["field"] == "cameras.cards", err


def test_an_uploaded_picture_is_a_camera_and_garbage_is_named(client):
    r = client.post(
        "/api/setup/cameras/upload", data={"name": "cards"}, files={"file": ("t.jpg", PREVIEW.read_bytes())}
    )
    assert r.status_code == 200, r.text
    assert r.json()["kind"] == "picture" and r.json()["size"] == [1280, 720]
    assert Path(r.json()["source"]).is_file()
    bad = client.post("/api/setup/cameras/upload", data={"name": "cards"}, files={"file": ("t.png", b"not a picture")})
    assert bad.status_code == 422 and bad.json()["error"]["name"] == "UnreadableImage"
    missing = client.post("/api/setup/cameras/upload", files={"file": ("t.png", b"x")})
    assert missing.status_code == 422 and missing.json()["error"]["field"] == "name"


# -- seats, zones and the table they make -------------------------------------------------------


def test_zones_proposed_on_the_demo_table_round_trip_into_referee_live(client, tmp_path):
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    r = client.post(f"/api/setup/cameras/{cam['id']}/propose", json={"game": "beccato", "players": FOUR})
    assert r.status_code == 200, r.text
    p = r.json()
    assert [s["player"] for s in p["seats"]] == FOUR and p["calibration"] is None
    assert [z["name"] for z in p["zones"]] == ["eggs", "seat:Anna", "seat:Bruno", "seat:Carla", "seat:Dario"]
    zones = p["zones"]
    zones[1]["polygon"][0] = [1250.0, 715.0]  # a handle dragged on the page
    body = {"game": "beccato", "players": FOUR, "cameras": [{"id": cam["id"]}], "zones": zones}
    r = client.post("/api/setup/table", json=body)
    assert r.status_code == 201, r.text
    assert r.json()["zones"] == 5 and r.json()["cameras"] == ["cards"]
    manifest = client.app.state.setup_table
    path = tmp_path / "table.json"
    path.write_text(json.dumps(manifest))
    config = load_table(str(path), None)  # exactly what `referee live --table` reads
    assert isinstance(config, TableConfig) and config.game == "beccato" and config.setup["players"] == FOUR
    assert config.zones.to_list() == zones
    assert config.zones.locate("cards", [(440, 100), (580, 360)]) == ["seat:Carla", "eggs"]
    assert config.card_cameras() == ["cards"] and manifest["cameras"]["cards"]["source"] == str(PREVIEW)


def test_faces_give_body_signal_seats_saved_with_the_table(client):
    sys.path.insert(0, str(ROOT / "tests" / "vision"))
    from test_seats import composed_table  # deferred: the picture is the seat tests' own, on their path

    ok, data = cv2.imencode(".png", composed_table())
    cam = client.post(
        "/api/setup/cameras/upload", data={"name": "table"}, files={"file": ("t.png", data.tobytes())}
    ).json()
    p = client.post(f"/api/setup/cameras/{cam['id']}/propose", json={"game": "beccato", "players": FOUR}).json()
    assert sorted(s["name"] for s in p["calibration"]["seats"]) == ["Bruno", "Carla", "Dario"]
    assert [s["from"] for s in p["seats"]] == ["spaced", "face", "face", "face"]
    body = {
        "game": "beccato",
        "players": FOUR,
        "cameras": [{"id": cam["id"]}],
        "zones": p["zones"],
        "calibration": p["calibration"],
    }
    r = client.post("/api/setup/table", json=body)
    assert r.status_code == 201 and r.json()["seats_watched"] == 3, r.text
    config = TableConfig.from_manifest(client.app.state.setup_table)
    assert config.signal_cameras() == ["table"] and config.card_cameras() == ["table"]


def test_moved_seats_are_proposed_again_round_them(client):
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    cloth = [[100, 80], [1180, 80], [1180, 640], [100, 640]]
    body = {"game": "bestia", "players": ["Anna", "Bruno", "Carla"], "cloth": cloth, "angles": [90, 210, 330]}
    p = client.post(f"/api/setup/cameras/{cam['id']}/propose", json=body).json()
    assert p["cloth"] == cloth and [s["angle"] for s in p["seats"]] == [90, 210, 330]
    assert p["zones"][0]["role"] == "trick"
    bad = client.post(f"/api/setup/cameras/{cam['id']}/propose", json={**body, "angles": [90]})
    assert bad.status_code == 422 and bad.json()["error"] == {
        "name": "SeatProposalError",
        "message": "one seat angle (degrees) per player",
        "players": ["Anna", "Bruno", "Carla"],  # the error's own details, as every route gives them
        "field": "cameras.cards",
    }


@pytest.mark.parametrize(
    "change, name, field",
    [
        ({"zones": [{"name": "z", "camera": "elsewhere", "polygon": [[0, 0], [1, 0], [1, 1]]}]}, "BadZones", "zones"),
        (
            {
                "zones": [
                    {
                        "name": "z",
                        "camera": "cards",
                        "role": "seat",
                        "player": "Zoe",
                        "polygon": [[0, 0], [1, 0], [1, 1]],
                    }
                ]
            },
            "BadZones",
            "zones",
        ),
        ({"zones": [{"name": "z", "camera": "cards", "polygon": [[0, 0], [1, 0]]}]}, "BadZones", "zones"),
        (
            {"zones": [{"name": "z", "camera": "cards", "role": "pot", "polygon": [[0, 0], [1, 0], [1, 1]]}]},
            "BadSetupField",
            "zones.role",
        ),
        ({"calibration": {"format": "nonsense"}}, "CalibrationError", "calibration"),
        ({"cameras": [{"id": "c999"}]}, "NoSuchCamera", None),
    ],
)
def test_bad_zones_and_cameras_are_named(client, change, name, field):
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    body = {"game": "beccato", "players": FOUR, "cameras": [{"id": cam["id"]}], **change}
    r = client.post("/api/setup/table", json=body)
    assert r.status_code in (404, 422), r.text
    err = r.json()["error"]
    assert err["name"] == name and (field is None or err["field"] == field), err


def test_a_table_without_cameras_is_a_keyboard_and_phones_table(client):
    r = client.post("/api/setup/table", json={"game": "beccaccino", "players": FOUR, "options": {"target": 31}})
    assert r.status_code == 201, r.text
    m = client.app.state.setup_table
    assert m["zones"] == [] and m["cameras"] == {} and m["setup"]["options"] == {"target": 31}
    assert m["options"]["deck"] == "italian"


class _Refused(RefereeError):
    """A guard's refusal that carries its own HTTP status, as the web table's errors do."""

    status = 403


def test_a_guard_included_with_the_router_refuses_by_name_with_its_status():
    def scorer_only():
        raise _Refused("this is the scorer's")

    app = FastAPI()
    app.include_router(router, dependencies=[Depends(scorer_only)])
    with TestClient(app) as c:
        for method, url in (("GET", "/api/games"), ("POST", "/api/setup/table"), ("GET", "/api/setup/cameras")):
            r = c.request(method, url, json={"game": "beccato", "players": FOUR})
            assert r.status_code == 403 and r.json()["error"] == {
                "name": "_Refused",
                "message": "this is the scorer's",
                "field": None,
            }


def test_seats_dragged_on_the_picture_are_read_as_points(client):
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    body = {"game": "beccato", "players": FOUR, "positions": [[640, 716], [0, 360], [640, 0], [1276, 360]]}
    p = client.post(f"/api/setup/cameras/{cam['id']}/propose", json=body).json()
    assert [round(s["angle"]) for s in p["seats"]] == [90, 180, 270, 0]
    assert p["faces"] == [] and [s["from"] for s in p["seats"]] == ["moved"] * 4


@pytest.mark.parametrize(
    "source, name",
    [
        ("99999999999999999999999", "CameraNotFound"),
        ("   ", "BadSetupField"),
        ("a\u0000b", "MediaNotFound"),
        ("0" * 3000, "MediaNotFound"),  # a name too long for the file system
        ("x" * 3000, "MediaNotFound"),
    ],
)
def test_odd_camera_sources_are_named_errors(client, source, name):
    r = client.post("/api/setup/cameras", json={"name": "cards", "source": source})
    assert 400 <= r.status_code < 500 and r.json()["error"]["name"] == name, r.text
    assert r.json()["error"]["field"] == "cameras.cards"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"positions": [[1e308, 1e308], [0, 0]]}, "one seat position"),
        ({"cloth": [[0, 0], [1e308, 0], [1e308, 1e308], [0, 1e308]]}, "four [x, y] corners"),
        ({"angles": [90, 90.5]}, "same place"),
        ({"cloth": [[0, 0], [0, 0], [0, 0], [5, 5]]}, "no area"),
    ],
)
def test_impossible_seats_and_cloths_are_refused_by_name(client, change, message):
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    r = client.post(f"/api/setup/cameras/{cam['id']}/propose", json={"players": ["Anna", "Bruno"], **change})
    assert r.status_code == 422 and r.json()["error"]["name"] == "SeatProposalError", r.text
    assert message in r.json()["error"]["message"]


def test_two_cameras_proposing_the_same_seats_keep_both(client):
    ids = [client.post("/api/setup/cameras", json={"name": n, "source": str(PREVIEW)}).json()["id"] for n in ("a", "b")]
    zones = []
    for cid in ids:
        zones += client.post(f"/api/setup/cameras/{cid}/propose", json={"game": "beccato", "players": FOUR}).json()[
            "zones"
        ]
    body = {"game": "beccato", "players": FOUR, "cameras": [{"id": i} for i in ids], "zones": zones}
    r = client.post("/api/setup/table", json=body)
    assert r.status_code == 201 and r.json()["zones"] == 10, r.text
    names = [z["name"] for z in client.app.state.setup_table["zones"]]
    assert names[:2] == ["eggs", "seat:Anna"] and names[5:7] == ["eggs@b", "seat:Anna@b"]
    config = TableConfig.from_manifest(client.app.state.setup_table)
    assert config.card_cameras() == ["a", "b"] and config.zones.locate("b", [(640, 700)]) == ["seat:Anna@b"]


def test_the_table_is_saved_beside_the_log_the_hub_started(app, client, tmp_path):
    log = tmp_path / "beccato-tonight.db"
    app.state.start_table = lambda manifest: {"log": str(log)}
    cam = client.post("/api/setup/cameras", json={"name": "cards", "source": str(PREVIEW)}).json()
    zones = client.post(f"/api/setup/cameras/{cam['id']}/propose", json={"players": FOUR}).json()["zones"]
    r = client.post("/api/setup/table", json={"game": "beccato", "players": FOUR, "cameras": [cam], "zones": zones})
    assert r.status_code == 201, r.text
    saved = tmp_path / "beccato-tonight.table.json"
    assert r.json()["table_file"] == str(saved)
    config = load_table(str(saved), None)
    assert config.zones.to_list() == zones and config.setup == client.app.state.setup_table["setup"]
    _no_signal(r.text)


@pytest.mark.parametrize("own", [{"table": "its own"}, {"folder": "a session folder"}])
def test_a_hub_that_saves_its_own_table_gets_no_second_copy(app, client, tmp_path, own):
    app.state.start_table = lambda manifest: {"log": str(tmp_path / "x.db"), **own}
    r = client.post("/api/setup/table", json={"game": "beccaccino", "players": FOUR})
    assert r.status_code == 201 and r.json()["table_file"] is None
    assert not (tmp_path / "x.table.json").exists()


def test_a_table_file_that_cannot_be_written_is_named_and_the_table_still_starts(app, client, tmp_path):
    app.state.start_table = lambda manifest: {"log": str(tmp_path / "no-such-folder" / "x.db")}
    r = client.post("/api/setup/table", json={"game": "beccaccino", "players": FOUR})
    assert r.status_code == 201 and r.json()["created"] and r.json()["table_file"] is None
    assert r.json()["table_file_error"]["name"] == "TableNotSaved"
    assert "No such file or directory" in r.json()["table_file_error"]["message"]
