"""The signal catalogue, in data (`catalogue.json`): one entry per signal with its body cue,
its detector and parameters (lengths in the player's own eye spans or shoulder widths), the
minimum dwell, the gap it bridges, and the evidence it keeps for a dispute.

Ids are the Signal-card ids of `referee.signal_cards`, plus `mouth_moving` (the cue the audio
recogniser uses to tell which seat is talking) and `free` (a team's own Free Signal, matched
by templates: `vision.signals.free`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.core import RefereeError
from referee.signal_cards import BY_ID, FREE_SIGNAL

MOUTH_MOVING = "mouth_moving"
CATALOGUE_PATH = Path(__file__).with_name("catalogue.json")
DETECTORS = (
    "face_touch",
    "raise_hand",
    "elbow_rest",
    "table_tap",
    "wink",
    "mouth_moving",
    "cards_visible",
    "cards_middle_flip",
)


class CatalogueError(RefereeError):
    """A catalogue entry that cannot be used."""


@dataclasses.dataclass(frozen=True)
class SignalSpec:
    id: str
    cue: str
    detector: str
    params: Mapping[str, Any]
    min_dwell: float
    max_gap: float
    evidence: tuple[str, ...]
    unsure_below: float = 0.6

    def p(self, name: str) -> Any:
        try:
            return self.params[name]
        except KeyError:
            raise CatalogueError(f"signal {self.id!r} lacks parameter {name!r}") from None


@dataclasses.dataclass(frozen=True)
class Catalogue:
    signals: tuple[SignalSpec, ...]
    face_contact_radius: Mapping[str, float]

    def __getitem__(self, signal_id: str) -> SignalSpec:
        for s in self.signals:
            if s.id == signal_id:
                return s
        raise KeyError(f"no signal {signal_id!r} in the catalogue")

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.signals)

    def only(self, ids) -> Catalogue:
        ids = set(ids)
        unknown = ids - set(self.ids) - {FREE_SIGNAL}
        if unknown:
            raise CatalogueError(f"unknown signal ids: {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, signals=tuple(s for s in self.signals if s.id in ids))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Catalogue:
        if d.get("format") != "signal-catalogue/1":
            raise CatalogueError("not a signal catalogue (format signal-catalogue/1)")
        specs = []
        for e in d["signals"]:
            if e["detector"] not in DETECTORS:
                raise CatalogueError(f"signal {e['id']!r}: unknown detector {e['detector']!r}")
            if e["id"] not in BY_ID and e["id"] != MOUTH_MOVING:
                raise CatalogueError(f"signal {e['id']!r} is neither a Signal card nor {MOUTH_MOVING!r}")
            specs.append(
                SignalSpec(
                    e["id"],
                    e["cue"],
                    e["detector"],
                    dict(e["params"]),
                    float(e["min_dwell"]),
                    float(e["max_gap"]),
                    tuple(e.get("evidence", ())),
                    float(e.get("unsure_below", 0.6)),
                )
            )
        return cls(tuple(specs), dict(d["face_contact_radius"]))


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return Catalogue.from_dict(json.loads(CATALOGUE_PATH.read_text()))


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    if path is None:
        return default_catalogue()
    try:
        return Catalogue.from_dict(json.loads(Path(path).read_text()))
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise CatalogueError(f"cannot read catalogue {path}: {exc}") from None
