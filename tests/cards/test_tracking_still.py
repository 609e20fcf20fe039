"""Read once per card lying still: the card stage reads a card when it appears, moves, turns or is
replaced, and keeps its reading while it lies still (its view unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.cards.helpers import cloth, degrade, place, quad
from vision.capture.sources import CameraFrame
from vision.capture.stages import CardStage
from vision.cards.decks import card
from vision.cards.track import card_view, view_change

LYING = [("chicken:orloff:1", 300, 330, 10), ("henhouse:sussex", 980, 380, -20)]


def table(middle: str = "egg:moon-3", dx: float = 0.0, angle: float = 0.0, seed: int = 0) -> np.ndarray:
    """Three cards on a cloth; each `seed` is another frame of the camera (its own sensor noise
    and a slight exposure change)."""
    img = cloth(720, 1280, seed=0)
    for cid, x, y, a in LYING:
        img = place(img, card("beccato", cid), quad(x, y, 220, a, skew=0.06))
    img = place(img, card("beccato", middle), quad(640 + dx, 360, 220, angle, skew=0.06))
    return degrade(img, seed=seed)


def middle_quad() -> np.ndarray:
    return quad(640, 360, 220, 0, skew=0.06)


def test_a_card_view_ignores_noise_and_exposure_and_sees_another_face():
    q = middle_quad()
    first = card_view(table(seed=0), q)
    assert view_change(card_view(table(seed=1), q), first) < 0.2  # noise, gain, JPEG
    assert view_change(card_view(table(seed=2), q), first) < 0.2
    for other in ("egg:moon-5", "egg:moon-2", "egg:star-3"):  # an egg differs by its number or symbol
        assert view_change(card_view(table(other, seed=1), q), first) > 0.3, other


@pytest.fixture(scope="module")
def stages():
    once = CardStage("cards", deck="beccato", finder="detector", fps=None, threads=1, still_frames=False)
    every = CardStage("cards", deck="beccato", finder="detector", fps=None, threads=1, read_once=False)
    return once, every


def names(stage: CardStage, image: np.ndarray, i: int) -> dict[str, tuple[str | None, float]]:
    """The reading of each card of a frame, by where it lies (left, middle, right)."""
    seen = stage(CameraFrame("cards", i, i / 10, image))
    out = {}
    for r in seen.cards:
        x = np.mean([c[0] for c in r.corners])
        out["left" if x < 500 else "right" if x > 800 else "middle"] = (r.card, r.confidence)
    return out


def test_cards_lying_still_are_read_once_and_read_again_when_they_change(stages):
    once, every = stages
    once.still.reset()
    frames = [table(seed=s) for s in range(4)]  # four frames of the same table
    frames.append(table("egg:moon-5", seed=4))  # the middle egg replaced by another in its place
    frames.append(table("egg:moon-5", seed=5))
    frames.append(table("egg:moon-5", dx=60, seed=6))  # then pushed aside
    frames.append(table("egg:moon-5", dx=60, angle=180, seed=7))  # and turned round where it lies
    read0 = once.still.read
    reused0 = once.still.reused
    got = [names(once, f, i) for i, f in enumerate(frames)]
    want = [names(every, f, i) for i, f in enumerate(frames)]
    assert got == want  # the same readings as reading every card on every frame
    assert [g["middle"][0] for g in got] == ["egg:moon-3"] * 4 + ["egg:moon-5"] * 4
    assert {g["left"][0] for g in got} == {"chicken:orloff"} and {g["right"][0] for g in got} == {"henhouse:sussex"}
    # read: 3 cards on the first frame, then the middle card replaced, moved and turned
    assert once.still.read - read0 == 6
    assert once.still.reused - reused0 == 3 * 8 - 6


def test_a_card_gone_and_back_is_read_again(stages):
    once, _ = stages
    once.still.reset()
    names(once, table(seed=0), 0)
    empty = degrade(cloth(720, 1280, seed=0), seed=1)
    for i in range(1, 1 + once.still.forget):
        assert names(once, empty, i) == {}
    read = once.still.read
    assert names(once, table("egg:star-3", seed=2), 20)["middle"][0] == "egg:star-3"
    assert once.still.read - read == 3  # forgotten: all three read afresh
