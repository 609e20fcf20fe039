"""No secret in any output another player can see (docs/secrets.md).

Each game is played with its secrets: Beccato! with team signals (changed during the game),
a seed (every hand and the egg order known) and cards passed by name; Bestia (5-card Italian)
and Beccaccino with a seed (every hand known) and, in Bestia, named discards. Every output a
player can see is rendered: the scorekeeper's screen after each step, `show`, `history`,
`check` (text and --json), `export`, `check` of the export, a dispute package, the live
table's messages. None may hold a signal, a hand, the seed or the egg order; `--view` shows a
named viewer what is theirs, and only that.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core import get_engine
from referee.scorekeeper import Scorekeeper
from referee.secrecy import (
    EVERYTHING,
    PUBLIC,
    UnknownViewer,
    describe_action,
    public_contents,
    resolve_viewer,
    state_json,
)
from referee.sessionlog import EXIT_OK, EXIT_USAGE, EXIT_VIOLATION, SessionLog, read_log, replay
from tablereferee.cli import cli
from tablereferee.commands.demo import shown_action
from tablereferee.commands.play import show_outcome

SEED = 424242  # no output but the referee's own may name it
SIGNALS = {"Reds": "wink_left", "Blues": "touch_nose_left"}
NEW_SIGNALS = {"Reds": "tap_table_right", "Blues": "hum"}  # taken by a Signal Change
SEATS = ["Nicola", "Simona", "Claudia", "Federico"]
TEAMS = {"Reds": ["Nicola", "Claudia"], "Blues": ["Simona", "Federico"]}
BESTIA = ["Anna", "Ben", "Carla", "Dan"]
BECCACCINO_TEAMS = {"NS": ["Anna", "Carla"], "EW": ["Ben", "Dan"]}

SETUPS: dict[str, dict[str, Any]] = {
    "beccato": {
        "players": SEATS,
        "teams": TEAMS,
        "signals": SIGNALS,
        "options": {"signal_change": True},
        "seed": SEED,
    },
    "bestia": {"players": BESTIA, "options": {"variant": "italian", "deals_to_play": 1}, "seed": SEED},
    "beccaccino": {"players": BESTIA, "teams": BECCACCINO_TEAMS, "seed": SEED},
}


def run(*args: Any, input: str | None = None) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


# -- playing a game with secrets -------------------------------------------------------------


def _choose(game: str, state: Any, rng: random.Random, changed: set[str]) -> Any:
    """A legal action, leaning to the ones that carry a secret (a named pass, a Signal
    Change naming its new signal, an exchange naming its discards)."""
    from referee.beccato import actions as BA

    if game == "beccato":
        if state.is_chance_node:
            outcomes = state.chance_outcomes()
            return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        legal = state.legal_actions()
        signal = [a for a in legal if isinstance(a, BA.ChangeSignal) and a.team not in changed]
        if signal:
            changed.add(signal[0].team)
            return BA.ChangeSignal(signal[0].team, signal[0].egg, NEW_SIGNALS[signal[0].team])
        calls = [a for a in legal if a.kind in ("coccode", "caught", "chicchirichi")]
        others = [a for a in legal if a not in calls and not isinstance(a, BA.ChangeSignal)]
        return rng.choice(calls) if calls and (not others or rng.random() < 0.2) else rng.choice(others or legal)
    legal = state.legal_actions()
    named = [a for a in legal if a.kind == "gioco" and a.discards]
    return rng.choice(named) if named else rng.choice(legal)


def play_game(game: str, log: Path, steps: int = 400) -> tuple[Scorekeeper, list[str]]:
    """Play `game` through the scorekeeper as `referee play` shows it; return the keeper
    (closed) and every screen printed (the line for each step and the table after it)."""
    engine = get_engine(game)
    keeper = Scorekeeper.start(engine, SETUPS[game], log, time=0.0)
    rng = random.Random(7)
    changed: set[str] = set()
    screen = io.StringIO()
    with contextlib.redirect_stdout(screen):
        show_outcome(keeper.submit("show", time=0.0), keeper, where="", quiet=False)
        for step in range(steps):
            if keeper.state.is_over:
                break
            action = _choose(game, keeper.state, rng, changed)
            text = describe_action(engine.codec.to_dict(action))  # what a scorekeeper types
            show_outcome(
                keeper.act(action, time=float(step), source="script", text=text), keeper, where="", quiet=False
            )
            if step % 25 == 0:
                show_outcome(keeper.submit("history", time=float(step)), keeper, where="", quiet=False)
        show_outcome(keeper.submit("history", time=float(steps)), keeper, where="", quiet=False)
    keeper.close()
    if game == "beccato":
        assert changed, "the game must include a Signal Change"
    return keeper, [screen.getvalue()]


# -- what must never show ---------------------------------------------------------------------


def secrets_of(game: str, log: Path) -> list[str]:
    """Strings only the referee's record may hold: the seed, every team signal."""
    out = [str(SEED)]
    if game == "beccato":
        out += list(SIGNALS.values()) + list(NEW_SIGNALS.values())
    return out


