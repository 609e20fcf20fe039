"""Who may see what: the public view by default, one player's or one team's view, or the
referee's full record.

A game holds secrets: a team's signal (Beccato!), the cards in a hand, the order of a deck,
and the seed or the explicit deal a simulated game is dealt from (which gives all of them). The
session log keeps every secret, so that a replay is refereed exactly; everything else a person
sees (the scorekeeper's table, `history`, `check`, an export, a dispute package) goes through
this module and shows the public view unless a `Viewer` is named:

* `PUBLIC` (the default): what the whole table sees;
* a player (`resolve_viewer("Anna", state)`): the public view plus that player's own hand and
  their team's signal;
* a team (`resolve_viewer("Reds", state)`): the public view plus the team's signal (a team
  shares its signal, not its hands);
* `EVERYTHING` (`resolve_viewer("all", state)`): the referee's full record.

An engine says what is secret in its setups, actions and events by offering the methods of
`Discreet`; an engine without them is treated as having no secrets beyond the setup keys in
`SECRET_SETUP_KEYS`. Redacted fields become None (or empty), the value a game at a real table
records for what nobody saw, so a public record still replays where the public knows enough
(docs/secrets.md).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TextIO, runtime_checkable

from referee.core import Engine, GameState, RefereeError, jsonable
from referee.sessionlog import Entry, LogContents, LogHeader, write_jsonl
from referee.sessionlog.records import canonical_json

ALL = "all"
PUBLIC_NAME = "public"

# What a simulated game is dealt from: each gives every hand (and Beccato!'s egg order).
SECRET_SETUP_KEYS = ("seed", "deal", "deals", "eggs")


class UnknownViewer(RefereeError):
    """A view named after nobody at the table (not a player, not a team, not 'all' or 'public')."""


@dataclasses.dataclass(frozen=True)
class Viewer:
    """Whose view: `name` None is the public; `everything` the referee's full record."""

    name: str | None = None
    players: frozenset[str] = frozenset()
    teams: frozenset[str] = frozenset()
    everything: bool = False

    @property
    def is_public(self) -> bool:
        return self.name is None

    @property
    def player(self) -> str | None:
        """The player whose view this is (None for the public, a team, or everything)."""
        return next(iter(self.players)) if len(self.players) == 1 and not self.everything else None

    def sees_player(self, player: str | None) -> bool:
        """Whether this viewer may see what only `player` knows (their hand)."""
        return self.everything or (player is not None and player in self.players)

    def sees_team(self, team: str | None) -> bool:
        """Whether this viewer may see what only `team` knows (its signal)."""
        return self.everything or (team is not None and team in self.teams)

    def describe(self) -> str:
        if self.everything:
            return "the referee's full record"
        if self.name is None:
            return "the public view"
        return f"{self.name}'s view"


PUBLIC = Viewer()
EVERYTHING = Viewer(ALL, everything=True)


def seats(state: GameState) -> tuple[list[str], dict[str, list[str]]]:
    """The players and the teams of a game, as its public view names them."""
    public = state.view(None)
    nested = public.get("table")
    table: Mapping[str, Any] = nested if isinstance(nested, Mapping) else public
    players = [str(p) for p in table.get("players") or public.get("players") or []]
    teams_given = table.get("teams") or public.get("teams") or {}
    teams = (
        {str(t): [str(p) for p in members] for t, members in teams_given.items()}
        if isinstance(teams_given, Mapping)
        else {}
    )
    return players, teams


def resolve_viewer(name: str | None, state: GameState) -> Viewer:
    """The viewer a command-line `--view NAME` names: None or 'public', 'all', a player or a
    team of `state`'s game (case-insensitive); anything else raises UnknownViewer."""
    if name is None or not name.strip() or name.strip().lower() == PUBLIC_NAME:
        return PUBLIC
    text = name.strip()
    if text.lower() == ALL:
        return EVERYTHING
    players, teams = seats(state)
    for player in players:
        if player.casefold() == text.casefold():
            team = next((t for t, members in teams.items() if player in members), None)
            return Viewer(player, frozenset([player]), frozenset([team]) if team else frozenset())
    for team in teams:
        if team.casefold() == text.casefold():
            return Viewer(team, frozenset(), frozenset([team]))
    raise UnknownViewer(
        f"{text!r} is not a player or a team of this game; name one, or 'all' for the referee's full record",
        viewer=text,
        players=players,
        teams=list(teams),
    )


