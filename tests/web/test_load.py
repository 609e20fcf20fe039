"""Load: 20 phones on loopback WebSockets making calls against a real `referee serve` process.
Every round all 20 tap Coccodé at once (one is accepted, 19 refused by name), the player to show
their hand reveals, the scorer undoes both. Nothing is lost: every accepted call has its own entry,
in order, in the log the server wrote; every refusal is a named 4xx; every phone's WebSocket stays
open and brings the last version. The suite runs it ~10 s; the 5-minute run is `-m slow`."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.sessionlog import SessionLog
from tests.web.browser import Phones, Report
from tests.web.conftest import EGGS, Served

REFUSED = {"CallInProgress", "OutOfOrder", "NotWaitingFor", "NoCallToResolve"}  # a call that lost the race


def check(report: Report, phones: Phones, served: Served, log: Path, rounds_at_least: int) -> None:
    assert report.failures == []
    assert report.rounds >= rounds_at_least, report
    # every accepted call has its own entry, one after another: none lost, none twice
    assert sorted(report.accepted) == report.accepted == list(range(1, len(report.accepted) + 1))
    assert sum(report.refused.values()) == report.rounds * (len(phones.phones) - 1)
    assert set(report.refused) <= REFUSED, report.refused
    late = phones.settled(report.final_version)
    assert late == [], [(p.player, p.versions[-1:]) for p in late]
    assert all(p.errors == [] for p in phones.phones), [p.errors for p in phones.phones if p.errors]
    last = phones.phones[0].seen[-1][1]
    assert last["events"][-1]["entry"] == report.accepted[-1]
    served.stop()
    written = SessionLog.open(log)
    try:
        entries = [e for e in written.entries if e.kind in ("action", "correction")]
        assert [e.seq for e in entries] == report.accepted  # the log holds what was accepted, and only that
    finally:
        written.close()


def test_twenty_phones_call_for_ten_seconds_and_nothing_is_lost(served: Served, tmp_path: Path):
    with Phones(served.url, served.code, served.scorer, per_player=5) as phones:
        assert len(phones.phones) == 20
        report = phones.play(seconds=10, first=tuple(EGGS))
        check(report, phones, served, tmp_path / "served.db", rounds_at_least=5)


@pytest.mark.slow
def test_twenty_phones_call_for_five_minutes_and_nothing_is_lost(served: Served, tmp_path: Path):
    with Phones(served.url, served.code, served.scorer, per_player=5) as phones:
        report = phones.play(seconds=300, first=tuple(EGGS))
        check(report, phones, served, tmp_path / "served.db", rounds_at_least=100)
