"""Seats and zones proposed from a camera picture (`vision.seats`), on real pictures: the demo
session's table seen from above, and a table composed of the demo cloth with real faces
(tests/fixtures/people, see ATTRIBUTION.md) round it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.table.zones import TableZones
from vision.seats import SeatProposalError, find_cloth, order_corners, propose_table, seat_order

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = ROOT / "tests" / "fixtures" / "people"
PREVIEW = ROOT / "datasets" / "demo" / "preview.jpg"
PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
CLOTH_BOX = (260, 230, 1020, 630)  # where the composed table's cloth lies: x0, y0, x1, y1


def composed_table() -> np.ndarray:
    """A 1280x720 picture: a grey room, the demo cloth with its cards in the middle, three real
    faces at the far side, the left and the right of the table; the camera side is empty."""
    canvas = np.full((720, 1280, 3), (150, 160, 170), np.uint8)
    x0, y0, x1, y1 = CLOTH_BOX
    canvas[y0:y1, x0:x1] = cv2.resize(cv2.imread(str(PREVIEW)), (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    for name, x, y in (
        ("mptasks_face.jpg", 560, 20),
        ("mp_sergey.png", 30, 330),
        ("mptasks_pointing_up.jpg", 1050, 330),
    ):
        face = cv2.imread(str(PEOPLE / name))
        s = 200 / max(face.shape[:2])
        face = cv2.resize(face, (int(face.shape[1] * s), int(face.shape[0] * s)), interpolation=cv2.INTER_AREA)
        canvas[y : y + face.shape[0], x : x + face.shape[1]] = face
    return canvas


def _centre(polygon) -> np.ndarray:
    return np.asarray(polygon, np.float64).mean(axis=0)


def test_the_demo_table_from_above_gets_four_seats_round_its_edges():
    image = cv2.imread(str(PREVIEW))
    p = propose_table(image, PLAYERS, camera="cards", faces=[])
    assert p.cloth_found and len(p.seats) == 4
    # seat order from the camera side (bottom), clockwise: bottom, left, top, right
    sides = {s.player: s.position for s in p.seats}
    assert sides["Anna"][1] > 650 and sides["Bruno"][0] < 50 and sides["Carla"][1] < 50 and sides["Dario"][0] > 1230
    zones = TableZones.from_list(p.zones_list())
    assert [z.role for z in zones] == ["eggs", "seat", "seat", "seat", "seat"]
    # the demo's own cards: the four chickens laid at the top are in Carla's zone, the eggs in the centre
    chickens = [(440, 100), (570, 100), (710, 105), (835, 105)]
    eggs = [(445, 363), (580, 360), (715, 363)]
    assert zones.locate("cards", chickens) == ["seat:Carla"] * 4
    assert zones.locate("cards", eggs) == ["eggs"] * 3
    assert zones.locate("cards", [(640, 700), (20, 360), (1260, 360)]) == ["seat:Anna", "seat:Bruno", "seat:Dario"]
    assert p.calibration() is None  # nobody seen: no body-signal seats proposed


def test_the_cloth_is_found_where_it_lies():
    corners = find_cloth(composed_table())
    x0, y0, x1, y1 = CLOTH_BOX
    truth = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    assert corners is not None and np.abs(corners - truth).max() < 12, corners


@pytest.mark.parametrize(
    "name", ["mps_face_detector_testImg.jpeg", "mptasks_face.jpg", "mps_pose_landmarker_test_image.jpg"]
)
def test_a_picture_with_no_table_has_no_cloth(name):
    image = cv2.imread(str(PEOPLE / name))
    assert find_cloth(image) is None
    p = propose_table(image, PLAYERS, faces=[])
    h, w = image.shape[:2]
    assert not p.cloth_found and "no table cloth" in p.notes[0] and len(p.zones) == 5
    assert np.allclose(
        p.cloth, [[0.04 * w, 0.04 * h], [0.96 * w, 0.04 * h], [0.96 * w, 0.96 * h], [0.04 * w, 0.96 * h]]
    )


def test_faces_round_a_real_cloth_place_the_seats_where_people_sit():
    image = composed_table()
    p = propose_table(image, PLAYERS, camera="table")  # MediaPipe finds the faces
    assert len(p.faces) == 3, p.faces
    seats = {s.player: s for s in p.seats}
    # Anna: nobody seen on the camera side, spread into that gap; then clockwise left, top, right
    assert seats["Anna"].face is None and seats["Anna"].position[1] > 600
    assert seats["Bruno"].face is not None and seats["Bruno"].position[0] < 300
    assert seats["Carla"].face is not None and seats["Carla"].position[1] < 260
    assert seats["Dario"].face is not None and seats["Dario"].position[0] > 980
    assert "1 of 4 players were not seen" in p.notes[0]
    # each seat zone is on the cloth, in front of its player
    for z in p.zones:
        cx, cy = _centre(z.polygon)
        assert 250 <= cx <= 1030 and 220 <= cy <= 640, z
    zones = {z.player: _centre(z.polygon) for z in p.zones if z.role == "seat"}
    assert zones["Bruno"][0] < 500 and zones["Dario"][0] > 780 and zones["Carla"][1] < 400 and zones["Anna"][1] > 460
    calib = p.calibration()
    assert calib is not None and sorted(s.name for s in calib.seats) == ["Bruno", "Carla", "Dario"]
    bruno = calib.seat("Bruno")
    assert bruno.camera == "table" and bruno.region[2] <= 0.5 and bruno.contains(130, 430, 1280, 720)


def test_moved_seats_and_cloth_give_zones_round_them():
    image = cv2.imread(str(PREVIEW))
    p = propose_table(
        image, ["Anna", "Bruno"], cloth=[[100, 100], [1180, 100], [1180, 620], [100, 620]], angles=[90, 270]
    )
    assert [round(s.angle) for s in p.seats] == [90, 270]
    a, b = (z for z in p.zones if z.role == "seat")
    assert _centre(a.polygon)[1] > 360 > _centre(b.polygon)[1]
    assert np.allclose(p.cloth, [[100, 100], [1180, 100], [1180, 620], [100, 620]])


def test_counter_clockwise_tables_go_the_other_way():
    assert seat_order([90, 180, 270, 0]) == [0, 1, 2, 3]
    assert seat_order([90, 180, 270, 0], clockwise=False) == [0, 3, 2, 1]
    assert seat_order([80, 180, 270, 355]) == [0, 1, 2, 3]  # the seat nearest the camera side first


@pytest.mark.parametrize(
    "players, kwargs, match",
    [
        ([], {}, "players' names"),
        (["Anna", "Anna"], {}, "each different"),
        (["Anna"], {"centre_role": "pot"}, "unknown role"),
        (["Anna"], {"cloth": [[0, 0], [1, 1]]}, "four"),
        (["Anna"], {"cloth": [[0, 0], [10, 0], [20, 0], [30, 0]]}, "no area"),
        (["Anna", "Bruno"], {"angles": [90]}, "one seat angle"),
    ],
)
def test_bad_requests_are_named_errors(players, kwargs, match):
    with pytest.raises(SeatProposalError, match=match):
        propose_table(cv2.imread(str(PREVIEW)), players, faces=[], **kwargs)


def test_corners_are_put_in_order():
    shuffled = [[1180, 620], [100, 100], [100, 620], [1180, 100]]
    assert order_corners(shuffled).tolist() == [[100, 100], [1180, 100], [1180, 620], [100, 620]]


def test_seats_dragged_to_points_give_their_angles_on_the_table():
    image = cv2.imread(str(PREVIEW))
    # on a 16:9 cloth, the picture's corner is the table's 45 degrees, not the picture's 29
    p = propose_table(image, ["Anna", "Bruno"], positions=[[1276, 716], [0, 0]])
    assert [round(s.angle) for s in p.seats] == [45, 225]
    with pytest.raises(SeatProposalError, match="one seat position"):
        propose_table(image, ["Anna", "Bruno"], positions=[[1, 2]])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 9),
    jitter=st.lists(st.floats(-60, 60), min_size=8, max_size=8),
    angles=st.one_of(st.none(), st.lists(st.floats(0, 359), min_size=9, max_size=9, unique=True)),
)
def test_the_zones_tile_the_cloth(n, jitter, angles):
    """Every point of the cloth lies in exactly one zone (the centre or one seat's), whatever
    the cloth's corners and wherever the seats are."""
    cloth = np.array([[200, 120], [1080, 120], [1080, 600], [200, 600]], np.float64) + np.reshape(jitter, (4, 2))
    chosen = None if angles is None else angles[:n]
    if (
        chosen is not None
        and min((b - a) % 360 for a, b in zip(sorted(chosen), sorted(chosen)[1:] + sorted(chosen)[:1])) < 1
    ):
        return
    players = [f"P{i}" for i in range(n)]
    p = propose_table(_BLANK, players, cloth=cloth, faces=[], angles=chosen)
    zones = TableZones.from_list(p.zones_list())
    assert [z.player for z in zones.with_role("seat")] == players
    outline = np.asarray(p.cloth, np.float32).reshape(-1, 1, 2)
    edges = [np.asarray(z.polygon, np.float32).reshape(-1, 1, 2) for z in zones]
    for x in range(210, 1080, 37):
        for y in range(130, 600, 29):
            if cv2.pointPolygonTest(outline, (x, y), True) < 3:
                continue  # on or near the cloth's edge
            if min(abs(cv2.pointPolygonTest(e, (x, y), True)) for e in edges) < 1.5:
                continue  # on a border between two zones
            inside = [z.name for z in zones if z.contains(x, y)]
            assert len(inside) == 1, (x, y, inside)


_BLANK = np.zeros((720, 1280, 3), np.uint8)
