"""Hypothesis over the loaders the commands read files with: table calibrations, Free Signals,
zone layouts, enrolled decks, --mouth event files, session logs in JSON lines, and media
headers (random bytes as a picture, a video or a sound). Whatever the file holds, the answer
is the loaded thing or a named `RefereeError`, never another exception."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core import RefereeError
from referee.sessionlog import LogCorrupt, read_log
from tablereferee.cli import cli
from tablereferee.commands.audio import MouthFileError, _load_mouth
from vision.audio import sources
from vision.cards.templates import BrokenDeck, load_deck
from vision.cards.zones import BadLayout, TableLayout
from vision.landmarks.calibration import FORMAT as CALIBRATION_FORMAT
from vision.landmarks.calibration import CalibrationError, TableCalibration
from vision.signals.free import FEATURES, FreeSignal, FreeSignalError
from vision.signals.free import FORMAT as FREE_FORMAT
from vision.video import open_frames

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

KEYS = [
    "format", "seats", "name", "region", "camera", "table_line", "table_polygon", "mirrored",
    "templates", "threshold", "margin", "zones", "polygon", "table_corners", "label", "kind", "file",
    "card_ids", "events", "signal", "player", "start", "end", "confidence", "evidence",
]  # fmt: skip
NUMBER = st.integers(-3, 3) | st.floats(-2, 2) | st.sampled_from([float("nan"), float("inf"), 0.5, 1e308])
JSON = st.recursive(
    st.none() | st.booleans() | NUMBER | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner),
    max_leaves=25,
)
POINT = st.lists(NUMBER, min_size=2, max_size=2)
# documents shaped nearly right, so that the checks past the first get exercised
CALIBRATION = st.fixed_dictionaries(
    {
        "format": st.just(CALIBRATION_FORMAT),
        "seats": st.lists(
            st.fixed_dictionaries(
                {"name": st.text(max_size=4) | NUMBER, "region": st.lists(NUMBER, max_size=5) | JSON},
                optional={"table_line": st.lists(POINT, max_size=3) | JSON, "camera": JSON},
            ),
            max_size=3,
        )
        | JSON,
    },
    optional={"table_polygon": st.lists(POINT, max_size=5) | JSON, "mirrored": JSON},
)
FREE = st.fixed_dictionaries(
    {
        "format": st.just(FREE_FORMAT),
        "name": JSON,
        "threshold": NUMBER | JSON,
        "templates": st.lists(st.lists(st.lists(NUMBER, min_size=FEATURES, max_size=FEATURES), max_size=4), max_size=3)
        | JSON,
    },
    optional={"margin": NUMBER},
)
LAYOUT = st.fixed_dictionaries(
    {
        "zones": st.lists(st.fixed_dictionaries({"name": JSON, "polygon": st.lists(POINT, max_size=5)}), max_size=3)
        | JSON
    },
    optional={"table_corners": st.lists(POINT, min_size=4, max_size=4) | JSON},
)


def _write(tmp_path_factory, doc, raw: bytes = b"") -> Path:
    path = tmp_path_factory.mktemp("f") / "file.json"
    path.write_bytes(raw or json.dumps(doc).encode())
    return path


@FAST
@given(CALIBRATION | JSON, st.binary(max_size=40))
def test_a_calibration_file_loads_or_is_a_calibration_error(tmp_path_factory, doc, raw):
    try:
        calibration = TableCalibration.load(_write(tmp_path_factory, doc, raw if raw[:1] == b"\xff" else b""))
    except CalibrationError:
        return
    for seat in calibration.seats:
        assert isinstance(seat.name, str) and len(seat.region) == 4


@FAST
@given(FREE | JSON, st.binary(max_size=40))
def test_a_free_signal_file_loads_or_is_a_free_signal_error(tmp_path_factory, doc, raw):
    try:
        free = FreeSignal.load(_write(tmp_path_factory, doc, raw if raw[:1] == b"\xff" else b""))
    except FreeSignalError:
        return
    assert free.threshold > 0 and all(t.shape[1] == FEATURES and t.shape[0] >= 2 for t in free.templates)


@FAST
@given(LAYOUT | JSON, st.binary(max_size=40))
def test_a_zone_layout_loads_or_is_a_bad_layout(tmp_path_factory, doc, raw):
    try:
        layout = TableLayout.load(_write(tmp_path_factory, doc, raw if raw[:1] == b"\xff" else b""))
    except BadLayout:
        return
    assert layout.zones
    if layout.table_corners is not None:  # a layout with corners maps the table to finite points
        assert all(v == v for v in layout.to_table(layout.table_corners, (100, 100)).ravel())


def test_degenerate_table_corners_are_a_bad_layout():
    zones = [{"name": "a", "polygon": [[0, 0], [1, 0], [1, 1]]}]
    for corners in ([[0, 0]] * 4, [[0, 0], [1, 0], [2, 0], [3, 0]], [[float("nan"), 0], [9, 0], [9, 9], [0, 9]]):
        with pytest.raises(BadLayout, match="table_corners"):
            TableLayout.from_dict({"zones": zones, "table_corners": corners})


TEMPLATE = st.fixed_dictionaries(
    {"label": JSON | st.just("7C"), "file": JSON | st.just("templates/x.png")},
    optional={"kind": st.sampled_from(["face", "back", "side"]) | JSON, "card_ids": JSON},
)


@FAST
@given(st.fixed_dictionaries({"name": JSON, "templates": st.lists(TEMPLATE, max_size=3) | JSON}) | JSON)
def test_an_enrolled_deck_index_loads_or_is_a_broken_deck(tmp_path_factory, doc):
    decks = tmp_path_factory.mktemp("decks")
    (decks / "mine").mkdir()
    (decks / "mine" / "deck.json").write_text(json.dumps(doc))
    with pytest.raises(BrokenDeck):  # no template image exists, so no index can load
        load_deck("mine", decks)


EVENT = st.fixed_dictionaries(
    {"signal": st.just("mouth_moving") | JSON},
    optional={"player": JSON, "start": NUMBER | JSON, "end": NUMBER | JSON, "confidence": NUMBER, "evidence": JSON},
)


@FAST
@given(st.lists(EVENT, max_size=4) | st.fixed_dictionaries({"events": st.lists(EVENT, max_size=3) | JSON}) | JSON)
def test_a_mouth_file_loads_or_is_a_mouth_file_error(tmp_path_factory, doc):
    try:
        events = _load_mouth(str(_write(tmp_path_factory, doc)))
    except MouthFileError:
        return
    assert all(e.start <= e.end and isinstance(e.player, str) for e in events)


HEADERS = [
    b"",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0\x00\x10JFIF",
    b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00",
    b"\x00\x00\x00\x18ftypmp42",
    b"\x1aE\xdf\xa3",
    b"RIFF\x00\x00\x00\x00AVI LIST",
    b"BM",
]
REAL = {
    ".wav": (ROOT / "tests" / "fixtures" / "audio" / "hum.wav").read_bytes()[:3000],
    ".mp4": (ROOT / "tests" / "fixtures" / "audio" / "video_with_audio.mp4").read_bytes()[:6000],
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(HEADERS) | st.sampled_from(sorted(REAL)).map(REAL.get),
    st.integers(0, 6000),
    st.binary(max_size=300),
    st.sampled_from([".png", ".jpg", ".mp4", ".avi", ".wav", ".bin"]),
)
def test_random_bytes_as_media_are_frames_sound_or_a_named_error(tmp_path_factory, head, cut, tail, suffix):
    path = tmp_path_factory.mktemp("m") / f"file{suffix}"
    path.write_bytes(head[:cut] + tail)
    try:
        with open_frames(str(path), max_frames=3) as frames:
            for frame in frames:
                assert frame.image.ndim == 3 and frame.image.size > 0
    except RefereeError:
        pass
    try:
        clip = sources.load(str(path))
    except RefereeError:
        return
    assert clip.duration > 0


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A real game, exported to JSON lines: the first lines are mutated below."""
    folder = tmp_path_factory.mktemp("log")
    runner = CliRunner()
    game = ROOT / "datasets" / "games" / "example.beccato"
    played = runner.invoke(cli, ["play", "beccato", "--script", str(game), "--log", str(folder / "g.db"), "--quiet"])
    assert played.exit_code == 0, played.output
    assert runner.invoke(cli, ["export", str(folder / "g.db"), str(folder / "g.jsonl")]).exit_code == 0
    return (folder / "g.jsonl").read_text().splitlines()[:8]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 7), st.data(), st.booleans())