def assert_public_json(value: Any, where: str) -> None:
    """No hand, stock, egg order, seed, deal, signal or face-down card anywhere in `value`."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "hands":
                assert not item or all(not v for v in item.values()), f"{where}: hands {item}"
            if key == "seed":
                assert item is None, f"{where}: the seed {item}"
            if key in ("deals", "eggs", "stock", "buco", "thrown", "aside") and isinstance(item, (list, dict)):
                assert not item, f"{where}: {key} {item}"
            if key == "hand" and isinstance(item, list):
                assert not item, f"{where}: a hand {item}"
            if key == "deck" and isinstance(item, list):
                raise AssertionError(f"{where}: the egg deck's order {item}")
            if key == "signals":
                assert all(v in (None, "hidden") for v in item.values()), f"{where}: signals {item}"
            if value.get("kind") in ("pass", "passed", "draw_from_pile") and key == "card":
                assert item is None, f"{where}: a card passed face down {value}"
            if value.get("kind") == "change_signal" and key == "signal":
                assert item is None, f"{where}: a new signal {value}"
            if value.get("kind") in ("gioco",) and key == "discards":
                assert not item, f"{where}: discards {value}"
            if value.get("kind") == "rob" and key == "discard":
                assert item is None, f"{where}: a discard {value}"
            assert_public_json(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            assert_public_json(item, f"{where}[{i}]")


def assert_public_text(text: str, game: str, log: Path, where: str) -> None:
    for secret in secrets_of(game, log):
        assert secret not in text, f"{where} shows {secret!r}"
    assert " holds: " not in text and "known to hold" not in text, f"{where} shows a hand"


# -- the tests --------------------------------------------------------------------------------


@pytest.fixture(params=sorted(SETUPS))
def played(request: Any, tmp_path: Path) -> tuple[str, Path, list[str]]:
    game = request.param
    log = tmp_path / f"{game}.db"
    _, screens = play_game(game, log)
    return game, log, screens


def test_no_output_a_player_sees_holds_a_secret(played: tuple[str, Path, list[str]], tmp_path: Path) -> None:
    game, log, screens = played
    contents = read_log(log)
    # the log itself is the referee's record: it keeps every secret, for replay
    assert contents.header.setup["seed"] == SEED
    assert replay(contents).legal
    # the scorekeeper's screen: every step's line and table, show, history
    for screen in screens:
        assert_public_text(screen, game, log, "the scorekeeper's screen")
    assert "hidden" in screens[0] or game == "beccaccino"  # a secret was there to hide
    # check, text and JSON
    checked = run("check", log)
    assert checked.exit_code == EXIT_OK, checked.output
    assert_public_text(checked.output, game, log, "check")
    report = run("check", log, "--json")
    assert report.exit_code == EXIT_OK
    assert_public_text(report.output, game, log, "check --json")
    assert_public_json(json.loads(report.output), "check --json")
    # the export, and check of the export
    shared = tmp_path / "shared.jsonl"
    exported = run("export", log, shared)
    assert exported.exit_code == EXIT_OK, exported.output
    text = shared.read_text(encoding="utf-8")
    assert_public_text(text, game, log, "export")
    for number, line in enumerate(text.splitlines()):
        assert_public_json(json.loads(line), f"export line {number + 1}")
    assert json.loads(text.splitlines()[0])["view"] == "public"
    to_stdout = run("export", log, "-")
    assert_public_text(to_stdout.output, game, log, "export -")
    again = run("check", shared)
    assert_public_text(again.output, game, log, "check of the export")
    assert "leaving out" in again.output
    assert read_log(shared).entries and len(read_log(shared).entries) == len(contents.entries)
    if game != "bestia":  # the public record is enough to replay these (docs/secrets.md)
        assert again.exit_code == EXIT_OK, again.output
        assert "replayed as the public record" in again.output
    else:  # a seeded Bestia's deal and trump card came from the seed the copy leaves out
        assert again.exit_code == EXIT_VIOLATION
        assert "entry 1 may need what it leaves out" in again.output


def test_the_seeded_bestia_screen_no_longer_shows_the_hand_to_play(tmp_path: Path) -> None:
    """`referee play bestia --seed` printed the current player's hand on the shared screen."""
    lines = "show\nknock Anna\npass Ben\nhistory\n"
    args = ["play", "bestia", "--players", ",".join(BESTIA), "--variant", "italian", "--seed", SEED]
    shared = run(*args, "--log", tmp_path / "g.db", input=lines)
    assert shared.exit_code == EXIT_OK, shared.output
    assert " holds: " not in shared.output
    state = replay(read_log(tmp_path / "g.db")).state
    own = run("play", "bestia", "--resume", tmp_path / "g.db", "--view", "Anna", input="show\n")
    hand = " ".join(state.deck.name_of(c, "it") for c in state.holdings.hands["Anna"])
    assert f"Anna holds: {hand}" in own.output
    holds = [line for line in own.output.splitlines() if " holds: " in line]
    assert holds and all(line == f"Anna holds: {hand}" for line in holds)


