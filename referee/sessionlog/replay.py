"""Corrections and replay: which actions are in effect, and the game they give.

Replay applies the actions in effect, in entry order, to `engine.new_game(setup)`; a correction
(undo or amend of entry N) changes which actions those are, never the entries themselves.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from referee.core import Action, Engine, GameState, Violation, get_engine
from referee.sessionlog.errors import CorrectionRefused, EntryAlreadyUndone, EventsDiffer, NoSuchEntry
from referee.sessionlog.records import Entry, LogContents, LogHeader


def actions_and_undone(entries: Iterable[Entry]) -> tuple[dict[int, Mapping[str, Any]], set[int]]:
    """The actions in effect after every correction ({action entry seq: action dict}, in seq
    order) and the action entries undone. Raises a CorrectionRefused subclass (with `entry`)
    at the first invalid correction."""
    actions: dict[int, Mapping[str, Any]] = {}
    undone: set[int] = set()
    for entry in entries:
        if entry.kind == "action":
            actions[entry.seq] = entry.payload["action"]
        elif entry.kind == "correction":
            apply_correction(actions, undone, entry.seq, entry.payload)
    return actions, undone


def effective_actions(entries: Iterable[Entry]) -> dict[int, Mapping[str, Any]]:
    """The actions in effect after every correction: {action entry seq: action dict}, in seq
    order. Raises a CorrectionRefused subclass (with `entry`) at the first invalid correction."""
    return actions_and_undone(entries)[0]


def apply_correction(
    actions: dict[int, Mapping[str, Any]], undone: set[int], seq: int, payload: Mapping[str, Any]
) -> None:
    """Apply one correction to the {seq: action} map in place (named errors if it cannot)."""
    target = payload["target"]
    if target in undone:
        raise EntryAlreadyUndone(f"entry {target} was already undone", entry=seq, target=target)
    if target not in actions:
        raise NoSuchEntry(f"entry {target} is not an action of this game", entry=seq, target=target)
    if payload["op"] == "undo":
        del actions[target]
        undone.add(target)
    else:
        actions[target] = payload["action"]


@dataclasses.dataclass
class Replay:
    """The result of replaying a log: the final state, or the state before the first violation."""

    header: LogHeader
    engine: Engine
    state: GameState
    entries: int
    applied: int  # actions applied
    violation: Violation | None = None
    violation_entry: int | None = None  # the entry index (seq) the violation is charged to
    events: dict[int, list[dict[str, Any]]] = dataclasses.field(default_factory=dict)  # seq -> event dicts

    @property
    def legal(self) -> bool:
        return self.violation is None


def replay_actions(
    engine: Engine,
    setup: Mapping[str, Any],
    actions: Mapping[int, Mapping[str, Any]],
    *,
    keep_events: bool = False,
) -> tuple[GameState, int, Violation | None, int | None, dict[int, list[dict[str, Any]]]]:
    """Apply {seq: action dict} to a new game. Stops at the first violation (returned, not raised)."""
    state = engine.new_game(copy.deepcopy(dict(setup)))
    events: dict[int, list[dict[str, Any]]] = {}
    applied = 0
    for seq, data in actions.items():
        try:
            action: Action = engine.codec.from_dict(data)
            answered = state.apply(action)
        except Violation as violation:
            return state, applied, violation, seq, events
        if keep_events:
            # as dicts at once: an engine's event data may share lists with its state
            events[seq] = [event.to_dict() for event in answered]
        applied += 1
    return state, applied, None, None, events


def replay(
    contents: LogContents,
    engine: Engine | None = None,
    *,
    keep_events: bool = False,
) -> Replay:
    """Replay a log from its header's setup, applying corrections. Never raises a Violation:
    the first one (a broken correction or an illegal action) is returned with its entry index.
    Raises UnknownGame when no engine plays the header's game."""
    engine = engine if engine is not None else get_engine(contents.header.game)
    refused: CorrectionRefused | None = None
    try:
        actions = effective_actions(contents.entries)
    except CorrectionRefused as error:
        # Replay the entries before the broken correction so the state shown is meaningful.
        refused = error
        actions = effective_actions(e for e in contents.entries if e.seq < refused.details["entry"])
    state, applied, violation, at, events = replay_actions(
        engine, contents.header.setup, actions, keep_events=keep_events
    )
    if violation is None and refused is not None:
        violation, at = refused, refused.details["entry"]
    return Replay(contents.header, engine, state, len(contents.entries), applied, violation, at, events)


def first_event_difference(contents: LogContents, result: Replay) -> EventsDiffer | None:
    """Compare the recorded events of each action entry with the replayed ones (`result` from
    `replay(..., keep_events=True)`). Only entries whose past no later correction changed are
    compared: for them the recorded events must be exactly what the engine answers now."""
    corrections = [(e.seq, e.payload["target"]) for e in contents.entries if e.kind == "correction"]
    for entry in contents.entries:
        if entry.kind != "action" or entry.seq not in result.events:
            continue
        if any(seq > entry.seq and target <= entry.seq for seq, target in corrections):
            continue  # a later correction rewrote this entry's past
        replayed = result.events[entry.seq]
        if replayed != list(entry.events):
            return EventsDiffer(
                f"entry {entry.seq} was answered with other events than the engine gives now",
                entry=entry.seq,
                recorded=list(entry.events),
                replayed=replayed,
            )
    return None
