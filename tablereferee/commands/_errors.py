"""How a command ends on a named error: `error: <what>` on stderr (or its JSON), and an exit code."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

import click

from referee.core import RefereeError

EXIT_UNREADABLE = 3  # the input cannot be used: a session folder, a camera, a table file


def echo_error(exc: RefereeError, as_json: bool = False) -> None:
    """`error: <exc>` on stderr; with `as_json`, the error's `to_dict()` as JSON instead."""
    click.echo(json.dumps(exc.to_dict()) if as_json else f"error: {exc}", err=True)


@contextlib.contextmanager
def exit_on_error(code: int = EXIT_UNREADABLE, as_json: bool = False) -> Iterator[None]:
    """A `RefereeError` raised inside ends the command: the error on stderr, exit `code`."""
    try:
        yield
    except RefereeError as exc:
        echo_error(exc, as_json)
        sys.exit(code)