def test_a_named_view_shows_that_viewer_its_own_secrets_only(tmp_path: Path) -> None:
    log = tmp_path / "beccato.db"
    keeper, _ = play_game("beccato", log, steps=60)
    state = keeper.state
    reds_now = state.signals["Reds"]
    blues_now = state.signals["Blues"]
    # a player: their hand and their team's signal, nobody else's
    nicola = run("check", log, "--view", "nicola")
    assert nicola.exit_code == EXIT_OK, nicola.output
    assert f"signal of Reds: {reds_now}" in nicola.output and str(blues_now) not in nicola.output
    assert "Nicola holds: " in nicola.output and nicola.output.count(" holds: ") == 1
    view = json.loads(run("check", log, "--json", "--view", "Nicola").output)["state"]
    assert view["signals"] == {"Reds": reds_now, "Blues": "hidden"}
    assert list(view["hands"]) == ["Nicola"] and str(SEED) not in json.dumps(view)
    # a team: its signal, no hand
    blues = run("check", log, "--view", "Blues")
    assert f"signal of Blues: {blues_now}" in blues.output and str(reds_now) not in blues.output
    assert " holds: " not in blues.output
    # everything: the referee's full record
    everything = json.loads(run("check", log, "--json", "--view", "all").output)["state"]
    assert everything == json.loads(json.dumps(state.snapshot()))
    # the export for one team keeps that team's signal in the setup, not the other's
    run("export", log, tmp_path / "reds.jsonl", "--view", "Reds")
    header = json.loads((tmp_path / "reds.jsonl").read_text().splitlines()[0])
    assert header["setup"]["signals"] == {"Reds": SIGNALS["Reds"]} and "seed" not in header["setup"]
    assert SIGNALS["Blues"] not in (tmp_path / "reds.jsonl").read_text()
    # the full export is the log, entry for entry, and replays to the same state
    run("export", log, tmp_path / "all.jsonl", "--view", "all")
    full = read_log(tmp_path / "all.jsonl")
    assert full.header.setup == read_log(log).header.setup
    assert [e.checksum for e in full.entries] == [e.checksum for e in read_log(log).entries]
    # a view named after nobody is a usage error that makes nothing
    assert run("check", log, "--view", "Zed").exit_code == EXIT_USAGE
    assert run("export", log, tmp_path / "zed.jsonl", "--view", "Zed").exit_code == EXIT_USAGE
    assert not (tmp_path / "zed.jsonl").exists()
    refused = run("play", "beccato", "--players", ",".join(SEATS), "--log", tmp_path / "z.db", "--view", "Zed")
    assert refused.exit_code == EXIT_USAGE and not (tmp_path / "z.db").exists()
    with pytest.raises(UnknownViewer):
        resolve_viewer("Zed", state)
    assert resolve_viewer(None, state) is PUBLIC and resolve_viewer("ALL", state) is EVERYTHING


