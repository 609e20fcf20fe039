"""Fault injection on session logs: whatever single file of a log is cut, flipped, deleted or
made read-only, and wherever `referee play` is killed, nothing saved is lost without being
named, with its count.

The oracle (`_assert_nothing_lost_silently`): reading a damaged log either gives every saved
entry, unchanged, or raises LogCorrupt whose intact entries are an unchanged prefix and whose
`committed`/`lost` say how many saved entries are missing. Damage to the entry count file
itself may lose nothing, and must be said (`count_problem`).

The default run samples each fault; `-m slow` sweeps every page boundary, every byte and more
kills.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.sessionlog import LogCorrupt, LogUnreadable, SessionLog, read_log, write_jsonl
from referee.sessionlog.tally import tally_path

from .helpers import subprocess_env, toy_cli_command, toy_header

ENTRIES = 40
PAGE = 4096


def _payload(i: int) -> dict:
    return {"text": f"note {i} " + "abcdefghij" * (15 + i % 7)}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, list]:
    """A closed 40-entry log (several leaf pages), and its entries as saved."""
    folder = tmp_path_factory.mktemp("pristine")
    log = SessionLog.create(folder / "g.db", toy_header())
    for i in range(ENTRIES):
        log.append("note", _payload(i), time=1_700_000_000.0 + i, confidence=None)
    saved = list(log.entries)
    log.close()
    return folder / "g.db", saved


def _copy(pristine_log: Path, folder: Path) -> Path:
    """Copy a log and the files beside it (only those of this log) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in pristine_log.parent.glob(pristine_log.name + "*"):
        shutil.copyfile(path, folder / path.name)
    return folder / pristine_log.name


def _assert_nothing_lost_silently(path: Path, saved: list, *, count_damaged: bool = False) -> str:
    """Read the damaged log at `path`: all saved entries, or a LogCorrupt that names the loss.
    Returns 'whole' or 'named' (for the tests that want one of them)."""
    try:
        contents = read_log(path)
    except LogCorrupt as error:
        assert error.entries == saved[: len(error.entries)], "an intact entry was read changed"
        if count_damaged:  # the count was the damage; the log itself must then read whole
            pytest.fail(f"the log itself was whole but reads as damaged: {error}")
        assert error.committed == len(saved), f"the loss is not counted: {error}"
        assert error.lost == len(saved) - len(error.entries)
        if error.lost:
            assert f"{len(saved)} entries were saved" in str(error)
            assert "lost" in str(error) or "damaged or missing" in str(error)
        assert all(len(error.entries) + 1 < seq <= len(saved) for seq in error.whole_after)
        assert len(error.entries) + len(error.whole_after) + error.damaged == len(saved)
        return "named"
    except LogUnreadable as error:  # a log with its count beside it is never "not a log"
        pytest.fail(f"a damaged log read as unreadable: {error}")
    assert contents.entries == saved, "the log reads as legal with entries lost or changed"
    if count_damaged:
        assert contents.count_problem and contents.committed is None
    else:
        assert contents.committed == len(saved) and not contents.count_problem
    return "whole"


def test_the_writer_leaves_no_wal_and_counts_every_entry(pristine):
    path, saved = pristine
    names = sorted(p.name for p in path.parent.iterdir())
    assert names == ["g.db", "g.db-count", "g.db-journal"]
    assert (path.parent / "g.db-journal").stat().st_size == 0  # every commit is in g.db
    contents = read_log(path)
    assert contents.entries == saved and contents.committed == ENTRIES


# -- truncation ---------------------------------------------------------------------------


def _cuts(size: int, exhaustive: bool) -> list[int]:
    boundaries = list(range(0, size, PAGE))
    rng = random.Random(25)
    offsets = rng.sample(range(1, size), 200 if exhaustive else 8)
    return sorted(set(boundaries + offsets))


