"""`play --script` files: every bad file is a named `BadScript` (exit 2 through the CLI), never
a traceback or a hang; the loader is fuzzed with Hypothesis."""

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablereferee.cli import cli
from tablereferee.scripts import MAX_SETUP_BYTES, BadScript, load_script, parse_setup

BOMB = """\
---
players: Ann,Bob,Cid,Dee
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
---
show
"""


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    """Nine lines of aliases expand to 387 million strings: it used to grow past 1 GB and never end."""
    path = tmp_path / "bomb.beccato"
    path.write_text(BOMB)
    with pytest.raises(BadScript, match="line 3: YAML anchors and aliases are not allowed"):
        load_script(path)
    with pytest.raises(BadScript, match="alias"):
        parse_setup("players: [Ann, Bob]\nagain: *x\n")


def test_a_script_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.toy"
    path.write_bytes("---\nplayers: [Ann, Bob]\n---\nAnn 2\nnote caff\xe8\n".encode("latin-1"))
    with pytest.raises(BadScript, match=r"not UTF-8 text \(line 5"):
        load_script(path)


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path):
    path = tmp_path / "windows.toy"
    path.write_bytes(b"\xef\xbb\xbf---\r\nplayers: [Ann, Bob]\r\n---\r\nAnn 2\r\n")
    assert load_script(path) == ({"players": ["Ann", "Bob"]}, [(4, "Ann 2")])


@pytest.mark.parametrize(
    "block, fragment",
    [
        ("players: [Ann, Bob]\nwhen: !!binary aGVsbG8=", "binary data at when"),
        ("players: !!set {Ann, Bob}", "a set at players"),
        ("players: [Ann, Bob]\noptions: {target: .nan}", "nan is not a number"),
        ("players: [Ann, Bob]\n1: one", "the key 1 must be text"),
        ("players: [Ann, 3]", "players: write the names"),
        ("players: [Ann, Bob]\nteams: [Ann, Bob]", "teams:"),
        ("players: [Ann, Bob]\noptions: [target]", "options: write"),
        ("players: [Ann, Bob]\nseed: lots", "seed: write a whole number"),
        ("players: [Ann, Bob]\nvariant: 3", "variant:"),
        ("- Ann\n- Bob", "must be a mapping"),
        ("players: [Ann, Bob\n", "not YAML: line"),
        ("x: " + "[" * 200 + "]" * 200, "nested more than"),
        ("x: " + "[" * 20000 + "]" * 20000, "cannot be read|nested|not YAML"),
        ("x: " + "9" * 5000, "cannot be read"),
        ("x: '" + "y" * MAX_SETUP_BYTES + "'", "over 64 KiB"),
    ],
)
def test_a_bad_setup_block_is_named(block, fragment):
    with pytest.raises(BadScript, match=fragment):
        parse_setup(block)


def test_dates_stay_text_and_the_setup_is_json():
    setup = parse_setup("players: Ann,Bob\noptions: {start: 2024-05-01, target: 6}")
    assert setup["options"]["start"] == "2024-05-01"
    json.dumps(setup, allow_nan=False)


def test_a_setup_block_never_closed_is_named(tmp_path):
    path = tmp_path / "open.toy"
    path.write_text("# comment\n---\nplayers: [Ann, Bob]\nAnn 2\n")
    with pytest.raises(BadScript, match="opened on line 2 is never closed"):
        load_script(path)


YAML_TEXT = st.text(
    alphabet=st.sampled_from(list("abAB019 \t\n-:,[]{}&*!|>'\"#%@`?.~\\") + ["\u00e8", "\x00", "\ufeff", "\r"]),
    max_size=120,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(YAML_TEXT)
def test_any_setup_text_is_a_json_mapping_or_a_named_error(text):
    try:
        setup = parse_setup(text)
    except BadScript:
        return
    assert isinstance(setup, dict)
    json.dumps(setup, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.booleans())
def test_any_bytes_as_a_script_are_read_or_named(tmp_path_factory, data, with_block):
    path = tmp_path_factory.mktemp("s") / "x.toy"
    path.write_bytes((b"---\n" if with_block else b"") + data)
    try:
        setup, commands = load_script(path)
    except BadScript:
        return
    assert isinstance(setup, dict) and all(isinstance(n, int) and isinstance(t, str) for n, t in commands)


def _play(tmp_path, script: bytes):
    path = tmp_path / "game.toy"
    path.write_bytes(script)
    return CliRunner().invoke(
        cli,
        ["play", "beccato", "--script", str(path), "--log", str(tmp_path / "g.db"), "--quiet"],
        catch_exceptions=False,
    )


@pytest.mark.parametrize(
    "script, fragment",
    [
        (BOMB.encode(), "error: BadScript: "),
        (b"---\nplayers: [Ann, Bob]\n---\nnote caff\xe8\n", "not UTF-8 text (line 4"),
        (b"---\nplayers: [Ann, Bob\n---\n", "not YAML"),
    ],
)
def test_play_ends_a_bad_script_with_exit_2_and_no_log(tmp_path, script, fragment):
    result = _play(tmp_path, script)
    assert result.exit_code == 2 and fragment in result.stderr, result.output
    assert "Traceback" not in result.output and not (tmp_path / "g.db").exists()


SETUP_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 100) | st.text(alphabet="abAB ,=;", max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["target", "variant", "cap", "x", "Red", "Blue"]), inner, max_size=3)
    ),
    max_leaves=8,
)
SETUP_KEYS = ["teams", "options", "variant", "seed", "deals", "eggs", "signals", "guilds", "breeds", "dealer"]
LINES = ["show", "undo", "help", "history", "amend 1", "note x", "egg star-3", "Ann plays 3S", "caught Ann Bob"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["beccato", "beccaccino", "bestia"]),
    st.lists(st.sampled_from(["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]), max_size=7),
    st.dictionaries(st.sampled_from(SETUP_KEYS), SETUP_VALUE, max_size=3),
    st.lists(st.sampled_from(LINES), max_size=3),
)
def test_any_setup_block_through_play_is_a_game_or_a_named_refusal(tmp_path_factory, game, players, extra, lines):
    folder = tmp_path_factory.mktemp("p")
    script = folder / "game.txt"
    script.write_text("---\n" + json.dumps({"players": players, **extra}) + "\n---\n" + "\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["play", game, "--script", str(script), "--log", str(folder / "g.db"), "--quiet"])
    assert isinstance(result.exception, SystemExit | None), result.exception
    assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output
