"""Cameras on one session clock: webcams, video files, stream URLs and recorded sessions.

* `sources.py`: one source of frames (`open_capture`), with named errors and reconnection.
* `grabber.py`: a thread per camera keeping only the latest frame (latest-frame semantics: a
  slow consumer skips frames, latency never grows), reporting a lost camera and reconnecting.
* `recorded.py`: the cameras of a recorded session folder, read back in time order.
* `stages.py`: the perception stages a table runs on frames (cards, landmarks and signals),
  each at its own rate.
"""
