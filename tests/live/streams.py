"""Recorded observation streams for the fusion tests: what a card camera reports frame by frame."""

from __future__ import annotations

from referee.table import CardReading, CardsSeen, TableZones, rect_zone

PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
SETUP = {"players": PLAYERS}  # teams: Anna+Carla (dollar) against Bruno+Dario (star)
FPS = 5.0


def beccato_zones(camera: str = "cards") -> TableZones:
    return TableZones(
        [
            rect_zone("seat:Anna", camera, 300, 540, 980, 720, "seat", "Anna"),
            rect_zone("seat:Bruno", camera, 0, 150, 300, 570, "seat", "Bruno"),
            rect_zone("seat:Carla", camera, 300, 0, 980, 180, "seat", "Carla"),
            rect_zone("seat:Dario", camera, 980, 150, 1280, 570, "seat", "Dario"),
            rect_zone("eggs", camera, 300, 180, 980, 540, "eggs"),
        ]
    )


def trick_zones(camera: str = "cards") -> TableZones:
    return TableZones([rect_zone("trick", camera, 300, 180, 980, 540, "trick")])


CENTRES = {
    "seat:Anna": (640, 630),
    "seat:Bruno": (150, 360),
    "seat:Carla": (640, 90),
    "seat:Dario": (1130, 360),
    "eggs": (640, 360),
    "trick": (640, 360),
}


def frames(t0: float, t1: float, layout: dict[str, list], camera: str = "cards", fps: float = FPS):
    """CardsSeen every 1/fps s from t0 to t1 (excluded) with the same layout:
    {zone: [card or (card, confidence) or (card, confidence, face_up)]}."""
    out = []
    n = int(round((t1 - t0) * fps))
    for i in range(n):
        t = round(t0 + i / fps, 3)
        cards = []
        for zone, items in layout.items():
            for item in items:
                if isinstance(item, str) or item is None:
                    item = (item, 0.97)
                card, conf, *rest = item
                cards.append(CardReading(card, conf, rest[0] if rest else True, zone))
        out.append(CardsSeen(t, camera, tuple(cards)))
    return out
