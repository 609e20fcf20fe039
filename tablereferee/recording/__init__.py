"""Recorded sessions: a folder with each camera's video in segments, the audio, the session
log, the calibration, the table options and the models used. See `folder.py`."""

from tablereferee.recording.folder import SegmentWriter, SessionFolder, SessionFolderError

__all__ = ["SegmentWriter", "SessionFolder", "SessionFolderError"]