@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_log_cut_anywhere_reads_every_intact_entry_and_counts_the_lost(pristine, tmp_path, exhaustive):
    path, saved = pristine
    size = path.stat().st_size
    assert size >= 6 * PAGE, "the log should span several leaf pages"
    kept_at_boundary = {}
    for cut in _cuts(size, exhaustive):
        copy = _copy(path, tmp_path / f"cut{cut}")
        os.truncate(copy, cut)
        assert _assert_nothing_lost_silently(copy, saved) == "named"
        if cut % PAGE == 0:
            try:
                read_log(copy)
            except LogCorrupt as error:
                kept_at_boundary[cut] = len(error.entries)
    # every entry on the pages kept is read, the last one included
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq FROM entries").fetchall()
    conn.close()
    assert len(rows) == ENTRIES
    assert max(kept_at_boundary.values()) > 0
    assert sorted(kept_at_boundary.values()) == list(kept_at_boundary.values())  # more kept, the later the cut


def test_a_page_cut_keeps_the_last_entry_of_the_last_whole_page(pristine, tmp_path):
    """The sqlite3 cursor reads a row ahead: its error used to arrive before the last intact
    row was handed over, so a cut at a page boundary lost one entry more than the cut."""
    path, saved = pristine
    data = path.read_bytes()
    on_page: dict[int, int] = {}  # the last entry wholly on each page
    for entry in saved:
        at = data.find(entry.checksum.encode())
        on_page[at // PAGE] = entry.seq
    page = sorted(on_page)[len(on_page) // 2]  # a leaf page in the middle
    copy = _copy(path, tmp_path / "mid")
    os.truncate(copy, (page + 1) * PAGE)
    with pytest.raises(LogCorrupt) as info:
        read_log(copy)
    assert len(info.value.entries) == on_page[page]


# -- flipped bytes ------------------------------------------------------------------------


def _flip(path: Path, at: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(at)
        byte = handle.read(1)
        handle.seek(at)
        handle.write(bytes([byte[0] ^ 0xFF]))


@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_flipped_byte_anywhere_in_the_log_is_named_or_harmless(pristine, tmp_path, exhaustive):
    path, saved = pristine
    size = path.stat().st_size
    if exhaustive:
        offsets = range(size)
    else:  # the file header, the schema, the header row, and a few bytes of every page
        rng = random.Random(7)
        offsets = sorted(
            {*range(0, 100, 9), *(p * PAGE + rng.randrange(PAGE) for p in range(size // PAGE) for _ in range(4))}
        )
    outcomes = {"whole": 0, "named": 0}
    copy = _copy(path, tmp_path / "flip")
    for at in offsets:
        _flip(copy, at)
        outcomes[_assert_nothing_lost_silently(copy, saved)] += 1
        _flip(copy, at)  # back as it was, for the next offset
    assert outcomes["named"] > 0  # some flips do damage, and it is named
    print(f"{len(offsets)} flips: {outcomes}")  # docs/log-format.md quotes the sweep's figures


def test_a_changed_entry_count_never_hides_an_entry(pristine, tmp_path):
    path, saved = pristine
    count = tally_path(path)
    for at in range(count.stat().st_size):
        copy = _copy(path, tmp_path / f"c{at}")
        _flip(tally_path(copy), at)
        _assert_nothing_lost_silently(copy, saved, count_damaged=True)


# -- deleted and legacy companion files ---------------------------------------------------


@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm", "-count"])
def test_deleting_a_file_beside_the_log_loses_nothing_and_a_missing_count_is_said(pristine, tmp_path, suffix):
    path, saved = pristine
    copy = _copy(path, tmp_path / "d")
    Path(str(copy) + suffix).unlink(missing_ok=True)
    _assert_nothing_lost_silently(copy, saved, count_damaged=suffix == "-count")


def test_the_end_of_a_log_written_in_wal_mode_is_reported_unverified(tmp_path):
    """A log written before the entry count existed (WAL mode, no NAME.db-count): a cut -wal
    drops entries SQLite cannot see; check says that the end of such a log is unverified."""
    log = SessionLog.create(tmp_path / "old.db", toy_header())
    log._conn.execute("PRAGMA journal_mode=WAL")
    for i in range(6):
        log.append("note", _payload(i), time=float(i))
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("old.db", "old.db-wal"):  # the files of a writer that was killed
        shutil.copyfile(tmp_path / name, copy / name)
    log.close()
    wal = copy / "old.db-wal"
    os.truncate(wal, wal.stat().st_size // 2)
    contents = read_log(copy / "old.db")
    assert len(contents.entries) < 6 and "missing" in contents.count_problem
    result = subprocess.run(
        toy_cli_command("check", str(copy / "old.db")), capture_output=True, text=True, env=subprocess_env()
    )
    assert result.returncode == 0 and "unverified end" in result.stdout


# -- read-only files and folders ----------------------------------------------------------


def _as_nobody(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: permissions cannot be taken away")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    keys = Path(tempfile.mkdtemp(prefix="nobody-key-"))  # a signing key this user may make
    os.chmod(keys, 0o777)
    env = {**subprocess_env(), "TABLE_REFEREE_KEY_FILE": str(keys / "signing.key")}
    try:
        return subprocess.run(
            prefix + toy_cli_command(*args), input=input, capture_output=True, text=True, env=env, cwd="/"
        )
    finally:
        shutil.rmtree(keys)


@pytest.fixture
def read_only_log(pristine):
    path, saved = pristine
    folder = Path(tempfile.mkdtemp(prefix="ro-log-"))
    try:
        os.chmod(folder, 0o755)
        copy = _copy(path, folder / "game")
        for name in os.listdir(copy.parent):
            os.chmod(copy.parent / name, 0o444)
        os.chmod(copy.parent, 0o555)
        yield copy, saved
    finally:
        os.chmod(folder / "game", 0o755)
        shutil.rmtree(folder)


def test_a_healthy_log_in_a_read_only_folder_reads_whole(read_only_log):
    path, saved = read_only_log
    result = _as_nobody("check", "--json", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["legal"] and report["entries"] == len(saved) and report["end_verified"]
    result = _as_nobody("export", str(path), "-")
    assert result.returncode == 0 and len(result.stdout.splitlines()) == len(saved) + 1


def test_resuming_a_log_that_cannot_be_written_is_refused_before_any_line(read_only_log):
    path, saved = read_only_log
    result = _as_nobody("play", "--resume", str(path), input="note after\nquit\n")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "LogReadOnly" in result.stderr and "cannot be written" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert len(read_log(path).entries) == len(saved)


def test_a_read_only_log_with_a_crashed_writers_journal_is_read_from_a_copy(pristine, tmp_path):
    """A hot journal needs a rollback that a read-only reader cannot do in place."""
    path, saved = pristine
    copy = _copy(path, tmp_path / "hot")
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.execute("PRAGMA journal_mode=TRUNCATE")
    conn.execute("PRAGMA cache_size=1")  # spill the change into the file before the commit
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DROP TRIGGER entries_append_only_d")
    conn.execute("DELETE FROM entries WHERE seq > 5")
    hot = copy.parent / "saved"
    hot.mkdir()
    for name in os.listdir(copy.parent):  # the files as a kill at this moment leaves them
        if (copy.parent / name).is_file():
            shutil.copyfile(copy.parent / name, hot / name)
    conn.execute("ROLLBACK")
    conn.close()
    assert (hot / "g.db-journal").stat().st_size > 0
    assert _assert_nothing_lost_silently(hot / "g.db", saved) == "whole"


# -- kill -9 of `referee play` ------------------------------------------------------------


def _entries(path: Path) -> int:
    try:
        return len(read_log(path).entries)
    except (LogCorrupt, LogUnreadable):
        return 0


@pytest.mark.parametrize("kills", [3, pytest.param(20, marks=pytest.mark.slow)])
def test_play_killed_at_random_points_keeps_every_saved_entry(tmp_path, kills):
    rng = random.Random(kills)
    for attempt in range(kills):
        path = tmp_path / f"k{attempt}.db"
        lines = [f"note line {i} " + "x" * rng.randrange(10, 400) for i in range(60)]
        process = subprocess.Popen(
            toy_cli_command("play", "toy", "--players", "Ann,Bob", "--log", str(path)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=subprocess_env(),
        )
        target = rng.randrange(1, 50)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join(lines) + "\n")  # all of it: the kill lands while it works on
        process.stdin.flush()
        reported = 0
        for out in process.stdout:  # each 'note #N saved' is printed after entry N is saved
            if out.startswith("note #"):
                reported = int(out.split()[1].lstrip("#"))
                if reported >= target and _entries(path) >= target:
                    process.send_signal(signal.SIGKILL)
                    break
        process.wait()
        assert process.returncode == -signal.SIGKILL
        contents = read_log(path)
        assert len(contents.entries) >= reported and contents.committed is not None
        assert [e.payload["text"] for e in contents.entries] == [t.removeprefix("note ") for t in lines][
            : len(contents.entries)
        ]
        lost_journal = _copy(path, tmp_path / f"j{attempt}")
        Path(str(lost_journal) + "-journal").unlink(missing_ok=True)  # a crashed writer's journal, deleted
        try:
            assert len(read_log(lost_journal).entries) >= reported
        except LogCorrupt as error:  # a half-written commit without its journal: named, counted
            assert error.committed is not None and error.committed >= reported
            assert error.lost == error.committed - len(error.entries)
        resumed = subprocess.run(
            toy_cli_command("play", "--resume", str(path)),
            input="note after the crash\nquit\n",
            capture_output=True,
            text=True,
            env=subprocess_env(),
        )
        assert resumed.returncode == 0, resumed.stderr
        assert f"note #{len(contents.entries) + 1} saved" in resumed.stdout


# -- any damage at all (Hypothesis) ---------------------------------------------------------
_DAMAGE = st.lists(
    st.tuples(st.floats(min_value=0.0, max_value=1.0, exclude_max=True), st.integers(min_value=1, max_value=255)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damage=_DAMAGE, cut=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)))
def test_any_damage_to_the_log_file_gives_a_named_error_and_an_unchanged_prefix(pristine, tmp_path, damage, cut):
    """Several bytes changed at once, and maybe a cut: only LogCorrupt, with what it keeps
    unchanged and the loss counted, or every entry."""
    path, saved = pristine
    copy = _copy(path, Path(tempfile.mkdtemp(dir=tmp_path)))
    data = bytearray(copy.read_bytes())
    for where, mask in damage:
        data[int(where * len(data))] ^= mask
    if cut is not None:
        data = data[: int(cut * len(data))]
    copy.write_bytes(bytes(data))
    _assert_nothing_lost_silently(copy, saved)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damage=_DAMAGE, cut=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)))
def test_any_damage_to_an_export_gives_a_named_error_and_an_unchanged_prefix(pristine, damage, cut):
    path, saved = pristine
    buffer = io.StringIO()
    write_jsonl(read_log(path), buffer)
    data = bytearray(buffer.getvalue().encode())
    for where, mask in damage:
        data[int(where * len(data))] ^= mask
    if cut is not None:
        data = data[: int(cut * len(data))]
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "x.jsonl"
        export.write_bytes(bytes(data))
        try:
            contents = read_log(export)
        except LogCorrupt as error:
            assert error.entries == saved[: len(error.entries)]
            return
        except LogUnreadable:  # only when the header line itself is hit
            original = buffer.getvalue().encode()
            assert bytes(data).split(b"\n", 1)[0] != original.split(b"\n", 1)[0] or not data.strip()
            return
        # an export cut between two lines reads as a shorter one (it has no entry count)
        assert contents.entries == saved[: len(contents.entries)]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=600))
def test_any_bytes_read_as_a_log_give_a_named_error(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.log"
        path.write_bytes(data)
        try:
            read_log(path)
        except (LogCorrupt, LogUnreadable):
            pass
