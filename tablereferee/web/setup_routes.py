"""The New-table page's API: games and their options, a setup checked by the engine, cameras,
their pictures, and seats and zones proposed from them.

    GET  /api/games                              every game: variants, players, table options; the Signal cards
    POST /api/setup/validate                     the setup as the engine reads it (teams filled in), or its error
    POST /api/setup/table                        the table: signals drawn here, zones checked; handed to the hub
    GET  /api/setup/webcams                      the webcams this machine has
    GET  /api/setup/cameras                      the cameras opened for the new table
    POST /api/setup/cameras                      open one: {"name": "cards", "source": "0" | "/path/video.mp4"}
    POST /api/setup/cameras/upload               open an uploaded video or picture (multipart: name, file)
    GET  /api/setup/cameras/{id}/snapshot.jpg    its picture (?fresh=true grabs a new one)
    POST /api/setup/cameras/{id}/propose         seats and zones proposed from its picture (`vision.seats`)
    DELETE /api/setup/cameras/{id}

Every refusal is `{"error": {"name", "message", "field"}}` with a 4xx status: `name` is the
named error (the engine's `SetupError`s by their own names: `BadTeams`, `BadOption`...),
`field` the form field it belongs to (`players`, `teams`, `options.stake`, `signals.Reds`,
`cameras.cards`, `zones`), or null for the form as a whole. Nothing here ever answers with a
team's signal: they are drawn on the server (`secrets`), handed to the hub with the setup and
shown to each team behind its PIN only (the hub's business).

The application includes the router with its own guard: the page is the scorer's:

    app.include_router(setup_routes.router, dependencies=[Depends(auth.require_scorer)])

`create_table(body)` is what `POST /api/setup/table` hands on: a session manifest (the format
`referee live --table` reads and `TableConfig.from_manifest` checks). The route gives it to
`app.state.start_table(manifest)` when the application has set one, keeps the last one in
`app.state.setup_table` either way, and, when the start names its session log (`{"log": PATH}`)
and no table of its own (a `"table"` file, a session `"folder"`), saves it beside the log as
`PATH.table.json`.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import secrets
import shutil
import tempfile
import threading
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import cv2
import numpy as np
from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from referee.core import ENGINE_MODULES, RefereeError, TableOption, get_engine, jsonable
from referee.scorekeeper import public_error
from referee.secrecy import seats as seats_of
from referee.signal_cards import FREE_SIGNAL, SIGNAL_CARDS
from referee.table.zones import BadZones, TableZones
from tablereferee.run import TableConfig
from vision.capture.sources import OpenCVSource
from vision.landmarks.calibration import CalibrationError, TableCalibration
from vision.seats import propose_table
from vision.video import CameraNotFound, MediaError, MediaNotFound, open_frames


class SetupRequestError(RefereeError):
    """A New-table request the server cannot read: not JSON, or a field of the wrong kind."""


class NotJSON(SetupRequestError):
    """A request body that is not JSON."""


class BadSetupField(SetupRequestError):
    """A request field of the wrong kind (a number for a name, a missing game...)."""


class NoSuchCamera(SetupRequestError):
    """A camera id the New-table page has not opened (or has closed)."""


class NoVariants(SetupRequestError):
    """A variant named for a game that has none."""


class TableNotSaved(RefereeError):
    """A table that could not be written beside its session log (a full disk, no permission)."""


class TooBig(SetupRequestError):
    """An uploaded video or picture larger than the server takes."""


TITLES = {"beccato": "Beccato!", "beccaccino": "Beccaccino", "bestia": "Bestia"}
CENTRE_ROLE = {"beccato": "eggs"}  # the centre zone's role: the eggs of Beccato!, else the trick
COUNTER_CLOCKWISE = frozenset({"beccaccino", "bestia"})  # the order of play of the Italian trick games
MAX_UPLOAD = 512 * 1024 * 1024
MAX_WEBCAM = 63  # the highest webcam index tried (Linux numbers /dev/video0..63)
FIELD_OF_ERROR = {
    "BadPlayerCount": "players",
    "SeatingNotAlternating": "players",
    "BadTeams": "teams",
    "BadSignal": "signals",
    "BadZones": "zones",
    "CalibrationError": "calibration",
    "UnknownGame": "game",
    "NoVariants": "variant",
}
NOT_FOUND = ("NoSuchCamera", "CameraNotFound", "MediaNotFound")


# -- errors as answers ---------------------------------------------------------------------------


def field_of(exc: RefereeError) -> str | None:
    """The form field a named error belongs to."""
    details = exc.details
    if "field" in details:
        return str(details["field"])
    option = details.get("option")
    if option == "variant":
        return "variant"
    if isinstance(option, str):
        return f"options.{option}"
    for cls in type(exc).__mro__:
        if cls.__name__ in FIELD_OF_ERROR:
            field = FIELD_OF_ERROR[cls.__name__]
            team = details.get("team")
            return f"{field}.{team}" if field == "signals" and isinstance(team, str) else field
    return None


def error_response(exc: RefereeError) -> JSONResponse:
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status", None)  # the web table's own errors carry theirs (auth.WebError)
    if not isinstance(status, int) or not 400 <= status < 500:
        status = 404 if names & set(NOT_FOUND) else 400 if "NotJSON" in names else 413 if "TooBig" in names else 422
    details = {k: v for k, v in public_error(exc).items() if k not in ("error", "message", "field")}
    body = {"error": {"name": exc.name, "message": exc.message, **details, "field": field_of(exc)}}
    return JSONResponse(body, status_code=status)


def _plain(errors: list[Any]) -> tuple[str, str | None, bool]:
    """A request-validation error in words, the field it names, whether the body was not JSON."""
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return "the request body is not JSON: " + str(first.get("ctx", {}).get("error", "")), None, True
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    if not loc:
        return "the request body is a JSON object of the fields the form sends", None, False
    if loc[0] in ("options", "signals", "teams"):
        loc = loc[:2]  # the option, team or signal named; not the kinds of value tried for it
    field = ".".join(p for p in loc if not p.isdigit()) or None
    where = " ".join(loc) or "the request"
    return f"{where}: {str(first.get('msg', 'not valid')).lower()}", field, False


class NamedErrors(APIRoute):
    """A route whose refusals are named errors: a `RefereeError` raised by the handler, and
    the framework's own request checks, answered as `{"error": {...}}`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                message, field, not_json = _plain(list(exc.errors()))
                err = NotJSON(message) if not_json else BadSetupField(message, field=field or "")
                if not field:
                    err.details.pop("field", None)
                return error_response(err)
            except RefereeError as exc:
                return error_response(exc)

        return route


