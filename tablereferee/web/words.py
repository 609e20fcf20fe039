"""What the web table says to people: `referee.voice`, the referee's one plain-language voice
(the terminal, the web and the dispute packages share it), for the web's viewers.

Whatever comes in here goes out as its viewer may see it (`referee.secrecy` inside the voice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee import voice
from referee.core import Engine, GameState, RefereeError
from referee.secrecy import PUBLIC, Viewer

CALL_NAMES = {"coccode": "Coccodé", "caught": "Caught!", "chicchirichi": "Chicchirichì"}


def action_text(
    engine: Engine, action: Mapping[str, Any], viewer: Viewer = PUBLIC, *, state: Any = None, hidden: Sequence[str] = ()
) -> str:
    return voice.say_action(engine, action, viewer, hidden=hidden, state=state)


def events_lines(
    engine: Engine, events: Sequence[Mapping[str, Any]], viewer: Viewer = PUBLIC, *, state: Any = None
) -> list[str]:
    return [line for line in voice.say_events(engine, events, viewer, state=state) if line]


def error_text(error: RefereeError) -> str:
    return voice.say_error(error)


def waiting_text(engine: Engine, state: GameState, viewer: Viewer = PUBLIC) -> str:
    return voice.say_waiting(engine, state, viewer)


def question_text(engine: Engine, ask: int, payload: Mapping[str, Any], *, state: Any = None) -> str:
    """A live table's ask (`type: ask` in the log) as a one-tap yes/no question."""
    confidence = payload.get("confidence")
    return voice.say_question(
        engine,
        ask,
        payload.get("action") if isinstance(payload.get("action"), Mapping) else None,
        reasoning=str(payload.get("reasoning") or ""),
        confidence=float(confidence) if isinstance(confidence, (int, float)) else None,
        alternative=payload.get("alternative") if isinstance(payload.get("alternative"), Mapping) else None,
        state=state,
    )


def standings_lines(engine: Engine, state: GameState, viewer: Viewer = PUBLIC) -> list[str]:
    return list(voice.say_standings(engine, state, viewer))
