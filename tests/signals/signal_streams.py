"""Synthetic landmark streams built from REAL landmarks: MediaPipe's face, pose and hand
points of a real photo (tests/fixtures/people/mptasks_pointing_up.jpg), moved along scripted
trajectories (a hand to the nose, an eye closing, an elbow onto the table...). Used by the
signal tests and by `scripts/bench_signals.py --accuracy` (per-signal precision and recall).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.landmarks.calibration import Seat, TableCalibration
from vision.landmarks.types import FrameLandmarks, Hand, Person
from vision.signals.features import EYE_LID_PAIRS, EYE_OUTER, POSE_HAND, face_targets

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "people"
BASE_IMAGE = FIXTURES / "mptasks_pointing_up.jpg"
LOWER_LIP = (14, 87, 178, 88, 95, 317, 402, 318, 324, 17, 84, 181, 91, 146, 314, 405, 321, 375)
WIDTH, HEIGHT = 1920, 1080
FPS = 15.0


@lru_cache(maxsize=1)
def real_landmarks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face, pose, left hand) of the fixture photo, in its pixels (MediaPipe, static mode)."""
    import cv2

    from vision.landmarks.calibration import whole_frame
    from vision.landmarks.extract import LandmarkExtractor

    img = cv2.imread(str(BASE_IMAGE))
    with LandmarkExtractor(whole_frame("x"), static=True) as ex:
        p = ex.process(img, 0.0).persons[0]
    assert p.face is not None and p.pose is not None and "left" in p.hands, "fixture landmarks missing"
    return p.face.copy(), p.pose.copy(), p.hands["left"].points.copy()


@dataclasses.dataclass
class Body:
    """A player built from the real landmarks, scaled by `scale` and placed at `origin`."""

    face: np.ndarray
    pose: np.ndarray
    hand_up: dict  # side -> (21, 3) points relative to the wrist, fingers up
    iod: float
    sw: float
    table_y: float

    @classmethod
    def make(cls, scale: float = 1.0, origin: tuple[float, float] = (960.0, 300.0)) -> Body:
        face, pose, hand = real_landmarks()
        anchor = face[1, :2].copy()  # the nose tip goes to `origin`

        def tf(a):
            out = a.copy()
            out[:, :2] = (a[:, :2] - anchor) * (3.0 * scale) + np.asarray(origin)
            out[:, 2] = a[:, 2] * 3.0 * scale
            return out

        face, pose = tf(face), tf(pose)
        pose[:, 3] = 0.95
        rel = (hand - hand[0]) * 3.0 * scale
        mirrored = rel.copy()
        mirrored[:, 0] *= -1
        # The photo's hand is the player's left (image right); the mirror image is the right.
        iod = float(np.linalg.norm(face[EYE_OUTER["left"], :2] - face[EYE_OUTER["right"], :2]))
        sw = float(np.linalg.norm(pose[11, :2] - pose[12, :2]))
        table_y = float((pose[11, 1] + pose[12, 1]) / 2 + 1.1 * sw)
        return cls(face, pose, {"left": rel, "right": mirrored}, iod, sw, table_y)

    def targets(self) -> dict[str, np.ndarray]:
        return face_targets(self.face)

    def hand_at(self, side: str, point: int, xy, down: bool = False) -> np.ndarray:
        rel = self.hand_up[side].copy()
        if down:
            rel[:, :2] *= -1
            rel[:, 0] *= -1  # a half turn in the image plane keeps the side's thumb outward
        pts = rel + np.array([0.0, 0.0, 0.0])
        offset = np.asarray(xy, float) - pts[point, :2]
        pts[:, :2] += offset
        return pts

    def rest_hand(self, side: str) -> np.ndarray:
        """The hand resting on the table in front of that shoulder, fingers down."""
        x = self.pose[11 if side == "left" else 12, 0]
        lowest = int(np.argmax(-self.hand_up[side][:, 1]))  # fingers point down: the top becomes the bottom
        return self.hand_at(side, lowest, (x, self.table_y), down=True)

    def person(
        self,
        seat: str,
        hands: dict,
        face: np.ndarray | None = None,
        elbow_y: dict | None = None,
        t: float = 0.0,
        pose_hands: dict | None = None,
    ) -> Person:
        """`pose_hands`: hands that only Pose sees (Hands missed them): their points move Pose's
        wrist, pinky, index and thumb, and they are not in `Person.hands`."""
        pose = self.pose.copy()
        for side, idx_e in (("left", 13), ("right", 14)):
            pts = hands.get(side, (pose_hands or {}).get(side))
            if pts is not None:
                # Pose's own hand points follow the hand: wrist, pinky, index, thumb
                for k, h in zip(POSE_HAND[side], (0, 19, 7, 3)):
                    pose[k, :2] = pts[h, :2]
            pose[idx_e, 1] = (elbow_y or {}).get(side, self.table_y + 0.6 * self.sw)
        return Person(
            seat,
            face=self.face if face is None else face,
            pose=pose,
            hands={s: Hand(p, 0.99, "Right" if s == "left" else "Left", "pose") for s, p in hands.items()},
            face_t=t,
            pose_t=t,
            hands_t=t,
        )

    def closed_eyes(self, amount: dict) -> np.ndarray:
        f = self.face.copy()
        for side, frac in amount.items():
            for up, lo in EYE_LID_PAIRS[side]:
                f[up, :2] = f[up, :2] + frac * (f[lo, :2] - f[up, :2])
        return f

    def mouth_open(self, amount: float) -> np.ndarray:
        f = self.face.copy()
        f[list(LOWER_LIP), 1] += amount * self.iod
        return f


