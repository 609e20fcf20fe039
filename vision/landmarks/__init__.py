"""Landmarks for a whole table: MediaPipe per seat, hands given to their owners, calibration.

    from vision.landmarks.calibration import TableCalibration      # seats and table lines (JSON)
    from vision.landmarks.extract import LandmarkExtractor         # frames -> FrameLandmarks
    from vision.landmarks.types import FrameLandmarks, Person, Hand

MediaPipe is imported only when an extractor is made.
"""
