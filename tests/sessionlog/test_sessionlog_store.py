"""The SQLite session log and its JSON-lines export: append-only, durable, damage named."""

from __future__ import annotations

import io
import json
import math
import signal
import sqlite3
import subprocess
import sys

import pytest

from referee.sessionlog import (
    FORMAT_VERSION,
    BadEntry,
    LogContents,
    LogCorrupt,
    LogExists,
    LogUnreadable,
    SessionLog,
    read_log,
    write_jsonl,
    write_sqlite,
)

from .helpers import HERE, make_log, subprocess_env, toy_header

ADD = {"action": {"kind": "add", "player": "Ann", "amount": 2}, "text": "add Ann 2"}


def _filled(path, n=40):
    log = SessionLog.create(path, toy_header())
    for i in range(n):
        player = "Ann" if i % 2 == 0 else "Bob"
        log.append(
            "action",
            {"action": {"kind": "add", "player": player, "amount": 1}},
            time=1_700_000_000.0 + i,
            source="keyboard",
            confidence=0.9,
            events=[{"kind": "added", "total": i + 1}],
        )
    return log


def test_entries_round_trip_through_sqlite_and_reopen(tmp_path):
    log = make_log(tmp_path / "g.db")
    first = log.append(
        "action", ADD, time=1.5, source="keyboard", confidence=1.0, events=[{"kind": "added", "total": 2}]
    )
    note = log.append("note", {"text": "Simona swears she touched her ear"}, time=2.0, confidence=None)
    seen = log.append(
        "observation", {"type": "signal", "player": "Bob", "signal": "hum"}, time=2.5, source="camera", confidence=0.42
    )
    log.close()
    assert [first.seq, note.seq, seen.seq] == [1, 2, 3]
    contents = read_log(tmp_path / "g.db")
    assert contents.header == toy_header()
    assert contents.entries == [first, note, seen]
    assert contents.entries[2].confidence == pytest.approx(0.42)
    reopened = SessionLog.open(tmp_path / "g.db")
    assert reopened.append("note", {"text": "later"}, time=3.0).seq == 4
    reopened.close()


def test_the_database_refuses_updates_and_deletes(tmp_path):
    make_log(tmp_path / "g.db", [("action", ADD)]).close()
    conn = sqlite3.connect(tmp_path / "g.db")
    for sql in ("UPDATE entries SET payload = '{}'", "DELETE FROM entries", "UPDATE header SET game = 'x'"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql)
    conn.close()
    assert read_log(tmp_path / "g.db").entries[0].payload == ADD


def test_sqlite_settings_are_durable(tmp_path):
    log = make_log(tmp_path / "g.db")
    assert log._conn.execute("PRAGMA journal_mode").fetchone()[0] == "truncate"  # commits land in the .db
    assert log._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    log.close()


@pytest.mark.parametrize(
    "kind, payload, extra, fragment",
    [
        ("move", {"text": "x"}, {}, "unknown entry kind"),
        ("note", {"text": "x"}, {"source": "telepathy"}, "unknown source"),
        ("note", {"text": "x"}, {"confidence": 1.5}, "confidence"),
        ("note", {"text": "x"}, {"time": math.nan}, "time"),
        ("note", {"text": 3}, {}, "payload.text"),
        ("action", {"text": "add"}, {}, "payload.action"),
        ("correction", {"op": "redo", "target": 1}, {}, "correction op"),
        ("correction", {"op": "undo", "target": 9}, {}, "earlier entry"),
        ("observation", {"card": "Orloff"}, {}, "payload.type"),
        ("note", {"text": "x", "bad": object()}, {}, "not JSON"),
    ],
)
def test_bad_entries_are_refused_by_name_and_nothing_is_written(tmp_path, kind, payload, extra, fragment):
    log = make_log(tmp_path / "g.db", [("note", {"text": "kept"})])
    arguments = {"time": 5.0, **extra}
    with pytest.raises(BadEntry) as info:
        log.append(kind, payload, **arguments)
    assert fragment in info.value.message
    log.close()
    assert [e.payload for e in read_log(tmp_path / "g.db").entries] == [{"text": "kept"}]


def test_a_new_log_never_overwrites_a_file(tmp_path):
    make_log(tmp_path / "g.db").close()
    with pytest.raises(LogExists):
        SessionLog.create(tmp_path / "g.db", toy_header())