def test_history_and_the_step_line_hide_what_was_typed_in_secret(tmp_path: Path) -> None:
    """A card passed face down and a new signal are typed at the shared screen: the line the
    screen echoes names neither."""
    setup = {"players": SEATS, "teams": TEAMS, "signals": SIGNALS, "options": {"signal_change": True}}
    keeper = Scorekeeper.start("beccato", setup, tmp_path / "g.db", time=0.0)
    for line in ["egg star-3", "egg dollar-1", "egg moon-2", "pass Nicola orloff"]:
        outcome = keeper.submit(line, time=1.0)
        assert outcome.accepted, outcome.message
    assert outcome.label == "pass Nicola (card hidden)" and "orloff" not in outcome.message
    assert outcome.to_dict()["label"] == outcome.label
    assert "orloff" not in keeper.history() and "#4 pass Nicola (card hidden)" in keeper.history()
    keeper.show_as("Nicola")
    assert "pass Nicola orloff" in keeper.history()  # the passer saw their own card
    assert "signal of Reds: wink_left" in keeper.table() and "touch_nose_left" not in keeper.table()
    keeper.close()


def test_a_dispute_package_shows_the_public_view(tmp_path: Path) -> None:
    from tablereferee.recording.clip import make_dispute  # OpenCV: only this test needs it
    from tablereferee.recording.folder import SessionFolder

    folder = SessionFolder.create(tmp_path / "session", {"created": 0.0, "game": "beccato", "setup": {}})
    play_game("beccato", folder.log_path, steps=120)
    entries = read_log(folder.log_path).entries
    secret = next(e.seq for e in entries if e.kind == "action" and e.payload["action"]["kind"] == "change_signal")
    passed = next(e.seq for e in entries if e.kind == "action" and e.payload["action"]["kind"] == "pass")
    for target in (secret, passed):
        package = make_dispute(folder.path, target, before=1e6, after=1e6, out=tmp_path / f"entry-{target}")
        out = Path(package["folder"])
        for name in ("excerpt.jsonl", "reasoning.md", "package.json"):
            text = (out / name).read_text(encoding="utf-8")
            assert_public_text(text, "beccato", folder.log_path, f"dispute {name}")
        for line in (out / "excerpt.jsonl").read_text().splitlines():
            assert_public_json(json.loads(line), "excerpt.jsonl")
        assert_public_json(json.loads((out / "package.json").read_text()), "package.json")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(sorted(SETUPS)), seed=st.integers(0, 10**6), steps=st.integers(1, 160))
def test_any_game_s_public_copy_hides_every_secret_and_replays(
    tmp_path_factory: Any, game: str, seed: int, steps: int
) -> None:
    """Whatever was dealt and played: the public table, state and copy of the log hold no
    secret, and a Beccato! or Beccaccino copy replays legally without them (docs/secrets.md)."""
    engine = get_engine(game)
    setup = {**SETUPS[game], "seed": seed}
    keeper = Scorekeeper.start(engine, setup, tmp_path_factory.mktemp("g") / "g.db", time=0.0)
    rng = random.Random(seed)
    changed: set[str] = set()
    for step in range(steps):
        if keeper.state.is_over:
            break
        action = _choose(game, keeper.state, rng, changed)
        keeper.act(action, time=float(step), source="script", text=describe_action(engine.codec.to_dict(action)))
        assert " holds: " not in keeper.table()
    assert_public_json(state_json(engine, keeper.state, PUBLIC), "the public state")
    copy, left_out = public_contents(engine, keeper.contents(), PUBLIC)
    keeper.close()
    assert "seed" in left_out
    assert_public_json(copy.header.to_dict(), "the copy's header")
    for entry in copy.entries:
        assert_public_json(entry.to_dict(), f"entry {entry.seq}")
    if game != "bestia":
        again = replay(copy)
        assert again.legal, (again.violation_entry, again.violation)
        assert again.applied == len(keeper.actions)


