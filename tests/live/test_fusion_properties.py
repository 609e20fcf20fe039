"""Properties of the fusion layer (Hypothesis): signals never change the game; a zone that
never holds still never becomes an action; the same stable content is read the same way
whatever the frame rate."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.observations import SignalEvent
from referee.table import CardReading, CardsSeen, TableSession
from tests.live.streams import PLAYERS, SETUP, beccato_zones, frames

ORIGIN = 1_800_000_000.0
SIGNALS = ["touch_nose_left", "wink_right", "raise_hand_right", "tap_table_left", "hum", "talk_sport"]
EGGS = ["egg:star-3", "egg:dollar-1", "egg:moon-2", "egg:sun-4"]


def _session(tmp: str) -> TableSession:
    return TableSession.start("beccato", SETUP, Path(tmp) / "g.db", beccato_zones(), clock_origin=ORIGIN)


signal_events = st.lists(
    st.builds(
        lambda p, s, a, d, c, u: SignalEvent(p, s, a, a + d, c, {}, u),
        st.sampled_from(PLAYERS + ["unknown"]),
        st.sampled_from(SIGNALS),
        st.floats(0, 30),
        st.floats(0, 5),
        st.floats(0, 1),
        st.booleans(),
    ),
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(signal_events)
def test_signals_never_change_the_game(events):
    with tempfile.TemporaryDirectory() as tmp:
        s = _session(tmp)
        s.feed_all(frames(0, 1, {"eggs": ["egg:star-3"]}))
        before = s.state.snapshot()
        n = len(s.log.entries)
        out = s.feed_all(events)
        assert s.state.snapshot() == before
        assert all(d.kind == "signal" for d in out)
        distinct = {(e.player, e.signal, round(e.start, 1)) for e in events}
        assert len(s.log.entries) - n == len(distinct)
        assert all(e.kind == "observation" for e in s.log.entries[n:])
        s.close()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(EGGS + [None]), min_size=2, max_size=40))
def test_a_zone_that_never_holds_still_is_never_read(sequence):
    # Each content lasts at most 2 frames (0.4 s at 5 fps, under the 3-frame dwell).
    with tempfile.TemporaryDirectory() as tmp:
        s = _session(tmp)
        t, k = 0.0, 0
        out = []
        while k < len(sequence):
            run = 1 + (k % 2)
            cards = () if sequence[k] is None else (CardReading(sequence[k], 0.99, True, "eggs"),)
            for _ in range(run):
                out += s.feed(CardsSeen(round(t, 3), "cards", cards))
                t += 0.2
            k += 1
            # change the content every run: skip repeats of the same card
            while k < len(sequence) and sequence[k] == sequence[k - 1]:
                k += 1
        assert [d for d in out if d.kind != "cards"] == []
        assert s.state.waiting_for()["step"] == "draw"
        s.close()


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([5.0, 10.0, 15.0, 30.0]))
def test_the_same_table_is_read_the_same_at_any_frame_rate(fps):
    with tempfile.TemporaryDirectory() as tmp:
        s = _session(tmp)
        s.feed_all(
            frames(0, 1, {"eggs": ["egg:star-3"]}, fps=fps)
            + frames(1, 2, {"eggs": ["egg:star-3", "egg:dollar-1"]}, fps=fps)
        )
        assert [e.payload["action"]["egg"] for e in s.log.entries if e.kind == "action"] == ["star-3", "dollar-1"]
        s.close()
