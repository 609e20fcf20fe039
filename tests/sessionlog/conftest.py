"""Fixtures shared by the session-log tests."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tablereferee.cli import cli

from .helpers import register_toy


@pytest.fixture
def run(monkeypatch, tmp_path):
    """`run(*args, input=None)`: the `referee` CLI in a fresh folder, with the toy game
    registered; a traceback fails the test, an exit code is the command's answer."""
    register_toy(monkeypatch)
    monkeypatch.chdir(tmp_path)

    def invoke(*args, input=None):
        result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=True)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result

    return invoke