def test_a_refused_play_names_the_rule_not_a_hidden_card(tmp_path: Path) -> None:
    """In a seeded (full-knowledge) Bestia with the house rules on leading and trumping, every
    refused card prints the rule and the card tried, never the card the rule required (it
    stays in the violation's details, which only the referee's full view shows)."""
    from referee.bestia.actions import Play

    engine = get_engine("bestia")
    house = {"highest_trump": True, "lead_trump_ace": True, "obbligo_asso_highest": True}
    seen: set[str] = set()
    illegal_log: Path | None = None
    for seed in range(12):
        options = {**SETUPS["bestia"]["options"], **house}
        setup = {"players": BESTIA, "options": options, "seed": seed}
        keeper = Scorekeeper.start(engine, setup, tmp_path / f"g{seed}.db", time=0.0)
        rng = random.Random(seed)
        for step in range(120):
            if keeper.state.is_over:
                break
            legal = keeper.state.legal_actions()
            plays = [a for a in legal if isinstance(a, Play)]
            if plays:
                player = plays[0].player
                hand = list(keeper.state.holdings.hands[player])
                for card in [c for c in hand if c not in {p.card for p in plays}]:
                    screen = io.StringIO()
                    with contextlib.redirect_stdout(screen):
                        outcome = keeper.submit(f"play {player} {card}", time=float(step))
                        show_outcome(outcome, keeper, where="", quiet=False)
                    assert not outcome.accepted and outcome.error is not None
                    shown = screen.getvalue()
                    others = [c for c in hand if c != card and re.search(rf"\b{c}\b", shown)]
                    assert not others, f"{shown!r} names {others} of {player}'s hand"
                    assert "required" not in json.dumps(outcome.to_dict())
                    seen.add(outcome.error.name)
                    if outcome.error.name == "MustPlayHighestTrump" and illegal_log is None:
                        required = outcome.error.details["required"]
                        assert required in hand and required != card
                        illegal_log = tmp_path / "illegal.db"
                        entries = keeper.contents().entries
                        log = SessionLog.create(illegal_log, keeper.contents().header, entries)
                        log.append("action", {"action": {"kind": "play", "player": player, "card": card}}, time=1.0)
                        log.close()
                        hidden = required
            action = rng.choice(legal)
            keeper.act(action, time=float(step), source="script", text=describe_action(engine.codec.to_dict(action)))
        keeper.close()
        if {"MustPlayHighestTrump", "MustLeadTrumpAce", "MustLeadHighestTrump"} <= seen and illegal_log:
            break
    assert {"MustPlayHighestTrump", "MustLeadTrumpAce", "MustLeadHighestTrump"} <= seen, seen
    assert illegal_log is not None
    # check of a log holding the refused play: the public report leaves the required card out
    public = run("check", illegal_log, "--json")
    assert public.exit_code == EXIT_VIOLATION
    report = json.loads(public.output)
    assert report["violation"] == "MustPlayHighestTrump" and "required" not in report["details"]
    assert not re.search(rf"\b{hidden}\b", report["message"])
    text = run("check", illegal_log).output
    assert "MustPlayHighestTrump" in text and not re.search(rf"\b{hidden}\b", text.splitlines()[0])
    full = json.loads(run("check", illegal_log, "--json", "--view", "all").output)
    assert full["details"]["required"] == hidden


def test_clip_shows_the_public_view_unless_view_names_another(tmp_path: Path) -> None:
    """`referee clip --view`: the package for everything shows every new signal, one team's
    only its own, the default none; a view named after nobody writes nothing (exit 2)."""
    from tablereferee.recording.folder import SessionFolder  # NumPy: only this test needs it

    folder = SessionFolder.create(tmp_path / "session", {"created": 0.0, "game": "beccato", "setup": {}})
    play_game("beccato", folder.log_path, steps=120)
    entries = read_log(folder.log_path).entries
    secret = next(e.seq for e in entries if e.kind == "action" and e.payload["action"]["kind"] == "change_signal")

    def package(view: str | None) -> tuple[int, str]:
        out = tmp_path / f"package-{view}"
        args = ["clip", folder.path, "--event", secret, "--before", 1e6, "--after", 1e6, "--no-landmarks"]
        result = run(*args, "--out", out, *(["--view", view] if view else []))
        if not out.exists():
            return result.exit_code, ""
        return result.exit_code, "".join(
            (out / n).read_text() for n in ("excerpt.jsonl", "reasoning.md", "package.json")
        )

    code, public = package(None)
    assert code == 1  # written, but the session recorded no video of the moment
    assert not any(signal in public for signal in NEW_SIGNALS.values())
    _, everything = package("all")
    assert all(signal in everything for signal in NEW_SIGNALS.values())
    _, reds = package("Reds")
    assert NEW_SIGNALS["Reds"] in reds and NEW_SIGNALS["Blues"] not in reds
    code, nobody = package("Zed")
    assert code == EXIT_USAGE and nobody == "" and not (tmp_path / "package-Zed").exists()


def test_the_demo_names_a_missed_action_without_its_secret() -> None:
    """When the demo's game is not the expected one, it lists the missed and extra actions:
    a card passed face down is said hidden there, never named."""
    engine = get_engine("beccato")
    line = shown_action(engine, {"source": "keyboard", "kind": "pass", "player": "Anna", "card": "serama"})
    assert "serama" not in line
    assert line == "pass Anna (card hidden) (from the keyboard)"


# -- the web table (tablereferee.web) -------------------------------------------------------------


