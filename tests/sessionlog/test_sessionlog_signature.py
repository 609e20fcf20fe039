"""The keyed signature of an export: an export edited and re-chained (its SHA-256 checksums
recomputed, as anyone can) or signed with another referee's key reads as unverified and is
imported only with --accept-unsigned; a genuine export verifies; one without a signature is
missing its signature. The key is the one `tests/conftest.py` names for each test."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest

from referee.sessionlog import (
    EXIT_OK,
    EXIT_UNREADABLE,
    MISSING,
    UNVERIFIED,
    VERIFIED,
    SessionLog,
    read_log,
    signature_status,
)
from referee.sessionlog.signature import SIGNATURE_FIELD
from tablereferee.signing import KEY_BYTES, SigningKeyUnreadable, key_path, load_key

from .helpers import toy_header


def _exported(run, tmp_path, n=5):
    log = SessionLog.create(tmp_path / "g.db", toy_header(target=1000))
    for i in range(n):
        player = ("Ann", "Bob")[i % 2]
        log.append(
            "action",
            {"action": {"kind": "add", "player": player, "amount": 1}, "text": f"{player} 1"},
            time=1_700_000_000.0 + i,
            events=[{"kind": "added", "player": player, "amount": 1, "total": i + 1}],
        )
    log.close()
    assert run("export", "g.db", "g.jsonl").exit_code == EXIT_OK
    return tmp_path / "g.jsonl"


def _j(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _rechain(path, out, edit):
    """What an editor without the key can do: change entries, then recompute every SHA-256
    checksum of the chain (docs/log-format.md, "Checksums"), keeping the header line as it is."""
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    previous = hashlib.sha256(_j({k: header[k] for k in HEADER_KEYS}).encode()).hexdigest()
    rewritten = [lines[0]]
    for line in lines[1:]:
        entry = json.loads(line)
        entry.pop("checksum")
        edit(entry)
        previous = hashlib.sha256((previous + _j(entry)).encode()).hexdigest()
        rewritten.append(_j({**entry, "checksum": previous}))
    out.write_text("\n".join(rewritten) + "\n")
    return out


HEADER_KEYS = ("format", "format_version", "game", "engine_version", "setup", "created")


def _more_for_ann(entry):
    if entry["seq"] == 3:
        entry["payload"]["action"]["amount"] = 3
        entry["payload"]["text"] = "Ann 3"
        entry["events"] = []


def test_a_genuine_export_verifies(run, tmp_path):
    path = _exported(run, tmp_path)
    assert signature_status(read_log(path), load_key()) == VERIFIED
    result = run("check", str(path))
    assert result.exit_code == EXIT_OK and "signed by this referee" in result.output
    assert json.loads(run("check", "--json", str(path)).output)["signature"] == "verified"
    result = run("play", "--resume", str(path), "--log", "r.db", input="Bob 1\n")
    assert result.exit_code == EXIT_OK, result.output
    assert len(read_log(tmp_path / "r.db").entries) == 6


def test_an_edited_and_rechained_export_is_unverified_and_refused(run, tmp_path):
    edited = _rechain(_exported(run, tmp_path), tmp_path / "e.jsonl", _more_for_ann)
    contents = read_log(edited)  # the chain itself is valid: plain SHA-256 finds nothing
    assert contents.unsigned == [] and contents.entries[2].payload["action"]["amount"] == 3
    assert signature_status(contents, load_key()) == UNVERIFIED

    result = run("check", str(edited))
    assert result.exit_code == EXIT_OK
    assert "signed by another referee's key or re-signed: cannot be verified here" in result.output
    assert json.loads(run("check", "--json", str(edited)).output)["signature"] == "unverified"

    result = run("play", "--resume", str(edited), "--log", "r.db", input="quit\n")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnverified" in result.output
    assert not (tmp_path / "r.db").exists()
    result = run("export", str(edited), "again.jsonl")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnverified" in result.output
    assert not (tmp_path / "again.jsonl").exists()

    result = run("play", "--resume", str(edited), "--log", "r.db", "--accept-unsigned", input="quit\n")
    assert result.exit_code == EXIT_OK, result.output
    note = read_log(tmp_path / "r.db").entries[-1].payload["unverified_import"]
    assert note == {"from": str(edited), "signature": "unverified", "entries": [1, 2, 3, 4, 5]}
    # the import keeps saying so, and so does a copy of it signed anew
    assert "imported unverified: entries 1-5" in run("check", "r.db").output
    assert run("export", "r.db", "r.jsonl").exit_code == EXIT_OK
    result = run("check", "r.jsonl")
    assert "signed by this referee" in result.output and "imported unverified: entries 1-5" in result.output


def test_an_export_signed_with_another_key_is_unverified(run, tmp_path, monkeypatch):
    path = _exported(run, tmp_path)
    monkeypatch.setenv("TABLE_REFEREE_KEY_FILE", str(tmp_path / "other.key"))
    assert json.loads(run("check", "--json", str(path)).output)["signature"] == "unverified"
    result = run("play", "--resume", str(path), "--log", "r.db", input="quit\n")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnverified" in result.output


def test_a_signature_changed_to_non_ascii_text_is_unverified_not_an_error(run, tmp_path):
    path = _exported(run, tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header[SIGNATURE_FIELD] = "\x80" + header[SIGNATURE_FIELD][1:]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    assert signature_status(read_log(bad), load_key()) == UNVERIFIED


def test_an_export_without_a_signature_is_missing_it(run, tmp_path):
    path = _exported(run, tmp_path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["signature"]
    bare = tmp_path / "bare.jsonl"  # as written before exports were signed
    bare.write_text("\n".join([_j(header), *lines[1:]]) + "\n")
    assert signature_status(read_log(bare), load_key()) == MISSING
    result = run("check", str(bare))
    assert result.exit_code == EXIT_OK and "unsigned: the export carries no signature" in result.output
    assert json.loads(run("check", "--json", str(bare)).output)["signature"] == "missing"
    result = run("play", "--resume", str(bare), "--log", "r.db", input="quit\n")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnverified" in result.output


def test_a_changed_view_marker_breaks_the_signature(run, tmp_path):
    path = _exported(run, tmp_path)
    text = path.read_text().replace('"game":"toy"', '"game":"toy","view":"all"', 1)
    (tmp_path / "v.jsonl").write_text(text)
    assert json.loads(run("check", "--json", "v.jsonl").output)["signature"] == "unverified"


def test_a_damaged_export_is_salvaged_only_as_unverified(run, tmp_path):
    path = _exported(run, tmp_path)
    lines = path.read_text().splitlines()
    (tmp_path / "cut.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])
    result = run("export", "--salvage", "cut.jsonl", "s.jsonl")
    assert result.exit_code == EXIT_UNREADABLE and "LogUnverified" in result.output
    assert "damaged: the signature covers the whole export" in result.output and "exporting" not in result.output
    checked = run("check", "cut.jsonl")
    assert "signature: damaged: the signature covers the whole export" in checked.output
    result = run("export", "--salvage", "--accept-unsigned", "cut.jsonl", "s.jsonl")
    assert result.exit_code == EXIT_OK, result.output
    assert "imported unverified: entries 1-4" in run("check", "s.jsonl").output
    assert "was damaged" in read_log(tmp_path / "s.jsonl").entries[-1].payload["text"]


def test_the_key_is_made_once_readable_by_its_owner_only(tmp_path):
    key = load_key()
    assert len(key) == KEY_BYTES and load_key() == key
    assert stat.S_IMODE(os.stat(key_path()).st_mode) == 0o600
    assert str(key_path()).startswith(str(tmp_path.parent.parent))  # the test's, not the home's


def test_the_key_path_honours_xdg_config_home(monkeypatch, tmp_path):
    monkeypatch.delenv("TABLE_REFEREE_KEY_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert key_path() == tmp_path / "cfg" / "table-referee" / "signing.key"
    assert len(load_key()) == KEY_BYTES and (tmp_path / "cfg" / "table-referee" / "signing.key").exists()


def test_a_file_that_is_no_key_is_named(run, tmp_path, monkeypatch):
    (tmp_path / "short.key").write_bytes(b"abc")
    monkeypatch.setenv("TABLE_REFEREE_KEY_FILE", str(tmp_path / "short.key"))
    with pytest.raises(SigningKeyUnreadable, match="does not hold a signing key"):
        load_key()
    log = SessionLog.create(tmp_path / "g.db", toy_header())
    log.close()
    result = run("export", "g.db", "g.jsonl")
    assert result.exit_code == EXIT_UNREADABLE and "SigningKeyUnreadable" in result.output
    assert not (tmp_path / "g.jsonl").exists()
