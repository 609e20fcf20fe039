"""The application: the run loop over live and recorded cameras, the recording and the dispute
clips, and the `referee` commands. The only package that imports both `referee` (the pure
rules, session log and table) and `vision` (perception). See ARCHITECTURE.md."""

from referee import __version__

__all__ = ["__version__"]