def seat_calibration(bodies: dict[str, Body]) -> TableCalibration:
    seats = []
    for name, b in bodies.items():
        cx = b.face[1, 0] / WIDTH
        half = 2.2 * b.sw / WIDTH
        y = b.table_y / HEIGHT
        seats.append(
            Seat(
                name,
                (max(0.0, cx - half), 0.0, min(1.0, cx + half), 1.0),
                table_line=((max(0.0, cx - half), y), (min(1.0, cx + half), y)),
            )
        )
    return TableCalibration(tuple(seats))


def stream(duration: float, make: Callable[[float], list[Person]], fps: float = FPS) -> list[FrameLandmarks]:
    frames = []
    for i in range(int(round(duration * fps))):
        t = i / fps
        frames.append(FrameLandmarks(i, t, WIDTH, HEIGHT, tuple(make(t)), (), ("face", "hands", "pose")))
    return frames


def ramp(t: float, t0: float, t1: float, rise: float = 0.25) -> float:
    """0 before t0, 1 between t0+rise and t1-rise... a trapezoid."""
    if t <= t0 or t >= t1:
        return 0.0
    return min(1.0, (t - t0) / rise, (t1 - t) / rise)


def lerp(a, b, k):
    return np.asarray(a) + (np.asarray(b) - np.asarray(a)) * k


# -- the suite ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    name: str
    frames: list
    calibration: TableCalibration
    expected: list  # (player, signal, start, end)
    signals: tuple  # the signals this case is about (scored for precision and recall)
    card_frames: dict | None = None
    unsure: bool = False  # the expected events are reported unsure (e.g. Pose's hand points alone)


BODIES = {
    "base": dict(scale=1.0, origin=(960.0, 300.0)),
    "small_far": dict(scale=0.55, origin=(500.0, 420.0)),
    "large_near": dict(scale=1.5, origin=(1200.0, 260.0)),
}


def _touch_case(
    body_kind: str,
    side: str,
    target: str,
    offset=(0.0, 0.0),
    t0=1.0,
    t1=2.4,
    point: int = 8,
    name: str | None = None,
    expected=None,
    signals=None,
    duration=3.4,
    pose_only: bool = False,
) -> Case:
    """`pose_only`: Hands never finds the moving hand; only Pose's hand points show it."""
    b = Body.make(**BODIES[body_kind])
    other = "right" if side == "left" else "left"
    goal = b.targets()[target] + np.asarray(offset) * b.iod

    def make(t):
        k = ramp(t, t0, t1)
        rest = b.rest_hand(side)
        at = b.hand_at(side, point, goal)
        moving = lerp(rest, at, k)
        if pose_only:
            return [b.person("ana", {other: b.rest_hand(other)}, t=t, pose_hands={side: moving})]
        hands = {side: moving, other: b.rest_hand(other)}
        return [b.person("ana", hands, t=t)]

    sig = {"nose": "touch_nose", "chin": "touch_chin"}.get(target)
    default = []
    if target.startswith("eye"):
        default = [("ana", f"touch_{target}", t0 + 0.25, t1 - 0.25)]
    elif sig:
        default = [("ana", f"{sig}_{side}", t0 + 0.25, t1 - 0.25)]
    return Case(
        name or f"touch {target} {side} hand ({body_kind})",
        stream(duration, make),
        seat_calibration({"ana": b}),
        default if expected is None else expected,
        signals
        or (
            "touch_nose_left",
            "touch_nose_right",
            "touch_chin_left",
            "touch_chin_right",
            "touch_eye_left",
            "touch_eye_right",
        ),
        unsure=pose_only,
    )