def test_jsonl_export_round_trips_with_the_same_checksums(tmp_path):
    _filled(tmp_path / "g.db", 10).close()
    contents = read_log(tmp_path / "g.db")
    buffer = io.StringIO()
    write_jsonl(contents, buffer)
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 11
    assert json.loads(lines[0])["format_version"] == FORMAT_VERSION
    (tmp_path / "g.jsonl").write_text(buffer.getvalue())
    exported = read_log(tmp_path / "g.jsonl")
    assert exported.format == "jsonl" and exported.header == contents.header
    assert exported.entries == contents.entries
    write_sqlite(exported, tmp_path / "again.db").close()
    assert read_log(tmp_path / "again.db").entries == contents.entries


def test_a_hand_written_export_without_checksums_is_accepted(tmp_path):
    header = toy_header().to_dict()
    entry = {
        "seq": 1,
        "time": 1.0,
        "source": "script",
        "confidence": None,
        "kind": "action",
        "payload": ADD,
        "events": [],
    }
    (tmp_path / "h.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    contents = read_log(tmp_path / "h.jsonl")
    assert contents.entries[0].payload == ADD and len(contents.entries[0].checksum) == 64


# -- damage -------------------------------------------------------------------------------


def _jsonl_lines(tmp_path, n=12):
    _filled(tmp_path / "g.db", n).close()
    buffer = io.StringIO()
    write_jsonl(read_log(tmp_path / "g.db"), buffer)
    return buffer.getvalue().splitlines(keepends=True)


def test_a_truncated_jsonl_names_the_first_bad_entry_and_keeps_the_rest(tmp_path):
    lines = _jsonl_lines(tmp_path)
    text = "".join(lines)
    cut = text[: len(text) - len(lines[-1]) // 2]  # half of entry 12 is lost
    (tmp_path / "cut.jsonl").write_text(cut)
    with pytest.raises(LogCorrupt) as info:
        read_log(tmp_path / "cut.jsonl")
    assert info.value.index == 12
    assert [e.seq for e in info.value.entries] == list(range(1, 12))
    assert info.value.entries == read_log(tmp_path / "g.db").entries[:11]
    assert info.value.to_dict()["error"] == "LogCorrupt"


@pytest.mark.parametrize(
    "damage, index",
    [
        (lambda lines: lines[:5] + lines[6:], 5),  # entry 5 missing
        (lambda lines: lines[:7] + [lines[7].replace('"amount":1', '"amount":3')] + lines[8:], 7),  # changed
        (lambda lines: lines[:3] + ["{not json\n"] + lines[4:], 3),
        (lambda lines: lines[:9] + [lines[9].replace('"keyboard"', '"pigeon"')] + lines[10:], 9),
        (lambda lines: [lines[0].replace('"game":"toy"', '"game":"tox"')] + lines[1:], 1),  # header changed
    ],
)
def test_damaged_jsonl_is_named_at_the_first_bad_entry(tmp_path, damage, index):
    lines = damage(_jsonl_lines(tmp_path))
    (tmp_path / "bad.jsonl").write_text("".join(lines))
    with pytest.raises(LogCorrupt) as info:
        read_log(tmp_path / "bad.jsonl")
    assert info.value.index == index
    assert len(info.value.entries) == index - 1


@pytest.mark.parametrize("fraction", [0.9, 0.6, 0.35])
def test_a_truncated_sqlite_log_is_named_and_the_entries_before_are_readable(tmp_path, fraction):
    from referee.sessionlog import Entry

    notes = [
        Entry(
            seq=i + 1,
            time=float(i),
            source="script",
            confidence=None,
            kind="note",
            payload={"text": f"note {i} " + "x" * 100},
        )
        for i in range(400)
    ]
    SessionLog.create(tmp_path / "g.db", toy_header(), notes).close()  # one transaction
    original = read_log(tmp_path / "g.db").entries
    data = (tmp_path / "g.db").read_bytes()
    (tmp_path / "cut.db").write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(LogCorrupt) as info:
        read_log(tmp_path / "cut.db")
    intact = info.value.entries
    assert 0 < len(intact) < 400
    assert info.value.index == len(intact) + 1
    assert intact == original[: len(intact)]
    assert (tmp_path / "cut.db").read_bytes() == data[: int(len(data) * fraction)]  # untouched


def test_a_changed_byte_inside_an_sqlite_entry_is_found_by_its_checksum(tmp_path):
    _filled(tmp_path / "g.db", 30).close()
    data = bytearray((tmp_path / "g.db").read_bytes())
    at = data.find(b'"player":"Bob"', len(data) // 3)
    assert at > 0
    data[at + 10 : at + 13] = b"Ann"  # still valid JSON, a different action
    (tmp_path / "bad.db").write_bytes(bytes(data))
    with pytest.raises(LogCorrupt) as info:
        read_log(tmp_path / "bad.db")
    assert "checksum" in info.value.message
    assert info.value.entries == read_log(tmp_path / "g.db").entries[: info.value.index - 1]


@pytest.mark.parametrize(
    "content",
    [b"", b"hello, this is a shopping list\n", b'{"format": "something-else"}\n', None, "other-sqlite"],
)
def test_files_that_are_not_logs_are_unreadable(tmp_path, content):
    path = tmp_path / "x.log"
    if content == "other-sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(LogUnreadable):
        read_log(path)


def test_an_unknown_format_version_is_unreadable(tmp_path):
    header = {**toy_header().to_dict(), "format_version": FORMAT_VERSION + 1}
    (tmp_path / "v.jsonl").write_text(json.dumps(header) + "\n")
    with pytest.raises(LogUnreadable, match="version"):
        read_log(tmp_path / "v.jsonl")


def test_a_damaged_log_cannot_be_appended_to(tmp_path):
    lines = _jsonl_lines(tmp_path)
    (tmp_path / "bad.jsonl").write_text("".join(lines[:-1]) + lines[-1][:10])
    with pytest.raises(LogCorrupt) as info:
        read_log(tmp_path / "bad.jsonl")
    # the intact prefix can be saved as a new log and continued
    salvage = LogContents(header=info.value.header, entries=info.value.entries)
    log = write_sqlite(salvage, tmp_path / "saved.db")
    assert log.append("note", {"text": "continued"}, time=9.0).seq == len(info.value.entries) + 1
    log.close()


# -- a killed writer ----------------------------------------------------------------------


def test_a_writer_killed_mid_write_loses_no_committed_entry(tmp_path):
    """The writer prints each entry's number after its commit; we kill it with SIGKILL while it
    keeps writing, then every entry it reported must be in the log, intact and chained."""
    path = tmp_path / "killed.db"
    process = subprocess.Popen(
        [sys.executable, str(HERE / "log_writer.py"), str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    reported: dict[int, str] = {}
    try:
        for line in process.stdout:
            seq, checksum = line.split()
            reported[int(seq)] = checksum
            if len(reported) == 60:
                # the log itself (read by another connection while the writer goes on) has them
                assert len(read_log(path).entries) >= 60
                process.send_signal(signal.SIGKILL)
                break
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL
    contents = read_log(path)  # reopening after the kill: WAL recovery, checksums verified
    assert len(contents.entries) >= 60
    for seq, checksum in reported.items():
        assert contents.entries[seq - 1].checksum == checksum
    log = SessionLog.open(path)  # and it can be continued
    assert log.append("note", {"text": "after the crash"}, time=1.0).seq == len(contents.entries) + 1
    log.close()


def test_two_writers_on_one_log_are_told_apart(tmp_path):
    first = make_log(tmp_path / "g.db")
    second = SessionLog.open(tmp_path / "g.db")
    first.append("note", {"text": "from the first"}, time=1.0)
    from referee.sessionlog import LogConflict

    with pytest.raises(LogConflict):
        second.append("note", {"text": "from the second"}, time=2.0)
    first.close()
    second.close()
    assert [e.payload["text"] for e in read_log(tmp_path / "g.db").entries] == ["from the first"]


def test_threads_sharing_one_log_get_distinct_chained_entries(tmp_path):
    import threading

    from referee.scorekeeper import Scorekeeper

    from .toy_engine import ENGINE as TOY

    keeper = Scorekeeper.start(TOY, {"players": ["Ann", "Bob"]}, tmp_path / "g.db", time=0.0)
    barrier = threading.Barrier(4)

    def worker(n):
        barrier.wait()
        for i in range(15):
            if i % 2:
                keeper.observe({"type": "signal", "player": "Ann", "worker": n, "i": i}, time=float(i))
            else:
                keeper.submit(f"note worker {n} line {i}", time=float(i))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    keeper.close()
    entries = read_log(tmp_path / "g.db").entries  # checksums verified in order
    assert [e.seq for e in entries] == list(range(1, 61))


def test_whole_number_times_and_confidences_read_back_with_valid_checksums(tmp_path):
    log = make_log(tmp_path / "g.db")
    entry = log.append("note", {"text": "at second 5"}, time=5, confidence=1)
    log.close()
    (read,) = read_log(tmp_path / "g.db").entries
    assert read == entry and read.time == 5.0 and isinstance(read.time, float)
