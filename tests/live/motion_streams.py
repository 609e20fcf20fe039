"""Recorded card-camera streams of one card arriving in the trick zone: slid, tossed, placed.

The table is modelled in card-lengths (the card's long edge = 1), the card's resting place at
(0, 0); `Table` maps it into the picture (pixels per card-length, a turn, an offset), so a test
can move or turn the whole table. A camera `CAMERA_HEIGHT` card-lengths above the cloth sees a
card h card-lengths above the cloth `CAMERA_HEIGHT / (CAMERA_HEIGHT - h)` times bigger. Frames are
sampled at any rate (with a phase and dropped frames); each is a `CardsSeen` built like the live
card stage builds it (face id, confidence, face up, zone, corners), and, where asked, a
`HandsSeen` of the fingertips.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

from referee.observations import HandsSeen, HandTips
from referee.table import CardReading, CardsSeen, TableZones, Zone

CAMERA_HEIGHT = 10.0  # card-lengths (about 90 cm for a 9 cm card)
CARD_W = 0.62  # short edge, card-lengths
SETTLE = 1.2  # seconds the card lies at rest after landing in every stream


@dataclasses.dataclass(frozen=True)
class Table:
    scale: float = 100.0  # pixels per card-length
    angle: float = 0.0  # degrees the whole table is turned in the picture
    offset: tuple[float, float] = (640.0, 360.0)  # where the card's resting place appears

    def px(self, x: float, y: float) -> tuple[float, float]:
        a = math.radians(self.angle)
        return (
            self.offset[0] + self.scale * (x * math.cos(a) - y * math.sin(a)),
            self.offset[1] + self.scale * (x * math.sin(a) + y * math.cos(a)),
        )

    def zones(self, camera: str = "cards") -> TableZones:
        """The trick zone: 6.8 x 3.6 card-lengths around the card's resting place."""
        poly = tuple(self.px(x, y) for x, y in ((-3.4, -1.8), (3.4, -1.8), (3.4, 1.8), (-3.4, 1.8)))
        return TableZones([Zone("trick", camera, poly, "trick")])


@dataclasses.dataclass(frozen=True)
class Pose:
    """Where the card is at one moment: table position, height above the cloth, turn (degrees)."""

    x: float
    y: float
    h: float = 0.0
    turn: float = 0.0


@dataclasses.dataclass(frozen=True)
class Motion:
    """A card's motion: `pose(s)` for s in 0..1 over `duration` seconds, landing at `t_land`;
    `visible_from` (seconds before landing) hides it earlier; `hand(s)` where the fingertips
    are (None: no hand near the table) during the motion and for `hand_after` s after landing."""

    name: str
    t_land: float
    duration: float
    pose: Callable[[float], Pose]
    hand: Callable[[float], tuple[float, float] | None]
    hand_after: float = 0.0
    visible_from: float | None = None


def slide(
    t_land: float = 1.0,
    start: tuple[float, float] = (4.0, 0.4),
    duration: float = 0.6,
    turn: float = 10.0,
    end: tuple[float, float] = (0.0, 0.0),
) -> Motion:
    """Pushed along the cloth from the player's edge (`start`, from `end`), slowing down,
    fingertips on its back, to lie at `end`."""

    def pose(s: float) -> Pose:
        e = 1 - (1 - s) ** 2
        return Pose(end[0] + start[0] * (1 - e), end[1] + start[1] * (1 - e), 0.0, turn * (1 - e))

    def hand(s: float):
        p = pose(min(s, 1.0))
        n = math.hypot(*start) or 1.0
        return (p.x + 0.45 * start[0] / n, p.y + 0.45 * start[1] / n)

    return Motion("slide", t_land, duration, pose, hand, hand_after=0.2)


