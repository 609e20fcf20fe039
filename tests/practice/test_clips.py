"""The quiz clips on disk (tablereferee/practice/clips.py): the drills' clips are capped, the
oldest going first; a session's are not counted against the cap."""

from __future__ import annotations

from tablereferee.practice.clips import ClipStore


def test_the_drills_clips_on_disk_are_capped_the_oldest_going_first(tmp_path):
    store = ClipStore(tmp_path)
    made = [store.add("Anna", (None, None), [b"\xff\xd8"] * 3, 10.0, f"drill {k}") for k in range(5)]
    session = store.add("Bruno", (None, None), [b"\xff\xd8"] * 3, 10.0, "session s", kind="session")
    assert store.prune(keep=2) == 3
    assert {c.id for c in store.all()} == {made[3].id, made[4].id, session.id}


def test_a_signal_entry_without_its_moment_is_left_out_of_the_cut(tmp_path):
    """A log's signal observation that lost its start and end (a damaged or hand-edited log)
    gives no clip, and the rest of the session is still cut (no 500 for the quiz)."""
    import dataclasses  # deferred: only this test rewrites a log in memory

    from referee.sessionlog import read_log
    from tablereferee.practice.sessions import cuts
    from tablereferee.recording.folder import SessionFolder
    from tests.practice.tables import demo_sessions

    folder = SessionFolder.open(demo_sessions(tmp_path) / "demo")
    contents = read_log(folder.log_path)
    whole = cuts(folder, contents, {"raise_hand_right"})
    assert any(c.truth_signal == "raise_hand_right" for c in whole)
    entries = [
        dataclasses.replace(e, payload={k: v for k, v in e.payload.items() if k not in ("start", "end")})
        if e.kind == "observation" and e.payload.get("type") == "signal"
        else e
        for e in contents.entries
    ]
    damaged = cuts(folder, dataclasses.replace(contents, entries=entries), {"raise_hand_right"})
    assert damaged and not any(c.truth_signal for c in damaged)  # the "nobody" stretches only
