"""Native library chatter kept off the user's screen.

MediaPipe's C++ logging (absl) writes warnings to the process's stderr before it reads any
setting ("All log messages before absl::InitializeLog() is called are written to STDERR",
"W0000 ... Feedback manager requires a model with a single signature inference"), so no
environment variable silences them. `native_chatter_filtered()` points file descriptor 2 at a pipe
for the duration, drops the lines in the glog/absl format and TensorFlow Lite's "INFO:" lines,
and passes everything else through unchanged. `REFEREE_LIBRARY_LOGS=1` turns the filter off.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterator

# I0000 00:00:1796168615.048759   26751 file.cc:114] message  (glog / absl)
CHATTER = re.compile(
    rb"^([IWE]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ [\w./-]+:\d+\] "
    rb"|WARNING: All log messages before absl::InitializeLog\(\) is called"
    rb"|INFO: Created TensorFlow Lite)"
)


@contextlib.contextmanager
def native_chatter_filtered() -> Iterator[None]:
    """Inside, what native code writes to stderr in the glog/absl format is dropped."""
    if os.environ.get("REFEREE_LIBRARY_LOGS"):
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (an embedding host): nothing to filter
        yield
        return
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)

    def forward() -> None:
        with os.fdopen(read_end, "rb") as pipe:
            for line in pipe:
                if not CHATTER.match(line):
                    os.write(saved, line)

    thread = threading.Thread(target=forward, name="stderr-filter", daemon=True)
    thread.start()
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os.dup2(saved, 2)  # closes the pipe's last write end: the thread reads to its end
        thread.join(timeout=5)
        os.close(saved)