def _raise_case(
    body_kind: str,
    side: str,
    height: float = 1.0,
    name=None,
    expected=True,
    at_chest: bool = False,
    forearm_level: bool = False,
    pose_only: bool = False,
) -> Case:
    """A hand raised to `height` (1.0: wrist an eye span above the eyes; 0: wrist at the chin,
    fingers up beside the face). `at_chest`: the wrist just under the shoulder line instead.
    `forearm_level`: the elbow held out level with the wrist (an arm across, not up).
    `pose_only`: Hands never finds the raised hand; only Pose's hand points show it."""
    b = Body.make(**BODIES[body_kind])
    other = "right" if side == "left" else "left"
    sh = b.pose[11 if side == "left" else 12, :2]
    eye_y = (b.targets()["eye_left"][1] + b.targets()["eye_right"][1]) / 2
    chin_y = b.targets()["chin"][1]
    shoulder_y = (b.pose[11, 1] + b.pose[12, 1]) / 2
    wrist_y = shoulder_y + 0.1 * b.sw if at_chest else lerp(chin_y, eye_y - b.iod, height)
    wrist = (sh[0] + (0.4 if side == "left" else -0.4) * b.sw, wrist_y)

    def make(t):
        k = ramp(t, 1.0, 2.4)
        moving = lerp(b.rest_hand(side), b.hand_at(side, 0, wrist), k)
        elbow = {side: float(lerp(b.table_y + 0.6 * b.sw, wrist_y, k))} if forearm_level else None
        if pose_only:
            p = b.person("ana", {other: b.rest_hand(other)}, elbow_y=elbow, t=t, pose_hands={side: moving})
        else:
            p = b.person("ana", {side: moving, other: b.rest_hand(other)}, elbow_y=elbow, t=t)
        if forearm_level:  # the elbow out to the side, at the wrist's height once raised
            assert p.pose is not None
            p.pose[13 if side == "left" else 14, 0] = moving[0, 0] + (0.9 if side == "left" else -0.9) * b.sw
        return [p]

    exp = [("ana", f"raise_hand_{side}", 1.25, 2.15)] if expected else []
    return Case(
        name or f"raise {side} hand ({body_kind})",
        stream(3.4, make),
        seat_calibration({"ana": b}),
        exp,
        ("raise_hand_left", "raise_hand_right"),
        unsure=pose_only,
    )


def _elbow_case(body_kind: str, side: str, above: float = 0.0, name=None, expected=True) -> Case:
    b = Body.make(**BODIES[body_kind])

    def make(t):
        k = ramp(t, 1.0, 3.4, rise=0.2)
        down = b.table_y + 0.6 * b.sw
        on = b.table_y - above * b.sw
        y = {side: float(lerp(down, on, k))}
        return [b.person("ana", {"left": b.rest_hand("left"), "right": b.rest_hand("right")}, elbow_y=y, t=t)]

    exp = [("ana", f"rest_elbow_{side}", 1.2, 3.2)] if expected else []
    return Case(
        name or f"rest {side} elbow ({body_kind})",
        stream(4.4, make),
        seat_calibration({"ana": b}),
        exp,
        ("rest_elbow_left", "rest_elbow_right"),
    )


def _tap_case(
    body_kind: str, side: str, taps=(1.2, 1.8), lift: float = 1.2, reach: float = 0.0, name=None, expected=True
) -> Case:
    b = Body.make(**BODIES[body_kind])
    other = "right" if side == "left" else "left"

    def make(t):
        k = ramp(t, 0.8, 2.3, rise=0.3)  # lift the hand up, tap, put it back
        h = lift * k
        for tc in taps:
            if abs(t - tc) < 0.25:
                h = min(h, lift * abs(t - tc) / 0.25)
        h = max(h, reach)
        pts = b.rest_hand(side).copy()
        pts[:, 1] -= h * b.iod
        return [b.person("ana", {side: pts, other: b.rest_hand(other)}, t=t)]

    exp = [("ana", f"tap_table_{side}", taps[0] - 0.1, taps[-1] + 0.1)] if expected else []
    return Case(
        name or f"tap table {side} hand ({body_kind})",
        stream(3.0, make),
        seat_calibration({"ana": b}),
        exp,
        ("tap_table_left", "tap_table_right"),
    )


