"""When each seat's models run (`vision.landmarks.extract.LandmarkExtractor`), on real people:
the seats take their turns on different frames, and a seat whose view has not moved keeps its
Hands and Pose without running them again (tests/fixtures/people, see ATTRIBUTION.md)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.landmarks.calibration import TableCalibration, quadrant_seats
from vision.landmarks.extract import STILL_CHANGE, STILL_REFRESH, LandmarkExtractor, still_thumbnail, thumbnail_change

PEOPLE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "people"
SEATS = ["ana", "bruno", "carla", "dario"]


def _clip(n: int) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(PEOPLE / "mps_gesture_recognizer_test_video.mp4"))
    out: list[np.ndarray] = []
    while len(out) < n:
        ok, img = cap.read()
        if not ok:
            break
        out.append(cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA))
    cap.release()
    assert len(out) == n
    return out


def _camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One webcam frame of a picture: its own sensor noise and gain, through JPEG."""
    noisy = img.astype(np.float32) * rng.uniform(0.97, 1.03) + rng.normal(0, 3.0, img.shape)
    ok, enc = cv2.imencode(".jpg", np.clip(noisy, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


class _Counted:
    """A graph whose calls are counted."""

    def __init__(self, graph, calls: list[int]) -> None:
        self.graph, self.calls = graph, calls

    def process(self, rgb):
        self.calls[0] += 1
        return self.graph.process(rgb)

    def close(self) -> None:
        self.graph.close()


def _count(ex: LandmarkExtractor, seat: str, model: str) -> list[int]:
    calls = [0]
    g = ex._graphs[seat]
    setattr(g, model, _Counted(getattr(g, model), calls))
    return calls


def test_a_still_picture_through_a_camera_stays_still_and_a_moving_player_does_not():
    rng = np.random.default_rng(3)
    still = cv2.resize(cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg")), (640, 360))
    ref = still_thumbnail(_camera(still, rng))
    noise = [thumbnail_change(still_thumbnail(_camera(still, rng)), ref) for _ in range(10)]
    assert max(noise) < STILL_CHANGE * 0.8, noise
    clip = _clip(30)
    moved = [thumbnail_change(still_thumbnail(clip[i + 5]), still_thumbnail(clip[i])) for i in range(0, 25, 5)]
    assert min(moved) > STILL_CHANGE, moved  # 0.2 s of the gesture clip apart


@pytest.fixture(scope="module")
def four_seats():
    """A 4-seat 1280x720 table: the gesture clip, its mirror image 1 s later, the clip 2 s
    later, and a still picture seen through a camera (its own noise every frame)."""
    clip = _clip(80)
    rng = np.random.default_rng(7)
    still = cv2.resize(cv2.imread(str(PEOPLE / "mptasks_pointing_up.jpg")), (640, 360))
    return [
        np.vstack([np.hstack([clip[i], cv2.flip(clip[i + 25], 1)]), np.hstack([clip[i + 50], _camera(still, rng)])])
        for i in range(30)
    ]


def test_the_seats_take_their_turns_on_different_frames(four_seats):
    calib = TableCalibration(quadrant_seats(SEATS, 2, 2))
    with LandmarkExtractor(calib, still=False) as ex:
        frames = [ex.process(f, i / 25, i) for i, f in enumerate(four_seats)]
    pose_runs = [[p.seat for p in fr.persons if p.pose_t == fr.t] for fr in frames]
    assert pose_runs[0] == SEATS  # the first frame: everyone
    # then one group of seats (as many as workers: 2) a frame at most, one seat a worker
    assert max(len(r) for r in pose_runs[1:]) == 2, pose_runs
    assert {frozenset(r) for r in pose_runs[1:] if r} <= {frozenset(SEATS[:2]), frozenset(SEATS[2:])}, pose_runs
    for seat in SEATS:  # each at Pose's rate (5/s: every fifth frame at 25 fps)
        times = sorted({p.pose_t for fr in frames for p in fr.persons if p.seat == seat})
        gaps = np.diff(times[1:])
        assert len(gaps) >= 3 and np.allclose(gaps, 0.2, atol=1e-6), (seat, times)
    hands_runs = [sum(p.hands_t == fr.t for p in fr.persons) for fr in frames[1:]]
    assert max(hands_runs) <= 2, hands_runs  # Hands spread the same way


def test_a_still_seat_keeps_its_pose_until_it_moves_while_hands_in_view_and_its_face_run(four_seats):
    calib = TableCalibration(quadrant_seats(SEATS, 2, 2))
    with LandmarkExtractor(calib) as ex:
        calls = {(s, m): _count(ex, s, m) for s in ("carla", "dario") for m in ("face", "hands", "pose")}
        frames = [ex.process(f, i / 25, i) for i, f in enumerate(four_seats)]
        # the still seat: Pose measured on the first frame, then kept (re-stamped) till the refresh
        dario = [fr.person("dario") for fr in frames]
        assert STILL_REFRESH == 0.5  # 30 frames at 25 fps: the first one, then once every 0.5 s or so
        assert calls["dario", "pose"][0] <= 3
        assert calls["carla", "pose"][0] >= 5  # the moving seat: every fifth frame, where it moved
        # Hands in view are measured at their rate, still seat or not (a tap is a small change)
        assert calls["dario", "hands"][0] >= 6 and calls["carla", "hands"][0] >= 6
        faces = calls["dario", "face"][0], calls["carla", "face"][0]
        assert min(faces) >= 14 and abs(faces[0] - faces[1]) <= 1  # the face at its own rate, still or not
        assert dario[0] is not None and dario[0].pose is not None and dario[0].hands
        kept = [p for p, fr in zip(dario, frames) if fr.t < STILL_REFRESH]
        assert all(np.array_equal(p.pose, dario[0].pose) for p in kept)
        assert all(fr.t - p.pose_t < 0.2 + 1e-6 for p, fr in zip(dario, frames))  # re-stamped, not stale
        assert sorted(dario[20].hands) == sorted(dario[0].hands)
        # it moves (the player shifts 12 px): measured again at its next turn
        moved = four_seats[0].copy()
        moved[360:, 640:] = np.roll(four_seats[0][360:, 640:], 12, axis=1)
        before = calls["dario", "pose"][0]
        for k in range(6):
            ex.process(moved, (30 + k) / 25, 30 + k)
        assert calls["dario", "pose"][0] == before + 1
