"""The contract every rules engine follows.

A rules engine is pure and deterministic: no I/O, no clock, no hidden randomness. Time and
randomness come in as inputs (a seed or an explicit deal in the setup, observed cards as
actions of the chance player).

* An `Engine` makes states from a JSON-able *setup* (players, teams, table options, seed or deal).
* A state answers, for every action, `verify(action)` (raises a named `Violation` and leaves the
  state untouched), `can(action)` (bool) and `apply(action)` (verifies, applies, and returns the
  `Event`s the referee announces).
* Actions are frozen dataclasses with a class-level `kind`; `ActionCodec` turns them into JSON
  dicts and back, so the session log can store and replay them.
* `view(viewer)` is what one seat (or the public, `None`) may see; `snapshot()` is the whole
  state as JSON, used by `referee check --json` and by replay tests.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def jsonable(value: Any) -> Any:
    """Turn dataclasses, enums, tuples and sets into plain JSON values."""
    kind = type(value)  # the exact types first: they are nearly all a log holds
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:
        return {str(k): jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(jsonable(v) for v in value)
    return value


class RefereeError(Exception):
    """Base of every error the referee reports by name."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    @property
    def name(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.name, "message": self.message, **jsonable(self.details)}

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


class Violation(RefereeError):
    """An action the rules forbid. Subclasses name the rule broken; the state is left untouched."""


class MalformedAction(Violation):
    """An action dict that names no known action or lacks or mistypes a field."""


class GameAlreadyOver(Violation):
    """No action is legal once the game has ended."""


class UnknownGame(RefereeError):
    """A game name no engine answers to."""


_NONE_WORDS = ("none", "null", "auto", "")
_TRUE_WORDS = ("true", "yes", "on", "1", "si", "sì")
_FALSE_WORDS = ("false", "no", "off", "0")
_NOTHING: Any = object()  # no value read yet


@dataclasses.dataclass(frozen=True)
class TableOption:
    """A table option as an engine declares it: its default, the type of its value (bool, int or
    str), whether None is allowed (off, or automatic), and the values it may take. A value typed
    at the command line may arrive as a string ("yes", "3", "none") and is read as that type."""

    default: Any
    kind: type
    nullable: bool = False
    choices: tuple[Any, ...] = ()
    doc: str = ""
    what: str = ""  # the expected value in words, where the type alone says too little

    def expected(self) -> str:
        what = self.what or {bool: "true or false", int: "a whole number", str: "a word"}[self.kind]
        if self.choices:
            what = "one of " + ", ".join(str(c) for c in self.choices)
        return what + (" or none" if self.nullable else "")

    def read(self, name: str, value: Any, error: type[RefereeError]) -> Any:
        """`value` as this option's type, or `error` naming the option and the expected type."""
        word = value.strip().lower() if isinstance(value, str) else None
        out: Any = _NOTHING
        if value is None or (word in _NONE_WORDS and self.kind is not str):
            out = None if self.nullable else _NOTHING
        elif self.kind is bool:
            if isinstance(value, bool):
                out = value
            elif word in _TRUE_WORDS or word in _FALSE_WORDS:
                out = word in _TRUE_WORDS
        elif self.kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                out = value
            elif isinstance(value, float) and value.is_integer():
                out = int(value)
            elif word is not None and word.lstrip("+-").isdigit():
                out = int(word)
        elif isinstance(value, str):
            out = value.strip()
        if out is _NOTHING or (self.choices and out is not None and out not in self.choices):
            raise error(
                f"option {name}={value!r}: expected {self.expected()}",
                option=name,
                value=value,
                expected=self.expected(),
            )
        return out


def read_table_options(
    given: Any,
    declared: Mapping[str, TableOption],
    bad: type[RefereeError],
    unknown: type[RefereeError],
) -> dict[str, Any]:
    """Every declared option: its default, or the given value read as its type. An unknown name
    is `unknown`, a value of the wrong type (or not among its choices) is `bad`, both naming the
    option."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise bad("the table options are an object: {name: value}", value=given)
    extra = sorted(str(k) for k in given if k not in declared)
    if extra:
        raise unknown(f"unknown table options {extra}", option=extra[0], known=sorted(declared))
    return {
        name: spec.read(name, given[name], bad) if name in given else spec.default for name, spec in declared.items()
    }


@dataclasses.dataclass(frozen=True)
class Event:
    """Something the referee announces after an action: `kind` plus JSON-able data."""

    kind: str
    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        # An event is a record of a moment: copy the data so later state changes never show
        # through lists or dicts the engine still holds.
        object.__setattr__(self, "data", jsonable(self.data))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}


class Action:
    """Base of the action dataclasses. Subclasses are `@dataclass(frozen=True)` with a `kind`."""

    kind: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **jsonable(self)}


class ActionCodec:
    """Maps action kinds to classes, and JSON dicts to actions, with named errors."""

    def __init__(self, classes: Iterable[type[Action]]) -> None:
        self.classes: dict[str, type[Action]] = {}
        self._fields: dict[str, frozenset[str]] = {}
        for cls in classes:
            if cls.kind in self.classes:
                raise ValueError(f"two actions share the kind {cls.kind!r}")
            self.classes[cls.kind] = cls
            self._fields[cls.kind] = frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    def to_dict(self, action: Action) -> dict[str, Any]:
        return action.to_dict()

    def from_dict(self, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping) or "kind" not in data:
            raise MalformedAction("an action is an object with a 'kind'", action=data)
        cls = self.classes.get(data["kind"])
        if cls is None:
            raise MalformedAction(f"unknown action kind {data['kind']!r}", known=sorted(self.classes))
        extra = set(data) - self._fields[cls.kind] - {"kind"}
        if extra:
            raise MalformedAction(f"{cls.kind}: unknown fields {sorted(extra)}", action=dict(data))
        try:
            return cls(**{k: _untuple(v) for k, v in data.items() if k != "kind"})
        except TypeError as exc:
            raise MalformedAction(f"{cls.kind}: {exc}", action=dict(data)) from None


def _untuple(value: Any) -> Any:
    # JSON gives lists; frozen dataclasses hold tuples so they stay hashable.
    if isinstance(value, list):
        return tuple(_untuple(v) for v in value)
    return value


@runtime_checkable
class GameState(Protocol):
    """What every engine's state offers (python-chess's Board, OpenSpiel's State, PokerKit's verbs)."""

    @property
    def is_over(self) -> bool: ...

    def verify(self, action: Action) -> None:
        """Raise the named `Violation` that forbids `action`; return None when it is legal."""

    def can(self, action: Action) -> bool: ...

    def apply(self, action: Action) -> list[Event]:
        """Verify, then apply `action`; return the events. On a violation nothing changes."""

    def legal_actions(self) -> list[Action]:
        """Every legal action, where the state knows enough to enumerate them."""

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """What `viewer` (a player name, or None for the public) may see, as JSON."""

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON; two states that replay the same log snapshot equal."""


