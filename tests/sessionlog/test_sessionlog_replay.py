"""Replay and corrections: a log replays to the same state; corrections are entries, checked."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.scorekeeper import Scorekeeper
from referee.sessionlog import (
    AmendmentIllegal,
    CorrectionBreaksLaterEntry,
    EntryAlreadyUndone,
    NoSuchEntry,
    NothingToUndo,
    first_event_difference,
    read_log,
    replay,
    write_jsonl,
)

from .toy_engine import ENGINE as TOY

SETUP = {"players": ["Ann", "Bob", "Cid"], "options": {"target": 15}}


def _keeper(tmp_path, name="g.db", setup=SETUP):
    return Scorekeeper.start(TOY, setup, tmp_path / name, time=1_700_000_000.0)


def _play(keeper, *lines):
    outcomes = [keeper.submit(line, time=1_700_000_100.0 + i) for i, line in enumerate(lines)]
    return outcomes


def test_replay_reproduces_the_state(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3", "note Cid is thinking", "Cid 1", "Ann 3")
    result = replay(read_log(tmp_path / "g.db"), TOY)
    assert result.legal and result.applied == 4
    assert result.state.snapshot() == keeper.state.snapshot()
    assert result.state.snapshot()["total"] == 9


def test_undo_is_an_entry_and_replay_applies_it(tmp_path):
    keeper = _keeper(tmp_path)
    outcomes = _play(keeper, "Ann 2", "Bob 3", "undo")
    assert outcomes[2].accepted and outcomes[2].entry.kind == "correction"
    assert outcomes[2].entry.payload == {"op": "undo", "target": 2}
    assert keeper.state.snapshot()["total"] == 2
    entries = read_log(tmp_path / "g.db").entries
    assert [e.kind for e in entries] == ["action", "action", "correction"]  # nothing rewritten
    assert entries[1].payload["action"] == {"kind": "add", "player": "Bob", "amount": 3}
    assert replay(read_log(tmp_path / "g.db"), TOY).state.snapshot() == keeper.state.snapshot()


def test_amend_replaces_an_action_and_later_entries_follow(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3", "Cid 1")
    outcome = keeper.submit("amend 1 Ann 1", time=5.0)
    assert outcome.accepted, outcome.message
    assert keeper.state.snapshot()["history"] == [["Ann", 1], ["Bob", 3], ["Cid", 1]]
    assert outcome.events[0] == {"kind": "amended", "entry": 1}
    assert [e["total"] for e in outcome.events[1:]] == [1, 4, 5]  # the re-applied entries' events
    assert replay(read_log(tmp_path / "g.db"), TOY).state.snapshot() == keeper.state.snapshot()


def test_a_correction_that_breaks_a_later_entry_is_refused_by_name(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3", "Cid 1")
    before = keeper.state.snapshot()
    outcome = keeper.submit("undo 1", time=5.0)  # Bob's move (entry 2) would come out of turn
    assert not outcome.accepted
    assert isinstance(outcome.error, CorrectionBreaksLaterEntry)
    assert outcome.error.details["entry"] == 2 and outcome.error.details["violation"] == "NotYourTurn"
    assert keeper.state.snapshot() == before
    assert len(read_log(tmp_path / "g.db").entries) == 3  # nothing written


def test_an_amend_whose_new_action_is_illegal_is_refused(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3")
    outcome = keeper.submit("amend 2 Cid 1", time=5.0)
    assert isinstance(outcome.error, AmendmentIllegal)
    assert outcome.error.details["violation"] == "NotYourTurn"


def test_a_correction_that_ends_the_game_early_refuses_later_moves(tmp_path):
    keeper = _keeper(tmp_path, setup={"players": ["Ann", "Bob"], "options": {"target": 6}})
    _play(keeper, "Ann 1", "Bob 1", "Ann 1")
    outcome = keeper.submit("amend 2 Bob 3", time=5.0)  # fine: total 5 < 6
    assert outcome.accepted
    keeper2 = _keeper(tmp_path, "h.db", setup={"players": ["Ann", "Bob"], "options": {"target": 3}})
    _play(keeper2, "Ann 1", "Bob 1")
    outcome = keeper2.submit("amend 1 Ann 3", time=5.0)  # Ann would have won: Bob's move is too late
    assert isinstance(outcome.error, CorrectionBreaksLaterEntry)
    assert outcome.error.details["violation"] == "GameAlreadyOver"


@pytest.mark.parametrize(
    "line, error",
    [("undo 2", NoSuchEntry), ("undo 9", NoSuchEntry), ("amend 2 Bob 1", NoSuchEntry)],
)
def test_corrections_of_non_actions_are_named(tmp_path, line, error):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "note a note is not an action")
    assert isinstance(keeper.submit(line, time=5.0).error, error)


def test_undoing_twice_and_undoing_nothing_are_named(tmp_path):
    keeper = _keeper(tmp_path)
    assert isinstance(keeper.submit("undo", time=1.0).error, NothingToUndo)
    _play(keeper, "Ann 2", "undo")
    assert isinstance(keeper.submit("undo 1", time=2.0).error, EntryAlreadyUndone)


def test_observations_are_logged_and_never_change_the_state(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2")
    before = keeper.state.snapshot()
    outcome = keeper.observe(
        {"type": "signal", "player": "Bob", "signal": "touch_nose_left", "start": 3.2, "end": 3.9},
        time=1_700_000_200.0,
        source="camera",
        confidence=0.71,
    )
    assert outcome.entry.kind == "observation" and outcome.entry.source == "camera"
    assert keeper.state.snapshot() == before
    contents = read_log(tmp_path / "g.db")
    assert contents.entries[-1].payload["signal"] == "touch_nose_left"
    assert replay(contents, TOY).state.snapshot() == before


def test_a_tampered_log_reports_the_first_illegal_entry(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3")
    contents = read_log(tmp_path / "g.db")
    import dataclasses

    bad = dataclasses.replace(
        contents.entries[1], payload={"action": {"kind": "add", "player": "Cid", "amount": 1}}, checksum=""
    )
    contents.entries[1] = bad
    result = replay(contents, TOY)
    assert not result.legal
    assert result.violation_entry == 2 and result.violation.name == "NotYourTurn"
    assert result.state.snapshot()["total"] == 2  # the state before the bad entry


# -- property: any sequence of lines, legal or not, replays to the live state -----------------

LINE = st.one_of(
    st.builds(lambda p, n: f"{p} {n}", st.sampled_from(["Ann", "Bob", "Cid", "Dan"]), st.integers(0, 4)),
    st.just("undo"),
    st.builds(lambda n: f"undo {n}", st.integers(1, 12)),
    st.builds(
        lambda n, p, a: f"amend {n} {p} {a}",
        st.integers(1, 12),
        st.sampled_from(["Ann", "Bob", "Cid"]),
        st.integers(1, 3),
    ),
    st.builds(lambda t: f"note {t}", st.text("abc xyz", min_size=1, max_size=8).filter(str.strip)),
    st.sampled_from(["show", "history", "nonsense words", ""]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(LINE, max_size=25))
def test_any_session_replays_to_the_live_state(tmp_path_factory, lines):
    folder = tmp_path_factory.mktemp("prop")
    keeper = _keeper(folder)
    accepted = 0
    for i, line in enumerate(lines):
        outcome = keeper.submit(line, time=1_700_000_000.0 + i)
        if outcome.entry is not None:
            accepted += 1
    keeper.close()
    contents = read_log(folder / "g.db")
    assert len(contents.entries) == accepted
    result = replay(contents, TOY, keep_events=True)
    assert result.legal
    assert result.state.snapshot() == keeper.state.snapshot()
    assert first_event_difference(contents, result) is None
    buffer = io.StringIO()
    write_jsonl(contents, buffer)
    (folder / "g.jsonl").write_text(buffer.getvalue())
    assert replay(read_log(folder / "g.jsonl"), TOY).state.snapshot() == keeper.state.snapshot()
    resumed = Scorekeeper.resume(folder / "g.db", engine=TOY)
    assert resumed.state.snapshot() == keeper.state.snapshot()
    resumed.close()


def test_history_lists_the_actions_in_effect_with_amends(tmp_path):
    keeper = _keeper(tmp_path)
    _play(keeper, "Ann 2", "Bob 3", "Cid 1", "undo", "amend 1 Ann 1")
    assert keeper.history().splitlines() == ["#1 Ann 1  (amended by #5)", "#2 Bob 3"]
    assert keeper.view("Ann")["total"] == 4
    assert keeper.submit("history", time=1.0).message == keeper.history()
