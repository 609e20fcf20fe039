"""Cameras on one session clock: webcams, video files and stream URLs (a recorded session's
cameras are read by `tablereferee.recording.playback`).

* `sources.py`: one source of frames (`open_capture`), with named errors and reconnection.
* `grabber.py`: a thread per camera keeping only the latest frame (latest-frame semantics: a
  slow consumer skips frames, latency never grows), reporting a lost camera and reconnecting.
* `stages.py`: the perception stages a table runs on frames (cards, landmarks and signals),
  each at its own rate.
"""
