"""A process that appends to a session log as fast as it can and reports each committed entry
on stdout (after the commit), so a test can kill it mid-write and check what survived."""

import sys

from referee.sessionlog import SessionLog
from sessionlog.helpers import toy_header

path = sys.argv[1]
log = SessionLog.create(path, toy_header())
seq = 0
while True:
    entry = log.append("note", {"text": f"entry {seq + 1}", "pad": "x" * 200}, time=1_700_000_000.0 + seq)
    seq = entry.seq
    print(seq, entry.checksum, flush=True)