router = APIRouter(route_class=NamedErrors, tags=["new table"])


# -- games --------------------------------------------------------------------------------------


def _option(name: str, spec: TableOption, player_dependent: bool) -> dict[str, Any]:
    kind = {bool: "bool", int: "int", str: "str"}[spec.kind]
    return {
        "name": name,
        "type": kind,
        "default": None if player_dependent else jsonable(spec.default),
        "nullable": spec.nullable,
        "choices": list(jsonable(spec.choices)),
        "description": spec.doc,
        "expected": spec.expected(),
        "default_from_players": player_dependent,
    }


def declared_options(game: str, variant: str | None = None, players: list[str] | None = None) -> dict[str, TableOption]:
    """Every table option of `game` (of its `variant`), as the engine declares it."""
    engine = get_engine(game)
    if engine.name == "bestia":
        from referee.bestia.game import variant_named  # deferred: one engine's own module, loaded with it
        from referee.bestia.variants import options_for  # deferred: as above

        return options_for(variant_named(variant or "classic"), players or [])
    module = importlib.import_module(ENGINE_MODULES[engine.name])
    options = getattr(module, "OPTIONS", None)
    if options is None:  # an engine that keeps its options beside its state (Beccaccino)
        options = getattr(importlib.import_module(f"{module.__name__}.game"), "OPTIONS", {})
    return dict(options)


def _options_list(game: str, variant: str | None) -> list[dict[str, Any]]:
    three, four = (declared_options(game, variant, [f"{tag}{i}" for i in range(n)]) for tag, n in (("a", 3), ("b", 4)))
    return [_option(name, spec, three[name].default != four[name].default) for name, spec in three.items()]