def toss(
    t_land: float = 1.0,
    start: tuple[float, float] = (3.0, 1.0),
    height: float = 2.5,
    duration: float = 0.3,
    turn: float = 100.0,
) -> Motion:
    """Released above the table from the player's side, falling and spinning; the hand stays back."""

    def pose(s: float) -> Pose:
        return Pose(start[0] * (1 - s), start[1] * (1 - s), height * (1 - s * s), turn * (1 - s))

    n = math.hypot(*start) or 1.0
    back = (start[0] + 0.8 * start[0] / n, start[1] + 0.8 * start[1] / n)  # behind where it was let go
    return Motion("toss", t_land, duration, pose, lambda s: back)


def placed(
    t_land: float = 1.0, start: tuple[float, float] = (0.5, 0.3), height: float = 0.3, duration: float = 0.35
) -> Motion:
    """Carried in the fingers the last half card-length, set down, held a moment, let go."""

    def pose(s: float) -> Pose:
        return Pose(start[0] * (1 - s), start[1] * (1 - s), height * (1 - s), 0.0)

    def hand(s: float):
        p = pose(min(s, 1.0))
        return (p.x + 0.3, p.y + 0.2)

    return Motion("placed", t_land, duration, pose, hand, hand_after=0.4)


def appears(t_land: float = 1.0, hand_on: bool = False) -> Motion:
    """First seen lying in its place (tossed from out of view, or set down under a hand)."""
    return Motion(
        "appears",
        t_land,
        0.0,
        lambda s: Pose(0.0, 0.0),
        (lambda s: (0.2, 0.1)) if hand_on else (lambda s: None),
        hand_after=0.4 if hand_on else 0.0,
    )


def corners(table: Table, p: Pose) -> tuple[tuple[float, float], ...]:
    k = CAMERA_HEIGHT / (CAMERA_HEIGHT - p.h)
    a = math.radians(p.turn)
    ca, sa = math.cos(a), math.sin(a)
    out = []
    # portrait card, long edge along the table's y: top-left, top-right, bottom-right, bottom-left
    for dx, dy in ((-CARD_W / 2, -0.5), (CARD_W / 2, -0.5), (CARD_W / 2, 0.5), (-CARD_W / 2, 0.5)):
        x, y = (dx * ca - dy * sa) * k, (dx * sa + dy * ca) * k
        out.append(table.px(p.x + x, p.y + y))
    return tuple((round(u, 1), round(v, 1)) for u, v in out)


def stream(
    motion: Motion,
    card: str = "AS",
    *,
    fps: float = 10.0,
    table: Table = Table(),
    phase: float = 0.0,
    drop: Sequence[int] = (),
    hands: bool = False,
    camera: str = "cards",
    t_end: float | None = None,
    confidence: float = 0.95,
    others: Sequence[tuple[str, Pose]] = (),
) -> list:
    """The frames (and, with `hands`, the hands) a card camera reports, oldest first, from 0.2 s
    before the motion starts to `SETTLE` s after landing. `drop`: frame numbers lost; `others`:
    cards lying still all along (face id, pose)."""
    zones = table.zones(camera)
    t0 = motion.t_land - motion.duration - 0.2
    t_end = motion.t_land + SETTLE if t_end is None else t_end
    shown = motion.t_land - (motion.visible_from if motion.visible_from is not None else motion.duration)
    out: list = []
    i = 0
    while True:
        t = round(t0 + (i + phase) / fps, 4)
        if t >= t_end:
            break
        if i in drop:
            i += 1
            continue
        cards: tuple[CardReading, ...] = tuple(
            _reading(table, zones, camera, face, pose, confidence) for face, pose in others
        )
        s = 1.0 if motion.duration <= 0 else (t - (motion.t_land - motion.duration)) / motion.duration
        if t >= shown - 1e-9:
            cards += (_reading(table, zones, camera, card, motion.pose(min(max(s, 0.0), 1.0)), confidence),)
        out.append(CardsSeen(t, camera, cards, i))
        if hands:
            tips = None
            if t <= motion.t_land + motion.hand_after + 1e-9 and s >= -0.01:
                tips = motion.hand(min(max(s, 0.0), 1.0))
            tip_list = () if tips is None else (HandTips(_fingers(table, tips)),)
            out.append(HandsSeen(t, camera, tip_list))
        i += 1
    return out