@runtime_checkable
class TableState(GameState, Protocol):
    """What the live table (`referee.table`) asks of a game's state beyond the `GameState` verbs.

    Every engine's state offers it, so the fusion of observations into actions never probes a
    state for attributes. A game without tricks (Beccato!) answers `to_play` None and `leading`
    False."""

    def waiting_for(self) -> dict[str, Any]:
        """What the referee expects next, as {"step": ..., ...}: for example {"step": "draw"},
        {"step": "reveal", "players": [...]}, {"step": "play", "player": "Anna", "trick": 3},
        {"step": "over"}. The table reads "step", a reveal's "players" and a draw's "to", "breed"
        and "team"."""

    @property
    def to_play(self) -> str | None:
        """The player whose turn it is to play a card (a card newly laid in the trick zone is
        theirs); None when nobody is: before the first trick, after the game, or in a game
        without tricks."""

    @property
    def leading(self) -> bool:
        """Whether the next card played opens a trick (none lies in the current one): a lead
        can carry an announcement. Read only while `to_play` is not None."""

    def standings(self) -> dict[str, Any]:
        """Each team's (or player's) score so far, as JSON, for summaries and screens."""


class StateBase:
    """What every state shares: `can` is `verify` that answers with a bool."""

    def verify(self, action: Action) -> None:
        raise NotImplementedError

    def can(self, action: Action) -> bool:
        try:
            self.verify(action)
        except Violation:
            return False
        return True


class Engine(Protocol):
    """A game: makes states from a setup and decodes actions."""

    name: str
    version: str
    codec: ActionCodec

    def new_game(self, setup: Mapping[str, Any]) -> GameState:
        """A state from a JSON-able setup: {"players": [...in seat order], "teams": {...},
        "options": {name: value}, "seed": int | None, ...}. Bad setups raise a named error."""

    # The scorekeeper (`referee play GAME`) talks to every engine through these three.
    def parse_command(self, state: GameState, text: str) -> Action:
        """One typed scorekeeper line ("coccode Nicola", "play Anna 3D") as an action;
        raises MalformedAction with a hint when the line means nothing."""

    def render(self, state: GameState) -> str:
        """The table as text for the scorekeeper, shown after every step."""

    def command_help(self) -> str:
        """The scorekeeper's commands for this game, one per line."""


@runtime_checkable
class TableEngine(Engine, Protocol):
    """What the live table asks of an engine: its states are `TableState`s, and it names the
    announcements a lead can carry (Beccaccino's "busso", "volo", "striscio", the values of its
    play action's `call`). Empty where a play carries none: there a knock, a slide or a toss
    stays evidence and never becomes an announcement."""

    lead_calls: tuple[str, ...]

    def new_game(self, setup: Mapping[str, Any]) -> TableState: ...


# Engines register by name; each lives in its own module, imported on first use.
ENGINE_MODULES: dict[str, str] = {
    "beccato": "referee.beccato",
    "beccaccino": "referee.beccaccino",
    "bestia": "referee.bestia",
}


def get_engine(name: str) -> Engine:
    """The engine for a game name (each engine module defines `ENGINE`)."""
    key = name.strip().lower()
    module_name = ENGINE_MODULES.get(key)
    if module_name is None:
        raise UnknownGame(f"no game called {name!r}", known=sorted(ENGINE_MODULES))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownGame(f"the {key} engine is not installed", known=sorted(ENGINE_MODULES)) from None
    engine: Engine = module.ENGINE
    return engine


def table_engine(engine: Engine) -> TableEngine:
    """`engine` as the live table needs it; an engine that lacks the table's contract (its
    `lead_calls`) raises UnknownGame, before any observation is judged."""
    if not isinstance(engine, TableEngine):
        raise UnknownGame(f"the {engine.name} engine cannot referee a live table (no lead_calls)", game=engine.name)
    return engine


def get_table_engine(name: str) -> TableEngine:
    """The engine for a game name, as the live table needs it (see `table_engine`)."""
    return table_engine(get_engine(name))