def _variants(game: str) -> list[dict[str, Any]]:
    if get_engine(game).name != "bestia":
        return []
    from referee.bestia.variants import VARIANTS  # deferred: one engine's own module, loaded with it

    return [
        {
            "name": v.name,
            "title": v.title,
            "players": {"min": v.min_players, "max": v.max_players},
            "options": _options_list(game, v.name),
        }
        for v in VARIANTS.values()
    ]


def _setup_for(game: str, variant: str | None, players: list[str], options: Mapping[str, Any] | None = None):
    opts = dict(options or {})
    if variant:
        opts["variant"] = variant
    return {"players": players, "options": opts}


def player_range(game: str, variant: str | None = None) -> tuple[int, int]:
    """The fewest and most players the engine takes (asked of the engine itself: the counts
    for which `new_game` raises no `...PlayerCount` error)."""
    return _player_range(get_engine(game).name, variant)


@functools.cache  # by the engine's own name and a variant it declares: a handful of entries
def _player_range(game: str, variant: str | None) -> tuple[int, int]:
    engine = get_engine(game)
    ok = []
    for n in range(2, 14):
        try:
            engine.new_game(_setup_for(game, variant, [f"Player {i + 1}" for i in range(n)]))
        except RefereeError as exc:
            if "PlayerCount" in exc.name:
                continue
        ok.append(n)
    return (min(ok), max(ok)) if ok else (0, 0)


def _uses_signals(game: str) -> bool:
    """Whether the game's teams have secret signals (its public view names them, hidden)."""
    return _signals_in(get_engine(game).name)


@functools.cache  # by the engine's own name
def _signals_in(game: str) -> bool:
    lo, _ = player_range(game)
    state = get_engine(game).new_game({"players": [f"Player {i + 1}" for i in range(lo)]})
    return "signals" in state.view(None)


@functools.cache  # the engines do not change while the server runs
def games() -> dict[str, Any]:
    out = []
    for name in ENGINE_MODULES:
        engine = get_engine(name)
        variants = _variants(name)
        lo, hi = player_range(name, variants[0]["name"] if variants else None)
        out.append(
            {
                "name": engine.name,
                "title": TITLES.get(engine.name, engine.name.capitalize()),
                "version": engine.version,
                "players": {"min": lo, "max": hi},
                "variants": variants,
                "default_variant": variants[0]["name"] if variants else None,
                "options": [o for o in _options_list(name, None) if o["name"] != "variant"],
                "signals": _uses_signals(name),
                "centre_zone": CENTRE_ROLE.get(engine.name, "trick"),
                "seat_direction": "counter-clockwise" if engine.name in COUNTER_CLOCKWISE else "clockwise",
            }
        )
        for v in variants:
            v["options"] = [o for o in v["options"] if o["name"] != "variant"]
    return {
        "games": out,
        "signal_cards": [{"id": c.id, "text": c.text, "cue": c.cue, "printed": c.printed} for c in SIGNAL_CARDS],
        "signal_choices": {
            "random": "drawn at random from the Signal cards (each team sees its own behind its PIN)",
            FREE_SIGNAL: "Free Signal: the team invents its own",
        },
    }


@router.get("/api/games")
def get_games() -> dict[str, Any]:
    """Every game: its variants, how many players, every table option; the Signal cards."""
    return games()


# -- the setup ---------------------------------------------------------------------------------


class ZoneIn(BaseModel):
    name: str
    camera: str
    role: Literal["seat", "eggs", "trick", "other"] = "other"
    polygon: list[tuple[float, float]]
    player: str | None = None


class CameraIn(BaseModel):
    id: str


class SetupIn(BaseModel):
    game: str
    variant: str | None = None
    players: list[str] = Field(default_factory=list)
    teams: dict[str, list[str]] | None = None
    options: dict[str, bool | int | str | None] = Field(default_factory=dict)
    signals: dict[str, Literal["random", "free"]] = Field(default_factory=dict)
    dealer: str | None = None


class TableIn(SetupIn):
    cameras: list[CameraIn] = Field(default_factory=list)
    zones: list[ZoneIn] = Field(default_factory=list)
    calibration: dict[str, Any] | None = None


