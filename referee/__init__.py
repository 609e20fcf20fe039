"""Rules engines, the session log, the table session and the web app of the table referee."""

__version__ = "0.1.0"
