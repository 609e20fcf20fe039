"""Subcommands of the `referee` console script.

Each module here defines `command`, a `click.Command`; `tablereferee.cli` adds every one it finds.
Heavy imports (mediapipe, onnxruntime, av) belong inside the command body so that
`referee --help` and the scorekeeper start fast.
"""
