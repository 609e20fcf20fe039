"""scripts/bench_demo.py: the memory of a process and its children together counts a page that a
forked child shares with its parent once, not twice (as resident sets summed would)."""

import subprocess
import sys
from pathlib import Path

import pytest

from scripts import bench_demo

# A parent that fills 120 MB, then forks a child that shares those pages with it; it says its
# pid once the child runs, and both leave when stdin closes.
FORKED = r"""
import os, sys
block = bytearray(120 * 1024 * 1024)
for i in range(0, len(block), 4096):
    block[i] = 1
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.write(w, b"x")
    sys.stdin.read()
    os._exit(0)
os.close(w)
os.read(r, 1)
print(os.getpid(), pid, flush=True)
sys.stdin.read()
os.waitpid(pid, 0)
"""


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux's /proc/PID/smaps_rollup")
def test_a_forked_childs_shared_pages_are_counted_once():
    proc = subprocess.Popen([sys.executable, "-c", FORKED], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        parent, child = map(int, proc.stdout.readline().split())
        rss_sum = _rss_kb(parent) + _rss_kb(child)
        tree = bench_demo.tree_memory_kb(parent)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    mb = 1024
    assert tree >= 120 * mb  # the block is counted
    assert rss_sum >= 240 * mb  # resident sets count it in both
    assert tree <= rss_sum - 100 * mb  # the tree counts it once
    assert bench_demo.tree_memory_kb(parent) == 0  # gone: nothing