@runtime_checkable
class Discreet(Protocol):
    """What an engine offers to show each viewer only what it may see."""

    def render_for(self, state: GameState, viewer: Viewer) -> str:
        """The table as text, as `viewer` may see it."""

    def view_for(self, state: GameState, viewer: Viewer) -> dict[str, Any]:
        """The state as JSON, as `viewer` may see it."""

    def public_setup(self, setup: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        """The setup without what `viewer` may not see."""

    def public_action(self, action: Mapping[str, Any], viewer: Viewer) -> tuple[dict[str, Any], list[str]]:
        """The action dict as `viewer` may see it, and the names of the fields hidden."""

    def public_event(self, event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
        """An event as `viewer` may see it."""


def trick_view_for(state: GameState, viewer: Viewer) -> dict[str, Any]:
    """A trick game's state for `viewer`: the snapshot for everything, else the state's own
    view (the viewer's hand, if a player's)."""
    return state.snapshot() if viewer.everything else state.view(viewer.player)


def trick_public_setup(setup: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
    """A trick game's setup without its seed or explicit deals (they give every hand)."""
    return dict(setup) if viewer.everything else {k: v for k, v in setup.items() if k not in SECRET_SETUP_KEYS}


# -- what each command shows ------------------------------------------------------------------


def render(engine: Engine, state: GameState, viewer: Viewer = PUBLIC) -> str:
    if isinstance(engine, Discreet):
        return engine.render_for(state, viewer)
    return engine.render(state)


def state_json(engine: Engine, state: GameState, viewer: Viewer = PUBLIC) -> dict[str, Any]:
    if isinstance(engine, Discreet):
        out: dict[str, Any] = jsonable(engine.view_for(state, viewer))
    elif viewer.everything:
        out = jsonable(state.snapshot())
    else:
        out = jsonable(state.view(viewer.player))
    return out


def public_setup(engine: Engine | None, setup: Mapping[str, Any], viewer: Viewer = PUBLIC) -> dict[str, Any]:
    if viewer.everything:
        return dict(setup)
    if engine is not None and isinstance(engine, Discreet):
        return engine.public_setup(setup, viewer)
    return {k: v for k, v in setup.items() if k not in SECRET_SETUP_KEYS and k != "signals"}


def hidden_setup_keys(engine: Engine | None, setup: Mapping[str, Any], viewer: Viewer = PUBLIC) -> list[str]:
    """The setup keys a viewer's copy leaves out or shortens."""
    shown = public_setup(engine, setup, viewer)
    return [k for k in setup if k not in shown or shown[k] != setup[k]]


def public_action(
    engine: Engine | None, action: Mapping[str, Any], viewer: Viewer = PUBLIC
) -> tuple[dict[str, Any], list[str]]:
    if viewer.everything or engine is None or not isinstance(engine, Discreet):
        return dict(action), []
    return engine.public_action(action, viewer)


def public_events(
    engine: Engine | None, events: Sequence[Mapping[str, Any]], viewer: Viewer = PUBLIC
) -> list[dict[str, Any]]:
    if viewer.everything or engine is None or not isinstance(engine, Discreet):
        return [dict(e) for e in events]
    return [engine.public_event(e, viewer) for e in events]


def describe_action(action: Mapping[str, Any], hidden: Sequence[str] = ()) -> str:
    """An action in words a scorekeeper would type: `pass Anna (card hidden)`."""
    words = [str(action.get("kind", "?"))]
    for key, value in action.items():
        if key == "kind" or key in hidden or value is None or value == [] or value == ():
            continue
        if isinstance(value, (list, tuple)):
            words += [str(v) for v in value]
        elif isinstance(value, bool):
            words.append(f"{key}={'yes' if value else 'no'}")
        else:
            words.append(str(value))
    text = " ".join(words)
    return f"{text} ({', '.join(hidden)} hidden)" if hidden else text


def public_entry(engine: Engine | None, entry: Entry, viewer: Viewer = PUBLIC) -> Entry:
    """The entry as `viewer` may see it (its checksum is the stored one: `public_contents`
    chains a shared copy anew). An action's typed text is replaced by a description when a
    field of it is hidden; observations and notes are kept as they are."""
    if viewer.everything:
        return entry
    payload = dict(entry.payload)
    action = entry.action
    if isinstance(action, Mapping):
        shown, hidden = public_action(engine, action, viewer)
        if hidden:
            payload["action"] = shown
            if "text" in payload:
                payload["text"] = describe_action(shown, hidden)
    events = public_events(engine, entry.events, viewer)
    if payload == dict(entry.payload) and events == [dict(e) for e in entry.events]:
        return entry
    return dataclasses.replace(entry, payload=payload, events=events)


HIDDEN_SIGNAL = "hidden"  # a signal seen that was a team's secret, as another viewer sees it


def hidden_signal(entry: Entry, secrets: Mapping[str, set[str]], viewer: Viewer) -> Entry:
    """A signal seen as `viewer` may see it: one that was a team's secret signal keeps who,
    when and how sure, without its name or its measures, unless the viewer is of that team."""
    p = entry.payload
    if entry.kind != "observation" or p.get("type") != "signal" or p.get("signal") not in secrets:
        return entry
    if any(viewer.sees_team(team) for team in secrets[str(p["signal"])]):
        return entry
    kept = {k: p[k] for k in ("type", "player", "start", "end", "confidence", "unsure") if k in p}
    return dataclasses.replace(entry, payload={**kept, "signal": HIDDEN_SIGNAL})


def secret_signals(engine: Engine | None, contents: LogContents) -> dict[str, set[str]]:
    """signal -> the teams it was the secret signal of at any point of the log: the setup's,
    the ones the engine drew from the setup's seed, and each Signal Change's. Whatever names
    one of these (a signal seen, a quiz clip's answer) is that team's to see."""
    out: dict[str, set[str]] = {}

    def add(team: Any, signal: Any) -> None:
        if isinstance(signal, str) and signal and signal != "hidden":
            out.setdefault(signal, set()).add(str(team))

    setup = dict(contents.header.setup or {})
    for team, signal in dict(setup.get("signals") or {}).items():
        add(team, signal)
    if engine is not None:
        try:
            drawn = getattr(engine.new_game(setup), "signals", None) or {}
        except RefereeError:  # a setup the engine no longer takes: what the log says is all there is
            drawn = {}
        for team, signal in dict(drawn).items():
            add(team, signal)
    for e in contents.entries:
        action = e.payload.get("action") if e.kind == "action" else None
        if isinstance(action, Mapping) and action.get("kind") == "change_signal":
            add(action.get("team"), action.get("signal"))
    return out


def public_contents(
    engine: Engine | None, contents: LogContents, viewer: Viewer = PUBLIC
) -> tuple[LogContents, list[str]]:
    """A copy of a log for `viewer` (the header's setup and every entry through `public_entry`,
    the checksum chain computed anew over what is shown), and what was left out: setup keys
    and `"entry N: FIELD"` for each hidden field. With nothing hidden the copy is the log."""
    if viewer.everything:
        return contents, []
    header = contents.header
    setup = public_setup(engine, header.setup, viewer)
    left_out = hidden_setup_keys(engine, header.setup, viewer)
    entries: list[Entry] = []
    changed = bool(left_out)
    secrets = secret_signals(engine, contents)
    for entry in contents.entries:
        shown = hidden_signal(public_entry(engine, entry, viewer), secrets, viewer)
        if shown is not entry:
            changed = True
            action = entry.action
            if isinstance(action, Mapping):
                left_out += [f"entry {entry.seq}: {f}" for f in public_action(engine, action, viewer)[1]]
            if shown.payload.get("signal") == HIDDEN_SIGNAL and entry.payload.get("signal") != HIDDEN_SIGNAL:
                left_out.append(f"entry {entry.seq}: signal")
            if shown.events != entry.events and not any(x.startswith(f"entry {entry.seq}:") for x in left_out):
                left_out.append(f"entry {entry.seq}: events")
        entries.append(shown)
    if not changed:
        return contents, []
    new_header = dataclasses.replace(header, setup=setup)
    previous = new_header.checksum()
    chained: list[Entry] = []
    for entry in entries:
        sealed = entry.sealed(previous)
        chained.append(sealed)
        previous = sealed.checksum
    return dataclasses.replace(contents, header=new_header, entries=chained), left_out


def header_marker(viewer: Viewer, left_out: Sequence[str]) -> dict[str, Any]:
    """The fields a shared copy's header line carries to say whose view it is and what it
    leaves out (readers of the log format ignore them; `referee check` reads them)."""
    return {"view": viewer.name or PUBLIC_NAME, "left_out": list(left_out)}


def header_with_marker(header: LogHeader, viewer: Viewer, left_out: Sequence[str]) -> dict[str, Any]:
    return {**header.to_dict(), **header_marker(viewer, left_out)}


def write_shared_jsonl(contents: LogContents, out: TextIO, viewer: Viewer, left_out: Sequence[str]) -> None:
    """Write a copy made by `public_contents` as a JSON-lines export; when something was left
    out, its header line says whose view it is and what it leaves out (`header_marker`)."""
    buffer = io.StringIO()
    write_jsonl(contents, buffer)
    text = buffer.getvalue()
    if left_out:
        _, _, rest = text.partition("\n")
        text = canonical_json(header_with_marker(contents.header, viewer, left_out)) + "\n" + rest
    out.write(text)


def shared_copy_marker(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """`{"view": ..., "left_out": [...]}` when `path` is a JSON-lines copy made for a viewer
    that leaves secrets out, else None (an SQLite log, the full record, or an unreadable file)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(1 << 20)
        data = json.loads(first.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or "view" not in data:
        return None
    left_out = data.get("left_out")
    return {"view": str(data["view"]), "left_out": [str(x) for x in left_out] if isinstance(left_out, list) else []}
