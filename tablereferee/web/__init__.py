"""The table's own screen: `referee serve` (docs/web.md).

`create_app(hub)` is the FastAPI application of one table; `TableHub` wraps the table (a
scorekeeper, or a live table's) and builds every view through `referee.secrecy`.
"""

from __future__ import annotations

from tablereferee.web.app import create_app
from tablereferee.web.hub import TableHub

__all__ = ["TableHub", "create_app"]
