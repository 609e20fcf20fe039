"""`referee check`, `export` and `play --resume` on damaged, unsigned and foreign files: a named
error with its documented exit code, the entries before the damage kept, never a traceback."""

from __future__ import annotations

import json
import sqlite3

import pytest

from referee.sessionlog import (
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_UNREADABLE,
    SessionLog,
    read_log,
)

from .helpers import toy_header

ENTRIES = 40


def _game(path, n=ENTRIES):
    log = SessionLog.create(path, toy_header(target=10_000))
    players = ["Ann", "Bob"]
    for i in range(n):
        log.append(
            "action",
            {"action": {"kind": "add", "player": players[i % 2], "amount": 1}, "text": f"add {players[i % 2]} 1"},
            time=1_700_000_000.0 + i,
            events=[{"kind": "added", "player": players[i % 2], "amount": 1, "total": i + 1}],
        )
    entries = list(log.entries)
    log.close()
    return entries


def _root_page_damaged(tmp_path):
    """A log whose entries table's root page (an interior page once it has split) is damaged."""
    _game(tmp_path / "g.db", 200)
    conn = sqlite3.connect(tmp_path / "g.db")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'entries'").fetchone()[0]
    conn.close()
    data = bytearray((tmp_path / "g.db").read_bytes())
    at = (root - 1) * 4096
    assert data[at] == 0x05  # an interior table page
    data[at + 12 : at + 20] = b"\xff" * 8  # its first child pointers
    (tmp_path / "g.db").write_bytes(bytes(data))
    return tmp_path / "g.db"


def test_a_damaged_btree_page_is_a_named_error_in_every_command(run, tmp_path):
    path = _root_page_damaged(tmp_path)
    for args in (
        ["check", str(path)],
        ["check", "--json", str(path)],
        ["export", str(path), "out.jsonl"],
        ["export", "--salvage", str(path), "salvaged.jsonl"],
        ["play", "--resume", str(path)],
    ):
        result = run(*args, input="quit\n")
        expected = EXIT_OK if "--salvage" in args else EXIT_CORRUPT
        assert result.exit_code == expected, (args, result.output)
        assert "LogCorrupt" in result.output and "200 entries were saved" in result.output
        assert "Traceback" not in result.output
    # every entry is still on the leaf pages: read from them, each checked on the chain
    assert len(read_log(tmp_path / "salvaged.jsonl").entries) == 200


def test_check_and_salvage_keep_the_last_entry_before_a_page_cut(run, tmp_path):
    entries = _game(tmp_path / "g.db")
    data = (tmp_path / "g.db").read_bytes()
    last_page = (len(data) - 1) // 4096
    (tmp_path / "g.db").write_bytes(data[: last_page * 4096])  # the last page lost
    on_kept_pages = [e for e in entries if data.find(e.checksum.encode()) + 64 <= last_page * 4096]
    result = run("check", "--json", "g.db")
    report = json.loads(result.output)
    assert result.exit_code == EXIT_CORRUPT
    assert report["intact_entries"] == len(on_kept_pages) and report["committed"] == ENTRIES
    assert report["lost_entries"] == ENTRIES - len(on_kept_pages)
    result = run("export", "--salvage", "g.db", "s.jsonl")
    assert result.exit_code == EXIT_OK
    assert read_log(tmp_path / "s.jsonl").entries == on_kept_pages


def _unsigned_edited_export(run, tmp_path):
    _game(tmp_path / "g.db", 6)
    assert run("export", "g.db", "g.jsonl").exit_code == EXIT_OK
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    edited = [lines[0]]
    for line in lines[1:]:
        entry = json.loads(line)
        entry.pop("checksum")
        edited.append(json.dumps(entry))
    edited[3] = edited[3].replace('"amount": 1', '"amount": 3')  # entry 3 changed
    (tmp_path / "e.jsonl").write_text("\n".join(edited) + "\n")
    return tmp_path / "e.jsonl"


def test_an_unsigned_export_is_reported_and_imported_only_when_accepted(run, tmp_path):
    edited = _unsigned_edited_export(run, tmp_path)
    result = run("check", str(edited))
    assert result.exit_code == EXIT_OK
    assert "unsigned: entries 1-6 came without a checksum" in result.output
    assert json.loads(run("check", "--json", str(edited)).output)["unsigned_entries"] == [1, 2, 3, 4, 5, 6]

    result = run("play", "--resume", str(edited), "--log", "r.db", input="quit\n")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnsigned" in result.output
    assert not (tmp_path / "r.db").exists()
    result = run("export", str(edited), "again.jsonl")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnsigned" in result.output
    assert not (tmp_path / "again.jsonl").exists()

    result = run("play", "--resume", str(edited), "--log", "r.db", "--accept-unsigned", input="quit\n")
    assert result.exit_code == EXIT_OK, result.output
    imported = read_log(tmp_path / "r.db")
    notes = [e.payload for e in imported.entries if e.kind == "note"]
    assert [n["unsigned_import"]["entries"] for n in notes if "unsigned_import" in n] == [[1, 2, 3, 4, 5, 6]]
    # the header line kept its signature, which no longer covers the edited entries
    assert [n["unverified_import"]["signature"] for n in notes if "unverified_import" in n] == ["unverified"]
    result = run("check", "r.db")  # the new log keeps saying where its entries came from
    assert result.exit_code == EXIT_OK and "unsigned: entries 1-6" in result.output
    assert run("export", "--accept-unsigned", str(edited), "signed.jsonl").exit_code == EXIT_OK
    assert "unsigned: entries 1-6" in run("check", "signed.jsonl").output


def test_a_signed_export_reads_as_signed_by_this_referee(run, tmp_path):
    _game(tmp_path / "g.db", 6)
    run("export", "g.db", "g.jsonl")
    result = run("check", "g.jsonl")
    assert result.exit_code == EXIT_OK and "unsigned" not in result.output
    assert "signed by this referee" in result.output


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x80\x91\xfe" * 40,  # a video's first bytes
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8",
    ],
)
def test_a_file_that_is_not_a_log_is_exit_3(run, tmp_path, content):
    (tmp_path / "x.mp4").write_bytes(content)
    for args in (["check", "x.mp4"], ["export", "x.mp4", "o.jsonl"], ["play", "--resume", "x.mp4"]):
        result = run(*args, input="quit\n")
        assert result.exit_code == EXIT_UNREADABLE, (args, result.output)
        assert "not a session log" in result.output


def test_export_into_a_folder_that_does_not_exist_is_a_named_error(run, tmp_path):
    _game(tmp_path / "g.db", 3)
    result = run("export", "g.db", "no/such/folder/out.jsonl")
    assert result.exit_code == EXIT_UNREADABLE and "cannot write" in result.output


def test_a_missing_entry_count_is_said_by_check(run, tmp_path):
    _game(tmp_path / "g.db", 3)
    (tmp_path / "g.db-count").unlink()
    result = run("check", "g.db")
    assert result.exit_code == EXIT_OK
    assert "unverified end: the entry count file g.db-count is missing" in result.output
    assert json.loads(run("check", "--json", "g.db").output)["end_verified"] is False
    result = run("play", "--resume", "g.db", input="quit\n")  # resuming counts it again
    assert result.exit_code == EXIT_OK
    assert json.loads(run("check", "--json", "g.db").output)["end_verified"] is True
