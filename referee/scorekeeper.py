"""The scorekeeper: a table refereed from typed lines (or web/camera actions), with its log.

`Scorekeeper` is generic over the engine contract (`referee.core`): the game's own commands go
through `engine.parse_command`, and a few generic commands are handled here:

    undo [N]              undo entry N (default: the last action still in effect)
    amend N <command>     replace action entry N with another action
    note TEXT             write a note into the log
    history               the actions in effect, with their entry numbers
    show                  the table again
    help                  the commands
    quit                  stop (the log is already saved)

What it shows (`table`, `history`, an outcome's `label` and `message`) is the view of its
`viewer` (`referee.secrecy`): the public view unless another is named, so a shared screen never
shows a hand, a team's signal or a card passed face down. The log keeps everything.

Every accepted line is written to the session log (its own durable transaction) *before* the
outcome is returned, so whatever the caller prints has already been saved. An illegal line
returns an `Outcome` with the named violation and changes nothing. The CLI (`referee play`) and
a web API are thin layers over `submit` / `act` / `observe`.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

from referee.core import Action, Engine, GameState, RefereeError, Violation, get_engine, jsonable
from referee.secrecy import (
    PUBLIC,
    Viewer,
    describe_action,
    public_action,
    public_entry,
    render,
    resolve_viewer,
)
from referee.sessionlog import (
    AmendmentIllegal,
    CorrectionBreaksLaterEntry,
    Entry,
    LogConflict,
    LogContents,
    LogHeader,
    LogUnreadable,
    LogUnsigned,
    LogUnverified,
    NothingToUndo,
    SessionLog,
    actions_and_undone,
    apply_correction,
    describe_entries,
    mark_unsigned_import,
    mark_unverified_import,
    read_log,
    replay,
    replay_actions,
    signature_status,
)
from referee.sessionlog.signature import DESCRIPTIONS, MISSING, UNVERIFIED
from referee.tricks.policies import HIDDEN_DETAILS
from referee.voice import say_action, say_events

GENERIC_HELP = """\
undo [N]              undo entry N (default: the last action in effect)
amend N <command>     replace action entry N with another command
note TEXT             write a note into the log
history               the actions in effect, with their entry numbers
show                  show the table
help                  this help
quit                  stop (everything accepted is already saved)"""


class ResumeRefused(RefereeError):
    """A log that cannot be continued: its game differs, or replaying it hits a violation."""


@dataclasses.dataclass
class Outcome:
    """What one line (or action) did. `accepted` lines were saved as `entry` before returning.

    `events` are the engine's answer as logged (the referee's record); `message` and `label`
    (the action in words, for the screen) are what the scorekeeper's viewer may see."""

    line: str
    accepted: bool
    command: str  # action, correction, note, observation, show, help, history, quit, blank, rejected
    entry: Entry | None = None
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    error: RefereeError | None = None
    message: str = ""
    quit: bool = False
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "accepted": self.accepted,
            "command": self.command,
            "entry": None if self.entry is None else self.entry.seq,
            "events": self.events,
            "error": None if self.error is None else public_error(self.error),
            "message": self.message,
            "label": self.label,
        }


def public_error(error: RefereeError) -> dict[str, Any]:
    """A refusal as the table may see it: without the details that name a card of a hand."""
    return {k: v for k, v in error.to_dict().items() if k not in ("hand", "hands", *HIDDEN_DETAILS)}


def _engine(game: str | Engine) -> Engine:
    return get_engine(game) if isinstance(game, str) else game