def _eye_case(body_kind: str, closed: dict, t0=1.0, t1=1.35, name=None, expected=None, mouth: float = 0.0) -> Case:
    """Eyes closed by `closed` (side -> 0..1 of the way) between t0 and t1; `mouth`: the lips
    open by that many eye spans meanwhile (a laugh)."""
    b = Body.make(**BODIES[body_kind])

    def make(t):
        k = 1.0 if t0 <= t < t1 else 0.0
        face = b.closed_eyes({s: 0.85 * k * v for s, v in closed.items()})
        face[list(LOWER_LIP), 1] += mouth * k * b.iod
        return [b.person("ana", {"left": b.rest_hand("left"), "right": b.rest_hand("right")}, face=face, t=t)]

    return Case(
        name or f"close {'+'.join(closed)} ({body_kind})",
        stream(3.0, make),
        seat_calibration({"ana": b}),
        expected or [],
        ("wink_left", "wink_right"),
    )


def _mouth_case(body_kind: str, amplitude=0.22, hz=4.0, constant=None, name=None, expected=True) -> Case:
    b = Body.make(**BODIES[body_kind])

    def make(t):
        on = 1.0 <= t < 3.0
        if constant is not None:
            a = constant if on else 0.0
        else:
            a = amplitude * 0.5 * (1 - math.cos(2 * math.pi * hz * (t - 1.0))) if on else 0.0
        return [
            b.person("ana", {"left": b.rest_hand("left"), "right": b.rest_hand("right")}, face=b.mouth_open(a), t=t)
        ]

    exp = [("ana", "mouth_moving", 1.0, 3.0)] if expected else []
    return Case(name or f"mouth ({body_kind})", stream(4.0, make), seat_calibration({"ana": b}), exp, ("mouth_moving",))


