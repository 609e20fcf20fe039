"""Where a new session is written when the user names no place."""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path


def default_session_path(
    game: str, when: float | None = None, *, suffix: str = "", folder: str | os.PathLike[str] = "sessions"
) -> Path:
    """`sessions/<game>-<UTC time>` plus `suffix` (".db" for a scorekeeper's log, none for a
    session folder), with `-2`, `-3`... before the suffix when that name is taken. `when`:
    epoch seconds (default: now)."""
    moment = time.time() if when is None else when
    stamp = datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    base = Path(folder) / f"{game}-{stamp}"
    path, n = Path(f"{base}{suffix}"), 2
    while path.exists():
        path, n = Path(f"{base}-{n}{suffix}"), n + 1
    return path