_ATTEMPTS = 8  # appends tried while another process keeps appending to the same log
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[Scorekeeper, _P], _R]) -> Callable[Concatenate[Scorekeeper, _P], _R]:
    """Run a method under the table's lock (a web server may call from several threads)."""

    @functools.wraps(method)
    def wrapper(self: Scorekeeper, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class Scorekeeper:
    """One table: an engine, its current state, and the open session log."""

    def __init__(self, engine: Engine, log: SessionLog, state: GameState, viewer: Viewer = PUBLIC) -> None:
        self._lock = threading.RLock()
        self.engine = engine
        self.log = log
        self.state = state
        self.viewer = viewer  # whose view the screen shows (referee.secrecy): the public by default
        self._actions, self._undone = actions_and_undone(log.entries)

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        game: str | Engine,
        setup: Mapping[str, Any],
        log_path: str | os.PathLike[str],
        *,
        time: float,
    ) -> Scorekeeper:
        """Set up a new table (the engine checks the setup before any file is made)."""
        engine = _engine(game)
        setup = jsonable(dict(setup))
        state = engine.new_game(copy.deepcopy(setup))
        header = LogHeader(game=engine.name, engine_version=engine.version, setup=setup, created=time)
        log = SessionLog.create(log_path, header)
        return cls(engine, log, state)

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        *,
        log_path: str | os.PathLike[str] | None = None,
        engine: Engine | None = None,
        game: str | None = None,
        accept_unsigned: bool = False,
        key: bytes | None = None,
    ) -> Scorekeeper:
        """Continue a log. An SQLite log is appended to in place; a JSON-lines export is
        imported into a new SQLite log at `log_path` first. An export with entries that carry
        no checksum is refused (LogUnsigned), and one whose signature `key` does not verify
        (LogUnverified), unless `accept_unsigned`; the new log then says so in a note."""
        contents = read_log(path)
        if contents.unsigned:
            if not accept_unsigned:
                raise LogUnsigned(
                    f"{path}: {describe_entries(contents.unsigned)} carry no checksum, so nothing shows "
                    "whether they were edited; import it only if you trust it (--accept-unsigned)",
                    entries=contents.unsigned,
                )
            contents = mark_unsigned_import(contents)
        signature = signature_status(contents, key)
        if signature in (UNVERIFIED, MISSING):
            if not accept_unsigned:
                raise LogUnverified(
                    f"{path} is {DESCRIPTIONS[signature]}; import it only if you trust it (--accept-unsigned)",
                    signature=signature,
                )
            contents = mark_unverified_import(contents, signature)
        if game is not None and contents.header.game != _engine(game).name:
            raise ResumeRefused(f"{path} is a game of {contents.header.game}, not {game}", game=contents.header.game)
        result = replay(contents, engine)
        if not result.legal:
            raise ResumeRefused(
                f"entry {result.violation_entry} of {path} is illegal: {result.violation}",
                entry=result.violation_entry,
                violation=result.violation.name if result.violation else None,
            )
        if contents.format == "sqlite":
            log = SessionLog.open(path)
        else:
            if log_path is None:
                raise LogUnreadable("importing a JSON-lines export needs a path for the new log")
            log = SessionLog.create(log_path, contents.header, contents.entries)
        return cls(result.engine, log, result.state)

    def close(self) -> None:
        self.log.close()

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the table still: inside, no other thread's line changes the state or the log
        (a web view reads both at one moment)."""
        with self._lock:
            yield

    # -- reading ----------------------------------------------------------------------------

    @_locked
    def show_as(self, name: str | None) -> Viewer:
        """Show the view of `name` from now on: a player, a team, 'all' (the referee's full
        record) or None / 'public'. An unknown name raises UnknownViewer and changes nothing."""
        self.viewer = resolve_viewer(name, self.state)
        return self.viewer

    @_locked
    def table(self, viewer: Viewer | None = None) -> str:
        """The table as text, as `viewer` (default: the scorekeeper's viewer) may see it."""
        self.sync()
        return render(self.engine, self.state, self.viewer if viewer is None else viewer)

    def help(self) -> str:
        return self.engine.command_help().rstrip() + "\n" + GENERIC_HELP

    @_locked
    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """What one player (or the public, None) may see: the engine's `state.view`."""
        self.sync()
        return self.state.view(viewer)

    @_locked
    def history(self, viewer: Viewer | None = None) -> str:
        """The actions in effect, as `viewer` (default: the scorekeeper's viewer) may see them."""
        self.sync()
        who = self.viewer if viewer is None else viewer
        labels: dict[int, str] = {}
        for entry in (public_entry(self.engine, e, who) for e in self.log.entries):
            if entry.kind == "action":
                labels[entry.seq] = entry.payload.get("text") or say_action(self.engine, entry.payload["action"], who)
            elif entry.kind == "correction" and entry.payload["op"] == "amend":
                text = entry.payload.get("text") or say_action(self.engine, entry.payload["action"], who)
                labels[entry.payload["target"]] = f"{text}  (amended by #{entry.seq})"
        lines = [f"#{seq} {labels[seq]}" for seq in self._actions]
        return "\n".join(lines) if lines else "(no actions in effect)"

    @property
    def actions(self) -> dict[int, Mapping[str, Any]]:
        """The actions in effect: {entry seq: action dict}."""
        return dict(self._actions)

    def contents(self) -> LogContents:
        return self.log.contents()

    # -- typed lines ------------------------------------------------------------------------

    @_locked
    def submit(self, line: str, *, time: float, source: str = "keyboard", confidence: float | None = 1.0) -> Outcome:
        """Handle one typed line. Never raises a RefereeError: a rejected line comes back as an
        Outcome with `error` set and nothing changed."""
        text = line.strip()
        if not text or text.startswith("#"):
            return Outcome(line, True, "blank")
        word, _, rest = text.partition(" ")
        word, rest = word.lower(), rest.strip()
        try:
            if word in ("quit", "exit"):
                return Outcome(line, True, "quit", quit=True)
            if word == "show":
                return Outcome(line, True, "show")
            if word == "help":
                return Outcome(line, True, "help", message=self.help())
            if word == "history":
                return Outcome(line, True, "history", message=self.history())
            if word == "note":
                if not rest:
                    raise _usage("note needs a text: note TEXT")
                return self.note(rest, time=time, source=source)
            if word == "undo":
                target = _entry_number(rest) if rest else None
                return self.undo(target, time=time, source=source, confidence=confidence, line=line)
            if word == "amend":
                number, _, command = rest.partition(" ")
                if not number or not command.strip():
                    raise _usage("amend needs an entry number and a command: amend N <command>")
                action = self.engine.parse_command(self.state, command.strip())
                return self.amend(
                    _entry_number(number),
                    action,
                    time=time,
                    source=source,
                    confidence=confidence,
                    line=line,
                    text=command.strip(),
                )
            action = self.engine.parse_command(self.state, text)
            return self.act(action, time=time, source=source, confidence=confidence, line=line, text=text)
        except RefereeError as error:
            return Outcome(line, False, "rejected", error=error, message=str(error))

    # -- actions and corrections -----------------------------------------------------------

    @_locked
    def act(
        self,
        action: Action | Mapping[str, Any],
        *,
        time: float,
        source: str = "keyboard",
        confidence: float | None = 1.0,
        line: str = "",
        text: str | None = None,
    ) -> Outcome:
        """Apply one action (an Action or its JSON dict), log it, return the outcome. An illegal
        action raises its named Violation and changes nothing."""
        if not isinstance(action, Action):
            action = self.engine.codec.from_dict(action)
        return self._appending(lambda: self._act(action, time, source, confidence, line, text))

    def _act(
        self, action: Action, time: float, source: str, confidence: float | None, line: str, text: str | None
    ) -> Outcome:
        data = self.engine.codec.to_dict(action)
        self.state.verify(action)
        try:
            events = [e.to_dict() for e in self.state.apply(action)]
            payload: dict[str, Any] = {"action": data}
            if text:
                payload["text"] = text
            entry = self.log.append("action", payload, time=time, source=source, confidence=confidence, events=events)
        except (Violation, LogConflict):
            raise  # a Violation changed nothing; after a LogConflict `_appending` rebuilds
        except BaseException:
            # The state may have moved while the log did not: rebuild it from what is saved.
            self._rebuild()
            raise
        self._actions[entry.seq] = data
        return Outcome(
            line or text or "",
            True,
            "action",
            entry=entry,
            events=events,
            message=self._describe(events),
            label=self._label(data, line or text or ""),
        )

    def _appending(self, attempt: Callable[[], Outcome]) -> Outcome:
        """Run `attempt` (check, then append) against the log as it is now: what another process
        appended to the same log is read first, and if it appends in between (LogConflict), its
        entries are read and the attempt checked again."""
        for _ in range(_ATTEMPTS):
            with self.log.writing():  # no other process appends between the read and the append
                self.sync()
                try:
                    return attempt()
                except LogConflict:  # a writer that does not take turns
                    self._rebuild()
        raise LogConflict(f"another process kept appending to {self.log.path}: nothing was saved, try again")

    @_locked
    def sync(self) -> list[Entry]:
        """Read the entries another process appended to this log (a terminal scorekeeper beside
        the web server, on one table) and bring the state up to them; returns those entries."""
        new = self.log.refresh()
        if new:
            self._rebuild()
        return new

    def _describe(self, events: Sequence[Mapping[str, Any]]) -> str:
        """Events in words, as the scorekeeper's viewer may see them (the voice filters them)."""
        return " ".join(say_events(self.engine, events, self.viewer, state=self.state))

    def _label(self, action: Mapping[str, Any], typed: str) -> str:
        """The typed line, or the action in words when the line names what the viewer may not see."""
        shown, hidden = public_action(self.engine, action, self.viewer)
        return describe_action(shown, hidden) if hidden else typed.strip()

    @_locked
    def undo(
        self,
        target: int | None = None,
        *,
        time: float,
        source: str = "keyboard",
        confidence: float | None = 1.0,
        line: str = "",
    ) -> Outcome:
        """Undo action entry `target` (default: the last one in effect)."""
        self.sync()
        if target is None:
            if not self._actions:
                raise NothingToUndo("there is no action to undo")
            target = next(reversed(self._actions))
        payload = {"op": "undo", "target": target}
        return self._appending(lambda: self._correct(payload, time, source, confidence, line))

    @_locked
    def amend(
        self,
        target: int,
        action: Action | Mapping[str, Any],
        *,
        time: float,
        source: str = "keyboard",
        confidence: float | None = 1.0,
        line: str = "",
        text: str | None = None,
    ) -> Outcome:
        """Replace action entry `target` with `action`."""
        if not isinstance(action, Action):
            action = self.engine.codec.from_dict(action)
        payload: dict[str, Any] = {"op": "amend", "target": target, "action": self.engine.codec.to_dict(action)}
        if text:
            payload["text"] = text
        return self._appending(lambda: self._correct(payload, time, source, confidence, line))

    def _correct(
        self, payload: dict[str, Any], time: float, source: str, confidence: float | None, line: str
    ) -> Outcome:
        actions = dict(self._actions)
        undone = set(self._undone)
        target = payload["target"]
        apply_correction(actions, undone, self.log.next_seq, payload)
        state, _, violation, at, replayed = replay_actions(
            self.engine, self.log.header.setup, actions, keep_events=True
        )
        if violation is not None:
            details = {"entry": at, "violation": violation.name, "reason": violation.message}
            if at == target:
                raise AmendmentIllegal(f"the new action for entry {target} is illegal: {violation}", **details)
            raise CorrectionBreaksLaterEntry(
                f"{payload['op']} of entry {target} would make entry {at} illegal: {violation}", **details
            )
        events: list[dict[str, Any]] = [{"kind": "undone" if payload["op"] == "undo" else "amended", "entry": target}]
        for seq, answered in replayed.items():
            if seq >= target:
                events.extend(answered)
        entry = self.log.append("correction", payload, time=time, source=source, confidence=confidence, events=events)
        self.state, self._actions, self._undone = state, actions, undone
        label = line.strip()
        if payload["op"] == "amend":
            shown, hidden = public_action(self.engine, payload["action"], self.viewer)
            label = f"amend {target} {describe_action(shown, hidden)}" if hidden else label
        return Outcome(
            line, True, "correction", entry=entry, events=events, message=self._describe(events), label=label
        )

    # -- what never changes the state -------------------------------------------------------

    @_locked
    def note(self, text: str, *, time: float, source: str = "keyboard") -> Outcome:
        def attempt() -> Outcome:
            entry = self.log.append("note", {"text": text}, time=time, source=source, confidence=None)
            return Outcome(text, True, "note", entry=entry, message=f"note #{entry.seq} saved")

        return self._appending(attempt)

    @_locked
    def observe(
        self,
        observation: Mapping[str, Any],
        *,
        time: float,
        source: str = "camera",
        confidence: float | None = None,
    ) -> Outcome:
        """Log evidence (a card read, a signal seen, an audio event): `{"type": ..., ...}`.
        It never changes the state."""

        def attempt() -> Outcome:
            entry = self.log.append("observation", observation, time=time, source=source, confidence=confidence)
            return Outcome("", True, "observation", entry=entry, message=f"observation #{entry.seq} saved")

        return self._appending(attempt)

    def _rebuild(self) -> None:
        actions, undone = actions_and_undone(self.log.entries)
        state, _, violation, _, _ = replay_actions(self.engine, self.log.header.setup, actions)
        if violation is not None:  # the saved log replayed legally before; a bug if not
            raise violation
        self.state, self._actions, self._undone = state, actions, undone


def _entry_number(text: str) -> int:
    text = text.strip().lstrip("#")
    if not text.isdigit():
        raise _usage(f"{text!r} is not an entry number")
    return int(text)


class CommandError(Violation):
    """A generic scorekeeper command typed the wrong way."""


def _usage(message: str) -> CommandError:
    return CommandError(message)