def engine_setup(body: SetupIn, signals: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The setup dict the engine reads from the form's fields."""
    engine = get_engine(body.game)
    if body.variant and not _variants(body.game):
        raise NoVariants(f"{TITLES.get(engine.name, engine.name)} has no variants; its house rules are options")
    setup: dict[str, Any] = _setup_for(
        body.game,
        body.variant,
        [p.strip() for p in body.players],
        {k: v for k, v in body.options.items() if v != ""},
    )
    if body.teams:
        setup["teams"] = {t.strip(): [p.strip() for p in m] for t, m in body.teams.items()}
    if body.dealer:
        if engine.name == "beccato":
            setup["dealer"] = body.dealer
        else:
            setup["options"]["dealer"] = body.dealer
    if signals:
        setup["signals"] = dict(signals)
    return setup


def check_setup(body: SetupIn) -> tuple[dict[str, Any], Any]:
    """The setup with each team's signal drawn, and the engine's state for it."""
    engine = get_engine(body.game)
    setup = engine_setup(body)
    state = engine.new_game(setup)
    if not _uses_signals(body.game):
        if body.signals:
            raise BadSetupField(f"{TITLES.get(engine.name, engine.name)} has no secret signals", field="signals")
        return setup, state
    _, teams = seats_of(state)
    unknown = sorted(set(body.signals) - set(teams))
    if unknown:
        raise BadSetupField(f"no team {unknown[0]!r}; the teams are {', '.join(teams)}", field="signals")
    free_table = bool(state.view(None).get("table", {}).get("options", {}).get("free_signal"))
    choice = {t: body.signals.get(t, FREE_SIGNAL if free_table else "random") for t in teams}
    for team, how in choice.items():
        if how == FREE_SIGNAL and not free_table:
            raise BadSetupField(
                f"the {team} team can invent its own signal only with the Free Signal option on",
                field=f"signals.{team}",
            )
    printed = [c.id for c in SIGNAL_CARDS if c.printed]
    drawn = secrets.SystemRandom().sample(printed, len(teams))
    signals = {t: (FREE_SIGNAL if how == FREE_SIGNAL else drawn[i]) for i, (t, how) in enumerate(choice.items())}
    setup = engine_setup(body, signals)
    return setup, engine.new_game(setup)


def public_summary(game: str, setup: Mapping[str, Any], state: Any) -> dict[str, Any]:
    """What the page shows of a checked setup: the teams as the engine made them, the options
    in force, how each team's signal is chosen; never a signal."""
    players, teams = seats_of(state)
    public = state.view(None)
    table = public.get("table") if isinstance(public.get("table"), Mapping) else public
    options = table.get("options") or public.get("options") or {}
    given = setup.get("signals") or {}
    return {
        "game": get_engine(game).name,
        "players": players,
        "teams": teams,
        "options": jsonable(options),
        "signals": {t: ("free" if given.get(t) == FREE_SIGNAL else "drawn") for t in teams} if given else {},
    }


@router.post("/api/setup/validate")
def validate(body: SetupIn) -> dict[str, Any]:
    """The setup as the engine reads it (teams filled in, options in force), or its named error."""
    setup, state = check_setup(body)
    return {"ok": True, **public_summary(body.game, setup, state)}


# -- cameras -----------------------------------------------------------------------------------


class CameraOpen(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    source: str = Field(min_length=1, max_length=4000)


class _Camera:
    def __init__(self, cid: str, name: str, source: str, kind: str, image: np.ndarray) -> None:
        self.id, self.name, self.source, self.kind, self.image = cid, name, source, kind, image

    def to_dict(self) -> dict[str, Any]:
        h, w = self.image.shape[:2]
        return {
            "id": self.id,
            "name": self.name,
            "source": self.source,
            "kind": self.kind,
            "size": [w, h],
            "snapshot": f"/api/setup/cameras/{self.id}/snapshot.jpg",
        }


class Cameras:
    """The cameras opened for the new table, one picture each (kept on the application)."""

    def __init__(self) -> None:
        self.by_id: dict[str, _Camera] = {}
        self.lock = threading.Lock()
        self.uploads = Path(tempfile.mkdtemp(prefix="referee-setup-"))
        self._n = 0

    def add(self, name: str, source: str, kind: str, image: np.ndarray) -> _Camera:
        with self.lock:
            for cam in list(self.by_id.values()):
                if cam.name == name:  # opening a camera under a name used already replaces it
                    del self.by_id[cam.id]
            self._n += 1
            cam = _Camera(f"c{self._n}", name, source, kind, image)
            self.by_id[cam.id] = cam
            return cam

    def get(self, cid: str) -> _Camera:
        cam = self.by_id.get(cid)
        if cam is None:
            raise NoSuchCamera(f"no camera {cid!r} is open; open it again", camera=cid)
        return cam

    def close(self) -> None:
        shutil.rmtree(self.uploads, ignore_errors=True)


def cameras_of(request: Request) -> Cameras:
    state = request.app.state
    with _APP_LOCK:
        if getattr(state, "setup_cameras", None) is None:
            state.setup_cameras = Cameras()
        return state.setup_cameras


_APP_LOCK = threading.Lock()


def grab(source: str, name: str = "cam0") -> tuple[str, np.ndarray]:
    """One picture from a webcam index, a video, a picture or a recorded camera folder; a
    named error (`CameraNotFound`, `MediaNotFound`, `UnreadableVideo`...) when none comes."""
    spec = source.strip()
    if not spec:
        raise BadSetupField(
            "say which camera: a webcam's number, or a video or picture on this machine", field=f"cameras.{name}"
        )
    try:
        return _grab(spec, name)
    except (OSError, ValueError) as exc:  # a name the file system refuses: too long, a NUL in it
        shown = spec if len(spec) <= 80 else spec[:77] + "..."
        raise MediaNotFound(
            f"no file {shown!r} ({exc.strerror or exc})" if isinstance(exc, OSError) else f"no file {shown!r}",
            field=f"cameras.{name}",
        ) from None


def _grab(spec: str, name: str) -> tuple[str, np.ndarray]:
    if spec.isdigit() and not Path(spec).exists():
        if int(spec) > MAX_WEBCAM:
            raise CameraNotFound(f"no webcam answers at index {spec}", field=f"cameras.{name}")
        try:
            cam = OpenCVSource(name, int(spec))
        except CameraNotFound as exc:
            raise CameraNotFound(f"no webcam answers at index {spec}", field=f"cameras.{name}") from exc
        try:
            frame = cam.read()
        finally:
            cam.close()
        if frame is None:
            raise CameraNotFound(f"webcam {spec} opened but gave no picture", field=f"cameras.{name}")
        return "webcam", frame.image
    path = Path(spec).expanduser()
    if path.is_dir():  # a recorded camera: its first segment
        segments = sorted(p for p in path.iterdir() if p.suffix.lower() in (".mp4", ".mkv", ".avi", ".mov"))
        if not segments:
            raise MediaNotFound(f"no video in the folder {spec}", field=f"cameras.{name}")
        path = segments[0]
    try:
        with open_frames(path) as frames:
            kind = frames.kind
            first = next(iter(frames), None)
    except MediaError as exc:
        exc.details["field"] = f"cameras.{name}"
        raise
    if first is None:
        raise MediaNotFound(f"{path.name} gave no picture", field=f"cameras.{name}")
    return ("picture" if kind == "image" else "video"), first.image


@router.get("/api/setup/webcams")
def webcams() -> dict[str, Any]:
    """The webcams this machine shows (`/dev/video*` indices); any index can still be tried."""
    found = sorted(int(m.group(1)) for p in Path("/dev").glob("video*") if (m := re.fullmatch(r"video(\d+)", p.name)))
    return {"webcams": [{"index": i, "label": f"webcam {i}"} for i in found]}


@router.get("/api/setup/cameras")
def list_cameras(request: Request) -> dict[str, Any]:
    return {"cameras": [c.to_dict() for c in cameras_of(request).by_id.values()]}


@router.post("/api/setup/cameras")
def open_camera(body: CameraOpen, request: Request) -> dict[str, Any]:
    """Open a webcam (its index) or a file on this machine (a video, a picture, a recorded
    camera folder) and keep its picture."""
    kind, image = grab(body.source, body.name.strip())
    return cameras_of(request).add(body.name.strip(), body.source.strip(), kind, image).to_dict()


@router.post("/api/setup/cameras/upload")
def upload_camera(
    request: Request,
    name: Annotated[str, Form(min_length=1, max_length=40)],
    file: Annotated[UploadFile, File()],
) -> dict[str, Any]:
    """A video or a picture sent from the browser, kept on this machine as the camera's file."""
    cams = cameras_of(request)
    suffix = re.sub(r"[^a-z0-9.]", "", Path(file.filename or "upload").suffix.lower())[:8] or ".bin"
    target = cams.uploads / f"{secrets.token_hex(6)}{suffix}"
    size = 0
    with target.open("wb") as out:
        while chunk := file.file.read(1 << 20):
            size += len(chunk)
            if size > MAX_UPLOAD:
                out.close()
                target.unlink(missing_ok=True)
                raise TooBig(f"the file is larger than {MAX_UPLOAD >> 20} MB", field=f"cameras.{name}")
            out.write(chunk)
    try:
        kind, image = grab(str(target), name.strip())
    except MediaError:
        target.unlink(missing_ok=True)
        raise
    return cams.add(name.strip(), str(target), kind, image).to_dict()


@router.get("/api/setup/cameras/{cid}/snapshot.jpg", response_class=Response)
def snapshot(cid: str, request: Request, fresh: bool = False) -> Response:
    """The camera's picture as JPEG; `fresh` grabs a new one first."""
    cams = cameras_of(request)
    cam = cams.get(cid)
    if fresh:
        cam.kind, cam.image = grab(cam.source, cam.name)
    ok, data = cv2.imencode(".jpg", cam.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return Response(data.tobytes(), media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.delete("/api/setup/cameras/{cid}")
def close_camera(cid: str, request: Request) -> dict[str, Any]:
    cams = cameras_of(request)
    cams.get(cid)
    with cams.lock:
        cams.by_id.pop(cid, None)
    return {"closed": cid}


class ProposeIn(BaseModel):
    game: str = "beccato"
    players: list[str]
    cloth: list[tuple[float, float]] | None = None
    angles: list[float] | None = None
    positions: list[tuple[float, float]] | None = None


@router.post("/api/setup/cameras/{cid}/propose")
def propose(cid: str, body: ProposeIn, request: Request) -> dict[str, Any]:
    """Seats and zones proposed from the camera's picture: faces round the cloth, a card zone
    in front of each seat, the centre zone. With `cloth`, and the seats' `angles` or
    `positions` (pixels, where a person dragged them), the zones are worked out round those."""
    cam = cameras_of(request).get(cid)
    name = get_engine(body.game).name
    try:
        proposal = propose_table(
            cam.image,
            [p.strip() for p in body.players],
            camera=cam.name,
            centre_role=CENTRE_ROLE.get(name, "trick"),
            clockwise=name not in COUNTER_CLOCKWISE,
            cloth=body.cloth,
            angles=body.angles,
            positions=body.positions,
        )
    except RefereeError as exc:
        exc.details.setdefault("field", f"cameras.{cam.name}")
        raise
    return {"camera": cam.to_dict(), **proposal.to_dict()}


# -- the table ------------------------------------------------------------------------------------


def _card_deck(game: str, setup: Mapping[str, Any]) -> str:
    if game == "beccato":
        return "beccato"
    if game == "bestia":
        from referee.bestia.game import variant_named  # deferred: one engine's own module, loaded with it

        deck = variant_named((setup.get("options") or {}).get("variant", "classic")).deck.name
        return "italian" if deck.startswith("italian") else "french40" if deck == "french-40" else "french52"
    return "italian"


def create_table(body: TableIn, cameras: Cameras | None = None) -> dict[str, Any]:
    """The new table as a session manifest: game, setup (with each team's drawn signal: keep
    it from every public view), zones, calibration, options, cameras. Checked by the engine,
    by `referee.table.zones` and by `TableConfig.from_manifest` (what `referee live` runs)."""
    setup, state = check_setup(body)
    game = get_engine(body.game).name
    players, _ = seats_of(state)
    cams: dict[str, dict[str, Any]] = {}
    for c in body.cameras:
        if cameras is None:
            raise NoSuchCamera(f"no camera {c.id!r} is open", camera=c.id, field="cameras")
        cam = cameras.get(c.id)
        h, w = cam.image.shape[:2]
        cams[cam.name] = {"source": cam.source, "kind": cam.kind, "size": [w, h]}
    zones = [z.model_dump(exclude_none=True) for z in body.zones]
    names: set[str] = set()
    for z in zones:
        z["polygon"] = [list(p) for p in z["polygon"]]
        if z["name"] in names:  # two cameras each proposed "seat:Anna": the second says which camera
            z["name"] = f"{z['name']}@{z['camera']}"
        names.add(z["name"])
        if z["camera"] not in cams:
            raise BadZones(f"zone {z['name']!r} is on camera {z['camera']!r}, which is not open", field="zones")
        if z.get("player") is not None and z["player"] not in players:
            raise BadZones(f"zone {z['name']!r} is the seat of {z['player']!r}, who is not playing", field="zones")
    if zones:
        TableZones.from_list(zones)
    calibration = None
    if body.calibration:
        calib = TableCalibration.from_dict(body.calibration)
        strangers = [s.name for s in calib.seats if s.name not in players]
        if strangers:
            raise CalibrationError(f"a seat for {strangers[0]!r}, who is not playing", field="calibration")
        missing = [s.camera for s in calib.seats if s.camera not in cams]
        if missing:
            raise CalibrationError(f"a seat on camera {missing[0]!r}, which is not open", field="calibration")
        calibration = calib.to_dict()
    manifest: dict[str, Any] = {
        "game": game,
        "setup": setup,
        "cameras": cams,
        "zones": zones,
        "calibration": calibration,
        "options": {"deck": _card_deck(game, setup)},
    }
    if zones:
        TableConfig.from_manifest(manifest)  # what `referee live --table` will do with it
    return manifest


def save_with_log(manifest: Mapping[str, Any], started: Any) -> tuple[str | None, dict[str, Any] | None]:
    """The table beside the session log the hub started (`<log>.table.json`: what
    `referee live --table` reads), when the hub named a log and saved no table of its own (no
    `table` file, no session `folder`, whose session.json holds the table): its
    path, or the `TableNotSaved` error (the table has started all the same: its log is the state)."""
    if not isinstance(started, Mapping) or not isinstance(started.get("log"), str):
        return None, None
    if started.get("table") or started.get("folder"):  # saved already: a session folder keeps its session.json
        return None, None
    path = Path(started["log"]).with_suffix(".table.json")
    try:
        path.write_text(json.dumps(jsonable(manifest), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        err = TableNotSaved(f"the table file could not be written beside the log: {exc.strerror or exc}")
        return None, {"name": err.name, "message": err.message, "field": None}
    return str(path), None


def _tells_signal(value: Any, setup: Mapping[str, Any]) -> bool:
    text = json.dumps(jsonable(value))
    return any(f'"{s}"' in text for s in (setup.get("signals") or {}).values() if s != FREE_SIGNAL)


@router.post("/api/setup/table")
def post_table(body: TableIn, request: Request) -> JSONResponse:
    """Create the table: signals drawn, zones checked, handed to the hub. The answer is the
    public summary: never a signal."""
    manifest = create_table(body, cameras_of(request))
    request.app.state.setup_table = manifest
    started: Any = None
    start = getattr(request.app.state, "start_table", None)
    if callable(start):
        started = start(manifest)
    table_file, not_saved = save_with_log(manifest, started)
    state = get_engine(manifest["game"]).new_game(manifest["setup"])
    summary = public_summary(manifest["game"], manifest["setup"], state)
    summary.update(
        created=True,
        cameras=sorted(manifest["cameras"]),
        zones=len(manifest["zones"]),
        seats_watched=len((manifest["calibration"] or {}).get("seats", [])),
        started=started if isinstance(started, Mapping) and not _tells_signal(started, manifest["setup"]) else None,
        table_file=table_file,
        table_file_error=not_saved,
    )
    return JSONResponse(jsonable(summary), status_code=201)
