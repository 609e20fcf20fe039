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