def card_quad(center, angle_deg: float, w: float, h: float) -> np.ndarray:
    a = math.radians(angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    base = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return base @ r.T + np.asarray(center)


def _cards_case(body_kind: str, orientations, far: bool = False, name=None, expected=None) -> Case:
    from vision.signals.cards import CardSighting

    b = Body.make(**BODIES[body_kind])
    frames = stream(4.0, lambda t: [b.person("ana", {"left": b.rest_hand("left"), "right": b.rest_hand("right")}, t=t)])
    hand = b.rest_hand("right")
    centre = hand[:, :2].mean(axis=0) + np.array([0.0, -0.6 * b.iod])
    if far:
        centre = centre + np.array([6.0 * b.sw, 0.0])
    w, h = 0.7 * b.iod, 1.0 * b.iod
    card_frames = []
    for f in frames:
        cards = []
        if 1.0 <= f.t < 3.0:
            for k, o in enumerate(orientations):
                c = centre + np.array([(k - (len(orientations) - 1) / 2) * 0.45 * w, 0.0])
                cards.append(CardSighting(card_quad(c, o, w, h), True, float(o % 360)))
        card_frames.append((f.t, cards))
    return Case(
        name or f"cards {orientations} ({body_kind})",
        frames,
        seat_calibration({"ana": b}),
        expected or [],
        ("cards_only_two", "cards_only_one", "cards_middle_upside_down"),
        {"ana": card_frames},
    )


def _salute(b: Body, t: float, t0: float, speed: float = 1.0, wobble: float = 0.0) -> np.ndarray:
    """A team's own gesture: the right hand sweeps up to the brow, out to the side and down."""
    tg = b.targets()
    brow = tg["eye_right"] + np.array([-0.3, -0.7]) * b.iod
    side = brow + np.array([-2.0, 0.3]) * b.iod
    rest = b.rest_hand("right")
    u = (t - t0) * speed / 1.2  # 0..1 over the gesture
    if u <= 0 or u >= 1:
        return rest
    keys = [
        (0.0, rest),
        (0.35, b.hand_at("right", 8, brow + wobble * b.iod)),
        (0.7, b.hand_at("right", 8, side)),
        (1.0, rest),
    ]
    for (ua, pa), (ub, pb) in zip(keys, keys[1:]):
        if ua <= u <= ub:
            return lerp(pa, pb, (u - ua) / (ub - ua))
    return rest


def free_demonstrations(n: int = 3) -> list[list[FrameLandmarks]]:
    b = Body.make(**BODIES["base"])
    demos = []
    for k in range(n):
        speed, wobble = (0.85, 1.0, 1.15, 0.92, 1.08)[k], (0.0, 0.08, -0.08, 0.05, -0.05)[k]
        dur = 0.3 + 1.2 / speed + 0.3
        demos.append(
            stream(
                dur,
                lambda t, s=speed, w=wobble: [
                    b.person("ana", {"right": _salute(b, t, 0.3, s, w), "left": b.rest_hand("left")}, t=t)
                ],
            )
        )
    return demos


def free_stream(with_salute: bool = True) -> tuple[list[FrameLandmarks], TableCalibration]:
    """6 s: a nose touch (1.0-2.4 s), then (optionally) the team's gesture (3.5-4.8 s)."""
    b = Body.make(**BODIES["base"])
    nose = b.targets()["nose"]

    def make(t):
        if 1.0 <= t <= 2.4:
            k = ramp(t, 1.0, 2.4)
            right = lerp(b.rest_hand("right"), b.hand_at("right", 8, nose), k)
        elif with_salute:
            right = _salute(b, t, 3.5, 0.95)
        else:
            right = b.rest_hand("right")
        return [b.person("ana", {"right": right, "left": b.rest_hand("left")}, t=t)]

    return stream(6.0, make), seat_calibration({"ana": b})


def builders() -> list:
    """The suite as (id, zero-argument builder) pairs: cheap to list, built on demand."""
    from functools import partial

    out = []

    def add(case_id, fn, *args, **kw):
        out.append((case_id, partial(fn, *args, **kw)))

    for kind in BODIES:
        for side in ("left", "right"):
            add(f"touch-nose-{side}-{kind}", _touch_case, kind, side, "nose")
            add(f"touch-chin-{side}-{kind}", _touch_case, kind, side, "chin", point=8, offset=(0.0, 0.05))
            add(f"touch-eye-{side}-{kind}", _touch_case, kind, side, f"eye_{side}")
            add(f"raise-{side}-{kind}", _raise_case, kind, side)
            add(f"elbow-{side}-{kind}", _elbow_case, kind, side)
            add(f"tap-{side}-{kind}", _tap_case, kind, side)
            add(f"wink-{side}-{kind}", _eye_case, kind, {side: 1.0}, expected=[("ana", f"wink_{side}", 1.0, 1.35)])
        add(f"mouth-{kind}", _mouth_case, kind)
    add("other-hand-on-right-eye", _touch_case, "base", "left", "eye_right", name="left hand on the right eye")
    for kind in ("base", "small_far"):
        add(
            f"miss-beside-face-{kind}",
            _touch_case,
            kind,
            "right",
            "nose",
            offset=(0.9, 0.0),
            expected=[],
            name=f"hand beside the face, not touching ({kind})",
        )
        add(
            f"miss-to-mouth-{kind}",
            _touch_case,
            kind,
            "right",
            "mouth",
            expected=[],
            name=f"hand raised to the mouth ({kind})",
        )
        # A hand held up beside the face with its wrist at the chin is raised (the old rule
        # wanted the wrist 0.3 eye spans above the chin, and missed a real one).
        add(
            f"raise-beside-face-{kind}", _raise_case, kind, "right", height=0.0, name=f"raised beside the face ({kind})"
        )
        add(
            f"raise-pose-only-{kind}",
            _raise_case,
            kind,
            "left",
            pose_only=True,
            name=f"raise, only Pose sees it ({kind})",
        )
        add(
            f"touch-chin-pose-only-{kind}",
            _touch_case,
            kind,
            "right",
            "chin",
            point=8,
            offset=(0.0, 0.05),
            pose_only=True,
            name=f"chin touch, only Pose sees the hand ({kind})",
        )
        add(
            f"miss-raise-at-chest-{kind}",
            _raise_case,
            kind,
            "right",
            at_chest=True,
            expected=False,
            name=f"hand held up at the chest, wrist under the shoulders ({kind})",
        )
        add(
            f"miss-forearm-level-{kind}",
            _raise_case,
            kind,
            "left",
            forearm_level=True,
            expected=False,
            name=f"forearm held level across the head ({kind})",
        )
        add(
            f"miss-laugh-{kind}",
            _eye_case,
            kind,
            {"left": 0.6, "right": 0.15},
            t0=1.0,
            t1=1.6,
            mouth=0.2,
            name=f"a laugh: one eye read half closed, the other nearly open, mouth open ({kind})",
        )
        add(
            f"miss-wink-at-the-start-{kind}",
            _eye_case,
            kind,
            {"left": 1.0},
            t0=0.2,
            t1=0.55,
            name=f"one eye closed before any baseline ({kind})",
        )
        add(
            f"miss-elbow-hovering-{kind}",
            _elbow_case,
            kind,
            "left",
            above=0.35,
            expected=False,
            name=f"elbow hovering ({kind})",
        )
        add(
            f"miss-lift-no-tap-{kind}",
            _tap_case,
            kind,
            "right",
            taps=(),
            expected=False,
            name=f"hand lifted, no tap ({kind})",
        )
        add(
            f"miss-bounce-above-table-{kind}",
            _tap_case,
            kind,
            "right",
            taps=(1.2, 1.8),
            reach=0.6,
            expected=False,
            name=f"hand bouncing above the table ({kind})",
        )
        add(
            f"miss-blink-{kind}", _eye_case, kind, {"left": 1.0, "right": 1.0}, t1=1.2, name=f"both eyes blink ({kind})"
        )
        add(
            f"miss-mouth-held-open-{kind}",
            _mouth_case,
            kind,
            constant=0.2,
            expected=False,
            name=f"mouth held open ({kind})",
        )
        add(
            f"miss-hand-kept-on-face-{kind}",
            _touch_case,
            kind,
            "left",
            "nose",
            t0=0.5,
            t1=6.0,
            duration=6.5,
            expected=[],
            name=f"hand kept on the face for 5 s ({kind})",
        )
    add("cards-two", _cards_case, "base", (0, 0), expected=[("ana", "cards_only_two", 1.0, 3.0)])
    add("cards-one", _cards_case, "base", (0,), expected=[("ana", "cards_only_one", 1.0, 3.0)])
    add(
        "cards-middle-flipped",
        _cards_case,
        "base",
        (0, 180, 0),
        expected=[("ana", "cards_middle_upside_down", 1.0, 3.0)],
    )
    add("miss-cards-three-upright", _cards_case, "base", (0, 0, 0), name="three upright cards")
    add("miss-cards-far-from-hands", _cards_case, "base", (0, 0), far=True, name="two cards far from the hands")
    return out


def suite() -> list[Case]:
    return [build() for _, build in builders()]


def match_events(case: Case, events, tol: float = 0.35):
    """(true positives as (expected, event), false positives, misses) for the case's signals."""
    evs = [e for e in events if e.signal in case.signals]
    used, tps, misses = set(), [], []
    for exp in case.expected:
        player, sig, a, b = exp
        hit = next(
            (
                k
                for k, e in enumerate(evs)
                if k not in used and e.player == player and e.signal == sig and e.start <= b + tol and e.end >= a - tol
            ),
            None,
        )
        if hit is None:
            misses.append(exp)
        else:
            used.add(hit)
            tps.append((exp, evs[hit]))
    fps = [e for k, e in enumerate(evs) if k not in used]
    return tps, fps, misses


def score(cases=None, detect=None) -> dict:
    """Per-signal precision, recall and decision delay (decided_at minus the gesture's end)."""
    from vision.signals.engine import detect_signals

    detect = detect or (lambda c: detect_signals(c.frames, c.calibration, card_frames=c.card_frames))
    stats: dict = {}
    for case in cases if cases is not None else suite():
        tps, fps, misses = match_events(case, detect(case))
        for exp, ev in tps:
            s = stats.setdefault(exp[1], {"tp": 0, "fp": 0, "fn": 0, "delays": []})
            s["tp"] += 1
            s["delays"].append(ev.evidence["decided_at"] - exp[3])
        for ev in fps:
            stats.setdefault(ev.signal, {"tp": 0, "fp": 0, "fn": 0, "delays": []})["fp"] += 1
        for exp in misses:
            stats.setdefault(exp[1], {"tp": 0, "fp": 0, "fn": 0, "delays": []})["fn"] += 1
    for s in stats.values():
        s["precision"] = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else 1.0
        s["recall"] = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else 1.0
        s["median_delay_s"] = float(np.median(s["delays"])) if s["delays"] else None
    return stats