def test_a_mutated_json_lines_log_is_read_or_named(tmp_path_factory, exported, line, data, unsigned):
    docs = [json.loads(text) for text in exported]
    doc = docs[line]
    doc[data.draw(st.sampled_from(sorted(doc)))] = data.draw(JSON)
    if unsigned:
        for d in docs:
            d.pop("checksum", None)
    path = tmp_path_factory.mktemp("j") / "x.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    try:
        read_log(str(path))
    except RefereeError:
        pass
    result = CliRunner().invoke(cli, ["check", "--json", str(path)])
    assert isinstance(result.exception, SystemExit | None), result.exception
    assert result.exit_code in (0, 1, 3, 4)


def _paths(doc, prefix=()):
    """Every key path into a JSON document (lists: their first three items)."""
    if prefix:
        yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:3]):
            yield from _paths(value, (*prefix, i))


DEMO_TABLE = json.loads((ROOT / "datasets" / "demo" / "session.json").read_text())
TABLE_PATHS = sorted(_paths(DEMO_TABLE), key=str)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TABLE_PATHS), JSON)
def test_a_table_file_with_any_value_anywhere_loads_or_is_named(path, value):
    """The demo's table file (`live --table`) with one value replaced: a table or a named error."""
    from tablereferee.run import TableConfig  # deferred: loads OpenCV through the run loop's stages

    manifest = json.loads(json.dumps(DEMO_TABLE))
    node = manifest
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        config = TableConfig.from_manifest(manifest)
    except RefereeError:
        return
    config.signal_cameras(), config.card_cameras(), config.options()
    assert config.card_fps > 0 and config.landmark_fps > 0 and config.lost_after > 0


@pytest.mark.parametrize("line", [0, 1])
def test_a_nan_in_a_json_lines_log_is_damage_not_a_traceback(tmp_path, exported, line):
    """Python's json reads NaN, but no log can checksum it: read_log raised ValueError."""
    docs = [json.loads(text) for text in exported]
    (docs[0]["setup"] if line == 0 else docs[1]["payload"]["action"])["extra"] = float("nan")
    path = tmp_path / "nan.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    with pytest.raises(LogCorrupt, match="Out of range float"):
        read_log(str(path))
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 4 and result.exception is None or isinstance(result.exception, SystemExit)
