"""How a command ends on a named error: `error: <Name>: <message>` on stderr (or its JSON), and
an exit code. The codes, the same for every command (docs/commands.md):

    0 done; 1 a violation, or not what was expected; 2 usage: a bad option or table setup;
    3 an input that cannot be used (a missing or unreadable file, a camera that does not
    answer, a model that is not a model); 4 a damaged session log.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

import click

from referee.core import RefereeError
from referee.sessionlog import EXIT_CORRUPT, EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_VIOLATION

__all__ = [
    "BY_KIND",
    "EXIT_CORRUPT",
    "EXIT_OK",
    "EXIT_UNREADABLE",
    "EXIT_USAGE",
    "EXIT_VIOLATION",
    "CommandError",
    "echo_error",
    "exit_code_for",
    "exit_on_error",
]

# Errors that name a thing the options ask for which does not exist (a deck, a device): usage.
USAGE_ERRORS = frozenset({"UnknownDeck", "UnknownGame", "AudioDeviceNotFound", "EmptyEnrollment", "PhotoCountMismatch"})

BY_KIND = -1  # `exit_on_error(BY_KIND)`: 2 for a usage error, 3 for any other input


def exit_code_for(exc: RefereeError) -> int:
    """2 for an error in the options (`USAGE_ERRORS`), 3 for an input that cannot be used."""
    return EXIT_USAGE if any(t.__name__ in USAGE_ERRORS for t in type(exc).__mro__) else EXIT_UNREADABLE


def echo_error(exc: RefereeError, as_json: bool = False) -> None:
    """`error: <exc>` on stderr; with `as_json`, the error's `to_dict()` as JSON instead."""
    click.echo(json.dumps(exc.to_dict()) if as_json else f"error: {exc}", err=True)


class CommandError(click.ClickException):
    """A `RefereeError` as the click exception that ends a command: `error: Name: message` on
    stderr (its JSON with `as_json`), exit `code` (by default `exit_code_for(exc)`)."""

    def __init__(self, exc: RefereeError, code: int | None = None, as_json: bool = False) -> None:
        super().__init__(str(exc))
        self.error = exc
        # click's exit_code is a class attribute; ours depends on the error
        self.exit_code = exit_code_for(exc) if code is None or code == BY_KIND else code  # type: ignore[misc]
        self.as_json = as_json

    def show(self, file: object = None) -> None:
        echo_error(self.error, self.as_json)


@contextlib.contextmanager
def exit_on_error(code: int = EXIT_UNREADABLE, as_json: bool = False) -> Iterator[None]:
    """A `RefereeError` raised inside ends the command: the error on stderr, exit `code`
    (`BY_KIND`: the code `exit_code_for` the error)."""
    try:
        yield
    except RefereeError as exc:
        echo_error(exc, as_json)
        sys.exit(exit_code_for(exc) if code == BY_KIND else code)
