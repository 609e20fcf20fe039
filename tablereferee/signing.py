"""This referee's signing key: the secret with which `referee export` signs a JSON-lines export
and `referee check` / `play --resume` verify one (docs/log-format.md, "The signature").

The key is read from `$TABLE_REFEREE_KEY_FILE`, else `$XDG_CONFIG_HOME/table-referee/signing.key`
(`~/.config/table-referee/signing.key`); on first use a random 32-byte key is written there,
readable by this user only (mode 0600). Keep it from the players: whoever holds it can sign an
edited export.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from referee.core import RefereeError

KEY_FILE_VARIABLE = "TABLE_REFEREE_KEY_FILE"
KEY_BYTES = 32
MIN_KEY_BYTES = 16


class SigningKeyUnreadable(RefereeError):
    """The signing key file cannot be read or made, or does not hold a key."""


def key_path() -> Path:
    """Where this referee's key is kept."""
    named = os.environ.get(KEY_FILE_VARIABLE)
    if named:
        return Path(named).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or ""
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"
    return base / "table-referee" / "signing.key"


def load_key() -> bytes:
    """The key, made on first use. Raises SigningKeyUnreadable naming the file and why."""
    path = key_path()
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _unreadable(path, error) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made at the same moment by another referee process
        try:
            return _read(path)
        except OSError as error:
            raise _unreadable(path, error) from None
    except OSError as error:
        raise SigningKeyUnreadable(f"cannot make the signing key {path}: {error.strerror}", path=str(path)) from None
    key = secrets.token_bytes(KEY_BYTES)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def load_key_or_none() -> tuple[bytes | None, SigningKeyUnreadable | None]:
    """The key, or None and why there is none (a reader then verifies nothing)."""
    try:
        return load_key(), None
    except SigningKeyUnreadable as error:
        return None, error


def _unreadable(path: Path, error: OSError) -> SigningKeyUnreadable:
    return SigningKeyUnreadable(f"cannot read the signing key {path}: {error.strerror}", path=str(path))


def _read(path: Path) -> bytes:
    key = path.read_bytes()
    if len(key) < MIN_KEY_BYTES:
        raise SigningKeyUnreadable(
            f"{path} does not hold a signing key ({len(key)} bytes; a key has {KEY_BYTES}): "
            f"remove it to make a new one, or name another with ${KEY_FILE_VARIABLE}",
            path=str(path),
        )
    return key
