"""Fixtures for every test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def signing_key_file(monkeypatch, tmp_path_factory):
    """Each test signs and verifies exports with a key of its own in a temporary folder (never
    the user's `~/.config/table-referee/signing.key`); subprocesses inherit it."""
    path = tmp_path_factory.mktemp("key") / "signing.key"
    monkeypatch.setenv("TABLE_REFEREE_KEY_FILE", str(path))
    return path
