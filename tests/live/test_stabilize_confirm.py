"""The stabiliser's two confirmations: a sure, still content in 2 frames spanning 0.1 s; any
other content (an unread card, a low confidence, a card moving, readings without corners, a
card gone) after the dwell of 3 frames spanning 0.4 s. Flicker shorter than a confirmation never
changes a zone's content; a content held long enough always does (Hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.table import CardReading, CardsSeen, KeyboardLine, TableSession
from referee.table.stabilize import ZoneStabilizer
from tests.live.streams import SETUP, beccato_zones, trick_zones

ORIGIN = 1_800_000_000.0
EGGS = ["egg:star-3", "egg:dollar-1", "egg:moon-2", "egg:sun-4"]
SURE = ZoneStabilizer(beccato_zones()).sure_dwell  # 0.1 s
SLOTS = [(400.0, 260.0), (560.0, 260.0), (720.0, 260.0), (880.0, 260.0)]  # in the eggs / trick zone


def card(face: str | None, x: float, y: float, conf: float = 0.97, zone: str = "eggs", up: bool = True):
    """A card 100 x 150 px centred on (x, y), with its corners."""
    corners = ((x - 50, y - 75), (x + 50, y - 75), (x + 50, y + 75), (x - 50, y + 75))
    return CardReading(face, conf, up, zone, corners)


def seen(t: float, *cards: CardReading) -> CardsSeen:
    return CardsSeen(round(t, 3), "cards", tuple(cards))


def feed(st_: ZoneStabilizer, frames: list[CardsSeen]):
    out = []
    for f in frames:
        out += [c for c in st_.feed(f) if c.zone in ("eggs", "trick")]
    return out


def held(t0: float, n: int, *cards: CardReading, fps: float = 5.0) -> list[CardsSeen]:
    return [seen(t0 + i / fps, *cards) for i in range(n)]


def test_a_sure_still_card_is_confirmed_in_two_frames():
    out = feed(ZoneStabilizer(beccato_zones()), held(1.0, 4, card("egg:star-3", 640, 360)))
    assert len(out) == 1 and out[0].cards == ("egg:star-3",)
    assert out[0].since == 1.0 and out[0].t == 1.2 and out[0].frames == 2


def test_an_unsure_read_waits_the_dwell():
    for reading in (card("egg:star-3", 640, 360, conf=0.85), card(None, 640, 360), card("?", 640, 360)):
        out = feed(ZoneStabilizer(beccato_zones()), held(1.0, 4, reading))
        assert [(c.t, c.frames) for c in out] == [(1.4, 3)]


def test_readings_without_corners_wait_the_dwell():
    out = feed(ZoneStabilizer(beccato_zones()), held(1.0, 4, CardReading("egg:star-3", 0.99, True, "eggs")))
    assert [(c.t, c.frames) for c in out] == [(1.4, 3)]


def test_a_moving_card_waits_the_dwell_and_a_card_slid_through_a_zone_is_never_read():
    # Moving 40 px (0.27 card-lengths) a frame, the same face in the zone: the dwell decides.
    moving = [seen(1.0 + i / 5, card("egg:star-3", 400 + 40 * i, 360)) for i in range(4)]
    assert [(c.t, c.frames) for c in feed(ZoneStabilizer(beccato_zones()), moving)] == [(1.4, 3)]
    # Slid across the zone in two frames and out of it: nothing.
    slid = [seen(1.0, card("egg:star-3", 400, 360)), seen(1.2, card("egg:star-3", 700, 360)), seen(1.4)]
    assert [c for c in feed(ZoneStabilizer(beccato_zones()), slid + held(1.6, 5)) if c.cards] == []


def test_at_a_high_frame_rate_the_sure_confirmation_still_takes_its_time():
    out = feed(ZoneStabilizer(beccato_zones()), held(1.0, 10, card("egg:star-3", 640, 360), fps=30))
    assert len(out) == 1 and out[0].t - out[0].since >= SURE - 1e-9 and out[0].frames == 4


def test_a_hand_hiding_a_card_is_not_sure():
    st_ = ZoneStabilizer(beccato_zones())
    a, b = card("egg:star-3", 400, 360), card("egg:moon-2", 800, 360)
    feed(st_, held(0.0, 3, a, b))
    assert st_.stable("eggs") == (("egg:moon-2", "egg:star-3"), 0)
    # A hand covers b for two frames (0.2 s, 0.4 s), a still and sure: it stays as it was.
    assert feed(st_, held(0.6, 2, a) + held(1.0, 3, a, b)) == []
    # Covered for the whole dwell, the zone does change (and a card laid on top adds fast).
    out = feed(st_, held(1.6, 3, a))
    assert [(c.cards, c.frames) for c in out] == [(("egg:star-3",), 3)]


def test_a_card_turned_up_beside_others_is_sure():
    st_ = ZoneStabilizer(beccato_zones())
    a = card("egg:star-3", 400, 360)
    feed(st_, held(0.0, 3, a, card(None, 800, 360, conf=0.6, up=False)))
    out = feed(st_, held(0.6, 3, a, card("egg:moon-2", 800, 360)))
    assert [(c.cards, c.face_down, c.t) for c in out] == [(("egg:moon-2", "egg:star-3"), 0, 0.8)]


def test_a_card_picked_up_and_put_back_in_the_trick_is_played_once(tmp_path):
    setup = {"players": ["Anna", "Ben", "Carla", "Dan"], "options": {"dealer": "Anna"}}
    session = TableSession.start("beccaccino", setup, tmp_path / "g.db", trick_zones(), clock_origin=ORIGIN)
    session.feed(KeyboardLine(0.1, "declare Dan spade"))
    a = card("3S", 640, 360, conf=0.99, zone="trick")
    out = session.feed_all(held(1.0, 3, a) + held(1.6, 3) + held(2.2, 3, a) + held(2.8, 2))
    plays = [d for d in out if d.kind == "action"]
    assert [d.data["action"]["card"] for d in plays] == ["3S"] and plays[0].t == 1.2
    session.close()


# -- properties -------------------------------------------------------------------------------

fps_ = st.sampled_from([5.0, 10.0, 15.0, 30.0])
layout = st.lists(st.tuples(st.sampled_from(EGGS + [None]), st.floats(0.3, 1.0), st.booleans()), max_size=4)


def readings(items, jitter: float = 0.0):
    return tuple(card(face, SLOTS[i][0] + jitter, SLOTS[i][1], conf, up=up) for i, (face, conf, up) in enumerate(items))


def key_of(rs) -> tuple[tuple[str, ...], int]:
    return tuple(sorted(r.card or "?" for r in rs if r.face_up)), sum(1 for r in rs if not r.face_up)


@settings(max_examples=60, deadline=None)
@given(fps_, layout, st.lists(st.tuples(layout, st.integers(1, 3), st.booleans()), min_size=1, max_size=15))
def test_flicker_shorter_than_a_confirmation_never_changes_a_zone(fps, start, flicker):
    st_ = ZoneStabilizer(beccato_zones())
    frames = held(0.0, 3, *readings(start), fps=fps) + [seen(0.4 + 1.0 / fps, *readings(start))]
    feed(st_, frames)
    before = st_.stable("eggs")
    assert before == key_of(readings(start))
    t = frames[-1].t + 1 / fps
    last = key_of(readings(start))
    out = []
    for items, n, moving in flicker:
        rs = readings(items)
        if key_of(rs) == last:
            continue  # the same content again would lengthen the run before: not a flicker
        # Shorter than the sure confirmation (a frame, or frames spanning under 0.1 s) and
        # than the dwell (under 3 frames or 0.4 s), moving or not.
        n = min(n, max(1, int(SURE * fps - 1e-6)))
        for i in range(n):
            out += feed(st_, [seen(t, *readings(items, jitter=60.0 * i if moving else 0.0))])
            t += 1 / fps
        last = key_of(rs)
    assert out == [] and st_.stable("eggs") == before


@settings(max_examples=60, deadline=None)
@given(fps_, st.lists(layout, max_size=6), layout, st.booleans())
def test_a_content_held_long_enough_always_becomes_the_zone(fps, history, final, moving):
    st_ = ZoneStabilizer(beccato_zones())
    t = 0.0
    for items in history:  # whatever came before: one or two frames of anything
        feed(st_, [seen(t, *readings(items))])
        t += 1 / fps
    rs = readings(final)
    n = max(3, int(round(0.4 * fps)) + 1)  # 3 frames spanning 0.4 s or more
    for i in range(n):
        feed(st_, [seen(t, *readings(final, jitter=60.0 * i if moving else 0.0))])
        t += 1 / fps
    assert st_.stable("eggs") == key_of(rs)


@settings(max_examples=60, deadline=None)
@given(fps_, st.lists(st.sampled_from(EGGS), min_size=1, max_size=4, unique=True))
def test_a_sure_still_content_is_confirmed_within_the_sure_dwell(fps, faces):
    st_ = ZoneStabilizer(beccato_zones())
    n = max(2, int(round(SURE * fps + 0.5)) + 1)
    out = feed(st_, held(0.0, n, *readings([(f, 0.95, True) for f in faces]), fps=fps))
    assert len(out) == 1 and SURE - 1e-9 <= out[0].t - out[0].since < SURE + 1.0 / fps + 1e-9


def test_the_demo_table_on_the_session_uses_the_same_rules():
    with tempfile.TemporaryDirectory() as tmp:
        s = TableSession.start("beccato", SETUP, Path(tmp) / "g.db", beccato_zones(), clock_origin=ORIGIN)
        out = s.feed_all(held(1.0, 3, card("egg:star-3", 640, 360, conf=0.97)))
        actions = [d for d in out if d.kind == "action"]
        assert len(actions) == 1 and actions[0].t == 1.2
        s.close()
