"""Subcommands of the `referee` console script.

Each module here defines `command`, a `click.Command`; `tablereferee.cli` adds every one it finds
(modules named `_...` are helpers). The CLI imports every command module, so what loads NumPy,
OpenCV, MediaPipe, onnxruntime or PyAV is imported inside the command body (`# deferred:`),
and `referee --help` and `referee play` start fast.
"""
