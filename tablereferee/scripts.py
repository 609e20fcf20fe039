"""A `referee play --script` file: an optional YAML setup block between '---' lines, then one
command a line.

`load_script(path)` returns the setup and the numbered command lines, or raises `BadScript`
naming what is wrong: a file that is not UTF-8 text, a setup block never closed, not YAML, not a
mapping, too large, with YAML anchors or aliases (a few lines of aliases expand to gigabytes),
or with values JSON cannot hold (the setup goes into the session log as JSON). The setup keys
every game shares (`players`, `teams`, `options`, `variant`, `seed`) are checked for their
shape; the rest is for the game's engine to judge.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

from referee.core import RefereeError
from tablereferee.commands._errors import EXIT_USAGE, CommandError

MAX_SETUP_BYTES = 64 * 1024  # a setup block is a few lines; a larger one is a mistake or an attack
MAX_DEPTH = 32  # lists and mappings nested deeper than this are no table setup


class BadScript(RefereeError):
    """A script file that cannot be read, or whose setup block cannot be used."""


def load_script(path: str | Path) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    """The setup and the (line number, text) of each command of the script at `path`."""
    name = str(path)
    try:
        with open(path, encoding="utf-8-sig") as handle:  # -sig: an editor's byte-order mark is no command
            text = handle.read()
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise BadScript(f"{name} is not UTF-8 text (line {line}, byte {exc.start})", path=name) from None
    except OSError as exc:
        raise BadScript(f"cannot read {name}: {exc.strerror or exc}", path=name) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.removesuffix("\r") for line in lines]
    setup: dict[str, Any] = {}
    start = 0
    first = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), None)
    if first is not None and lines[first].strip() == "---":
        end = next((i for i in range(first + 1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            raise BadScript(f"{name}: the setup block opened on line {first + 1} is never closed by '---'", path=name)
        setup = parse_setup("\n".join(lines[first + 1 : end]), where=name, first_line=first + 2)
        start = end + 1
    return setup, [(i + 1, lines[i]) for i in range(start, len(lines))]


def read_script(path: str) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    """`load_script` for the `play` command: a `BadScript` is a usage error (exit 2)."""
    try:
        return load_script(path)
    except BadScript as exc:
        raise CommandError(exc, code=EXIT_USAGE) from None


def parse_setup(text: str, where: str = "the setup block", first_line: int = 1) -> dict[str, Any]:
    """A setup block's YAML as a JSON-able mapping, or `BadScript`."""
    import yaml  # deferred: PyYAML adds ~15 ms to every command; only a script's setup block needs it

    if len(text.encode("utf-8", "surrogatepass")) > MAX_SETUP_BYTES:
        raise BadScript(f"{where}: the setup block is over {MAX_SETUP_BYTES // 1024} KiB")
    try:
        block = yaml.load(text, Loader=_setup_loader()) or {}
    except _AliasRefused as exc:
        raise BadScript(f"{where}: line {exc.line + first_line}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + first_line}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise BadScript(f"{where}: the setup block is not YAML: {at}{problem}") from None
    except (RecursionError, ValueError, OverflowError) as exc:  # e.g. int("9" * 5000) over Python's digit cap
        raise BadScript(f"{where}: the setup block cannot be read: {exc}") from None
    if not isinstance(block, dict):
        raise BadScript(f"{where}: the setup block must be a mapping (players:, teams:, options:)")
    problem = _not_json(block, "", 0)
    if problem:
        raise BadScript(f"{where}: {problem}")
    problem = _shape(block)
    if problem:
        raise BadScript(f"{where}: {problem}")
    return block


class _AliasRefused(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@functools.cache
def _setup_loader() -> type:
    import yaml  # deferred: PyYAML adds ~15 ms to every command; only a script's setup block needs it

    class SetupLoader(yaml.SafeLoader):
        """SafeLoader without anchors and aliases, and without implicit dates (a date is text)."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
                raise _AliasRefused(
                    f"YAML anchors and aliases are not allowed in a setup block (found the {kind} "
                    f"{event.anchor!r}); write the value out",
                    event.start_mark.line,
                )
            return super().compose_node(parent, index)

    SetupLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return SetupLoader


def _not_json(value: Any, where: str, depth: int) -> str | None:
    """Why `value` cannot go into the log as JSON, or None."""
    at = f" at {where}" if where else ""
    if depth > MAX_DEPTH:
        return f"the setup is nested more than {MAX_DEPTH} levels deep{at}"
    if value is None or isinstance(value, (bool, int, str)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} is not a number the log can hold{at}"
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _not_json(item, f"{where}[{i}]", depth + 1)
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"the key {key!r}{at} must be text"
            problem = _not_json(item, f"{where}.{key}" if where else key, depth + 1)
            if problem:
                return problem
        return None
    kinds: dict[type, str] = {bytes: "binary data", set: "a set", tuple: "a pair list"}
    kind = kinds.get(type(value), type(value).__name__)
    return f"{kind}{at} is not text, a number, a list or a mapping"


def _shape(block: dict[str, Any]) -> str | None:
    """Why the shared setup keys have the wrong shape, or None."""

    def names(value: Any) -> bool:
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))

    if "players" in block and block["players"] is not None and not names(block["players"]):
        return "players: write the names in seat order, as a list or 'Ann,Bob,Cid'"
    teams = block.get("teams")
    if teams is not None and not isinstance(teams, str):
        if not isinstance(teams, dict) or not all(names(v) for v in teams.values()):
            return "teams: write each team as NAME: [Player, Player], or 'Red=Ann,Cid;Blue=Bob,Dee'"
    if block.get("options") is not None and not isinstance(block["options"], dict):
        return "options: write the table options as a mapping (key: value)"
    if "variant" in block and not isinstance(block["variant"], str):
        return "variant: write the variant's name"
    if block.get("seed") is not None and (isinstance(block["seed"], bool) or not isinstance(block["seed"], int)):
        return "seed: write a whole number"
    return None