def _reading(
    table: Table, zones: TableZones, camera: str, face: str | None, pose: Pose, confidence: float
) -> CardReading:
    q = corners(table, pose)
    cx, cy = sum(u for u, _ in q) / 4, sum(v for _, v in q) / 4
    return CardReading(face, confidence, True, zones.locate(camera, [(cx, cy)])[0], q)


def _fingers(table: Table, at: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """Ten finger points (tips and pads) around `at`, table card-lengths, in pixels."""
    pts = []
    for k in range(5):
        dx = (k - 2) * 0.08
        pts.append(table.px(at[0] + dx, at[1]))
        pts.append(table.px(at[0] + dx, at[1] + 0.12))
    return tuple(pts)


def cards_only(items: Sequence) -> list[CardsSeen]:
    return [x for x in items if isinstance(x, CardsSeen)]


def hands_only(items: Sequence) -> list[HandsSeen]:
    return [x for x in items if isinstance(x, HandsSeen)]


# -- the same leads as pictures, for the live card stage ------------------------------------------

PICTURE = (1280, 720)
RENDER_TABLE = Table(scale=110.0, angle=0.0, offset=(640.0, 360.0))  # 110 px a card-length


def cloth(seed: int):
    """A green card-table cloth, PICTURE sized, BGR float32."""
    import cv2
    import numpy as np

    w, h = PICTURE
    g = np.random.default_rng(seed)
    noise = cv2.resize(cv2.GaussianBlur(g.normal(0, 1, (h // 4, w // 4)).astype(np.float32), (0, 0), 2), (w, h))
    base = np.array([38, 92, 34], np.float32)
    return np.clip(base[None, None, :] * (1 + 0.06 * noise[..., None]), 0, 255)


def rendered_frames(
    motion: Motion,
    face: str,
    *,
    fps: float = 10.0,
    seed: int = 0,
    table: Table = RENDER_TABLE,
    exposure: float = 0.01,
    camera: str = "cards",
    settle: float = 0.6,
):
    """`vision.capture.sources.CameraFrame`s of the lead drawn on a cloth (our own Italian face,
    `vision.cards.render`, warped onto the corners `corners` gives: bigger when higher), blurred
    over the exposure (three instants averaged), from 0.2 s before the motion to `settle` s
    after landing. No hands are drawn."""
    import cv2
    import numpy as np

    from vision.capture.sources import CameraFrame
    from vision.cards.decks import card
    from vision.cards.render import card_mask, render_card

    w, h = PICTURE
    img = render_card(card("italian", face), "classic", px_per_mm=4.0)
    mask = card_mask(img.shape[:2], 4.0)
    src = np.float32([[0, 0], [img.shape[1], 0], [img.shape[1], img.shape[0]], [0, img.shape[0]]])
    base = cloth(seed)

    def draw(pose: Pose) -> np.ndarray:
        m = cv2.getPerspectiveTransform(src, np.asarray(corners(table, pose), np.float32))
        warped = cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpPerspective(mask, m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
        return base * (1 - alpha) + warped.astype(np.float32) * alpha

    shown = motion.t_land - motion.duration
    t0 = shown - 0.2
    i = 0
    while True:
        t = round(t0 + i / fps, 4)
        if t >= motion.t_land + settle:
            return
        picture = base
        if t >= shown - 1e-9:
            picture = (
                sum(
                    draw(
                        motion.pose(
                            min(
                                max(
                                    1.0
                                    if motion.duration <= 0
                                    else (t + exposure * (k / 2 - 0.5) - shown) / motion.duration,
                                    0.0,
                                ),
                                1.0,
                            )
                        )
                    )
                    for k in range(3)
                )
                / 3
            )
        yield CameraFrame(camera, i, t, np.clip(picture, 0, 255).astype(np.uint8))
        i += 1
