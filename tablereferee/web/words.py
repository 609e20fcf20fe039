"""What the web table says to people: `referee.voice`, the referee's one plain-language voice
(the terminal, the web and the dispute packages share it), for the web's viewers.

Whatever comes in here goes out as its viewer may see it (`referee.secrecy` inside the voice).
"""

from __future__ import annotations

import re
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
    """What the referee waits for, in words only: a screen or a phone has buttons, not the
    terminal's commands (`referee.voice.say_waiting` says those too)."""
    return words_only(voice.waiting_phrase(engine, state, viewer))


_ASIDE = re.compile(r"\s*\([^()]*`[^()]*\)")  # " (`pass Anna`, or `pass Anna CARD` when the card is seen)"
_COMMANDS = re.compile(r"\s*:\s*`.*$")  # ": `take Blues orloff`, or `take Blues deck`", to the end
_QUOTED = re.compile(r"(\s*,)?(\s+or)?\s*`[^`]*`")  # any command left: with the ", or" before it


def words_only(phrase: str) -> str:
    """A waiting phrase without its commands, as a sentence: "Blues to choose an egg from the
    Orloff henhouse or the deck: `take Blues orloff`, or `take Blues deck`" -> "Blues to choose
    an egg from the Orloff henhouse or the deck."""
    text = _QUOTED.sub("", _COMMANDS.sub("", _ASIDE.sub("", phrase))).strip().rstrip(",:;")
    text = re.sub(r"\s+,", ",", re.sub(r"\s{2,}", " ", text))
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


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
