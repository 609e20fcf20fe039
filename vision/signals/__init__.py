"""Body signals from landmarks: a catalogue in data, detectors as geometry over time.

    from vision.signals.engine import detect_signals, landmarks_from_media, mouth_moving_events

See docs/signals.md.
"""