def _web_secrets(team: str) -> list[str]:
    from referee.signal_cards import signal_card  # deferred: the web's own section of this file

    signal = WEB_SIGNALS[team]
    return [signal, signal_card(signal).text, signal_card(signal).text.rstrip(".").lower()]


WEB_SIGNALS = {"Reds": "touch_chin_left", "Blues": "cards_middle_upside_down"}


def _leaks(text: str, secrets: list[str]) -> list[str]:
    lowered = text.lower()
    return [s for s in secrets if s.lower() in lowered]


def test_no_public_response_page_or_websocket_message_of_the_web_holds_a_teams_signal(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient  # deferred: the web's own section of this file

    from tablereferee.web import TableHub, create_app  # deferred: the web's own section of this file
    from tablereferee.web.auth import Tokens  # deferred: the web's own section of this file

    setup = {
        "players": ["Anna", "Ben", "Carla", "Dan"],
        "teams": {"Reds": ["Anna", "Carla"], "Blues": ["Ben", "Dan"]},
        "signals": WEB_SIGNALS,
    }
    keeper = Scorekeeper.start("beccato", setup, tmp_path / "web.db", time=1.0)
    hub = TableHub(keeper, tokens=Tokens(code="SECRET", pins={"Reds": "1234", "Blues": "5678"}))
    both = _web_secrets("Reds") + _web_secrets("Blues")
    seen: dict[str, list[str]] = {}  # who -> every text they were answered

    def auth(token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    with TestClient(create_app(hub)) as client:
        scorer = hub.tokens.scorer_token
        anna = client.post("/api/join", json={"code": "SECRET", "player": "Anna"}).json()["token"]
        ben = client.post("/api/join", json={"code": "SECRET", "player": "Ben"}).json()["token"]
        reds = client.post("/api/teams/Reds/unlock", json={"pin": "1234"}, headers=auth(ben)).json()
        assert reds["error"]["name"] == "NotYourTeam"  # Ben plays for the Blues: his phone is not the Reds'
        ben_blues = client.post("/api/teams/Blues/unlock", json={"pin": "5678"}, headers=auth(ben)).json()["token"]
        roles = {"public": None, "scorer": scorer, "Anna without a PIN": anna, "Ben with the Blues' PIN": ben_blues}
        sockets = {who: client.websocket_connect(f"/ws?token={token or ''}") for who, token in roles.items()}
        opened = {who: ws.__enter__() for who, ws in sockets.items()}
        lines = ["egg dollar-1", "egg star-2", "egg moon-3", "coccode Anna", "reveal Carla orloff orloff padovana"]
        for line in lines:
            assert client.post("/api/commands", json={"command": line}, headers=auth(scorer)).status_code == 200
        for _ in range(4):  # on through the call's resolution, by the scorer's own buttons
            me = client.get("/api/me", headers=auth(scorer)).json()
            plain = [b for b in me["buttons"] if not b["choose"]]
            if plain:
                client.post("/api/commands", json={"action": plain[0]["action"]}, headers=auth(scorer))
        client.post("/api/commands", json={"command": "caught Anna Carla"}, headers=auth(anna))  # refused: a teammate
        for who, token in roles.items():
            texts = seen.setdefault(who, [])
            for path in ("/api/table", "/api/me", "/api/cards", "/api/teams/Reds/secret", "/api/health"):
                texts.append(client.get(path, headers=auth(token)).text)
            for page in ("/", "/phone", "/new", "/over", "/join/SECRET", "/api/join.svg", "/openapi.json"):
                texts.append(client.get(page, headers=auth(token)).text)
            while True:  # every message up to the table as it is now (changes close together come as one)
                message = opened[who].receive_json()
                texts.append(json.dumps(message))
                if message["version"] == hub.version:
                    break
        for ws in sockets.values():
            ws.__exit__(None, None, None)
        static = Path(__file__).resolve().parents[1] / "tablereferee" / "web" / "static"
        for f in static.rglob("*"):
            if f.is_file() and f.suffix in (".html", ".js", ".css"):
                seen["public"].append(client.get(f"/static/{f.relative_to(static).as_posix()}").text)
    keeper.close()
    for who in ("public", "scorer", "Anna without a PIN"):
        assert not [_leaks(t, both) for t in seen[who] if _leaks(t, both)], who
    blues_player = seen["Ben with the Blues' PIN"]
    assert not [t for t in blues_player if _leaks(t, _web_secrets("Reds"))]
    assert any(_leaks(t, _web_secrets("Blues")) for t in blues_player)  # the check can fail: his own is there
