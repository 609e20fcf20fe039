"""Two scorekeepers on one log (the web server and a terminal `referee play` on the same table):
each sees what the other saved, checks its own line against it, and the log stays one chain."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee.core import get_engine
from referee.scorekeeper import Scorekeeper
from referee.sessionlog import LogConflict, SessionLog, read_log, replay

REPO = Path(__file__).resolve().parents[2]
SIX = ["Nicola", "Simona", "Claudia", "Federico", "Cecilia", "Mariano"]
TEAMS = {"Reds": ["Nicola", "Claudia", "Cecilia"], "Blues": ["Simona", "Federico", "Mariano"]}
EGGS = ["egg star-3", "egg dollar-1", "egg moon-2", "egg sun-5", "egg dollar-6"]


@pytest.fixture
def two(tmp_path):
    web = Scorekeeper.start(get_engine("beccato"), {"players": SIX, "teams": TEAMS}, tmp_path / "g.db", time=0.0)
    terminal = Scorekeeper.resume(tmp_path / "g.db")
    yield web, terminal
    web.close()
    terminal.close()


def test_a_line_saved_by_one_is_in_the_others_state_before_its_next_line(two):
    web, terminal = two
    for i, line in enumerate(EGGS):
        keeper = web if i % 2 == 0 else terminal  # the two take turns: each must see the other's eggs
        outcome = keeper.submit(line, time=float(i))
        assert outcome.accepted, outcome.message
        assert outcome.entry is not None and outcome.entry.seq == i + 1
    assert terminal.submit("coccode Nicola", time=5.0).accepted
    # The reveal is legal only after the call the terminal saved: the web checks it against that.
    outcome = web.submit("reveal Claudia orloff orloff orloff", time=6.0)
    assert outcome.accepted, outcome.message
    assert terminal.sync()[0].seq == 7  # the terminal reads the reveal it did not type
    assert web.state.snapshot() == terminal.state.snapshot()
    assert replay(read_log(web.log.path)).state.snapshot() == web.state.snapshot()


def test_an_illegal_line_after_the_others_change_is_refused_and_saves_nothing(two):
    web, terminal = two
    for i, line in enumerate(EGGS):
        assert web.submit(line, time=float(i)).accepted
    assert web.submit("coccode Nicola", time=5.0).accepted
    # The terminal has not shown the call yet; a second call now is checked against it.
    outcome = terminal.submit("coccode Simona", time=6.0)
    assert not outcome.accepted
    assert outcome.error is not None and outcome.error.name != "LogConflict"
    assert len(read_log(web.log.path).entries) == 6


def test_an_undo_typed_in_one_undoes_the_others_last_action(two):
    web, terminal = two
    for i, line in enumerate(EGGS[:3]):
        assert web.submit(line, time=float(i)).accepted
    outcome = terminal.submit("undo", time=3.0)
    assert outcome.accepted, outcome.message
    assert outcome.events[0] == {"kind": "undone", "entry": 3}
    web.sync()
    assert list(web.actions) == [1, 2]


def test_the_log_refuses_an_append_from_a_writer_that_has_not_read_the_others(tmp_path):
    first = Scorekeeper.start(get_engine("beccato"), {"players": SIX, "teams": TEAMS}, tmp_path / "g.db", time=0.0)
    second = SessionLog.open(tmp_path / "g.db")
    assert first.submit(EGGS[0], time=0.0).accepted
    assert second.changed()
    with pytest.raises(LogConflict, match="written by another process"):
        second.append("note", {"text": "late"}, time=1.0)
    assert [e.seq for e in second.refresh()] == [1]
    assert not second.changed()
    assert second.append("note", {"text": "now in order"}, time=1.0).seq == 2
    first.close()
    second.close()
    assert [e.kind for e in read_log(tmp_path / "g.db").entries] == ["action", "note"]


WRITER = textwrap.dedent(
    """
    import sys
    from referee.scorekeeper import Scorekeeper
    keeper = Scorekeeper.resume(sys.argv[1])
    for i in range(int(sys.argv[3])):
        assert keeper.note(f"{sys.argv[2]} {i}", time=float(i)).accepted
    keeper.close()
    """
)


def test_two_processes_appending_at_once_keep_every_entry_in_one_chain(tmp_path):
    keeper = Scorekeeper.start(get_engine("beccato"), {"players": SIX, "teams": TEAMS}, tmp_path / "g.db", time=0.0)
    keeper.close()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "g.db"), name, "60"], cwd=REPO)
        for name in ("web", "terminal")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    contents = read_log(tmp_path / "g.db")  # the chain of checksums and the entry count agree
    assert contents.count_problem is None
    texts = [e.payload["text"] for e in contents.entries]
    assert sorted(texts) == sorted(f"{n} {i}" for n in ("web", "terminal") for i in range(60))
    assert [e.seq for e in contents.entries] == list(range(1, 121))
