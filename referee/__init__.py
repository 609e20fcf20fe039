"""The pure referee: rules engines, the session log, the scorekeeper and the table session
(the fusion of observations into actions). No OpenCV, no threads, no clock."""

__version__ = "0.1.0"
