"""Decks as identification templates: built-in (rendered) or enrolled from photos.

A deck name is either built in, `beccato`, `italian`, `french52`, `french40` (our rendered
faces in the "classic" design) or `DECK:DESIGN` (e.g. `french52:outline`), made by rendering
with no photo; or the name of a deck enrolled with `referee enroll-deck`, stored as a folder

    DECKS_DIR/NAME/deck.json          name, base deck, one entry per face: label, file, card ids
    DECKS_DIR/NAME/templates/*.png    the rectified faces (and backs), CANONICAL_SIZE

where DECKS_DIR is `--decks-dir`, else $TABLE_REFEREE_DECKS, else
~/.local/share/table-referee/decks. An enrolled deck shadows a built-in of the same name.
"""

from __future__ import annotations

import dataclasses
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from vision.cards.decks import DECKS, backs, faces, symbol_siblings
from vision.cards.decks import deck as deck_cards
from vision.cards.identify import CardIdentifier
from vision.cards.rectify import CANONICAL_SIZE
from vision.cards.regional import SHIPPED_DECKS_DIR
from vision.cards.render import DESIGNS, render_card_once

DECKS_ENV = "TABLE_REFEREE_DECKS"
DECK_FILE = "deck.json"


class UnknownDeck(RefereeError):
    """A deck name that is neither built in nor enrolled."""


class BrokenDeck(RefereeError):
    """An enrolled deck folder whose files are missing or unreadable."""


def default_decks_dir() -> Path:
    env = os.environ.get(DECKS_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "table-referee" / "decks"


@dataclasses.dataclass
class Deck:
    """A deck ready to identify: its faces and (when known) its backs."""

    name: str
    faces: CardIdentifier
    backs: CardIdentifier | None = None
    base: str | None = None  # the deck definition (vision.cards.decks) it follows, if any
    source: str = "built-in"  # "built-in" or the folder it was loaded from


def builtin_names() -> list[str]:
    return list(DECKS) + [f"{d}:{design}" for d in DECKS for design in DESIGNS]


def enrolled_names(decks_dir: Path | None = None) -> list[str]:
    root = Path(decks_dir) if decks_dir else default_decks_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / DECK_FILE).is_file())


def known_decks(decks_dir: Path | None = None) -> list[str]:
    return sorted(set(enrolled_names(decks_dir))) + shipped_names() + builtin_names()


def to_canonical(image: np.ndarray, size: tuple[int, int] = CANONICAL_SIZE) -> np.ndarray:
    """A whole upright card image resized to the canonical rectangle."""
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def render_deck_templates(base: str, design: str = "classic") -> Deck:
    """The built-in deck `base` in `design`, its templates made by rendering (each face once,
    outside `render_card`'s cache: the deck keeps its templates, the full-size renders would be
    about 20 MB more)."""
    labels: list[str] = []
    images: list[np.ndarray] = []
    ids: dict[str, list[str]] = {}
    symmetric: list[bool] = []
    for card in faces(base):
        labels.append(card.face_key)
        symmetric.append(card.symmetric)
        images.append(to_canonical(render_card_once(card, design, px_per_mm=4.0)))

    for card in deck_cards(base):
        ids.setdefault(card.face_key, []).append(card.id)
    back_cards = backs(base)
    back_t = CardIdentifier(
        f"{base}:{design}:backs",
        [c.id for c in back_cards],
        [to_canonical(render_card_once(c, design, px_per_mm=4.0)) for c in back_cards],
        symmetric=[c.symmetric for c in back_cards],
        embedder=None,
    )
    return Deck(
        name=base if design == "classic" else f"{base}:{design}",
        faces=CardIdentifier(
            f"{base}:{design}", labels, images, card_ids=ids, symmetric=symmetric, siblings=symbol_siblings(base)
        ),
        backs=back_t,
        base=base,
        source="built-in",
    )


@lru_cache(maxsize=16)
def _builtin(name: str) -> Deck:
    base, _, design = name.partition(":")
    return render_deck_templates(base, design or "classic")


def shipped_names() -> list[str]:
    """The decks shipped made from scans of real cards (vision/cards/regional.py)."""
    if not SHIPPED_DECKS_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DECKS_DIR.iterdir() if (p / DECK_FILE).is_file())


@lru_cache(maxsize=8)
def _shipped(name: str) -> Deck:
    return dataclasses.replace(read_deck_folder(SHIPPED_DECKS_DIR / name), source="built-in")


def load_deck(name: str, decks_dir: Path | str | None = None) -> Deck:
    """The deck called `name` (enrolled first, then shipped from scans, then rendered), or
    `UnknownDeck`."""
    root = Path(decks_dir) if decks_dir else default_decks_dir()
    folder = root / name
    if name and "/" not in name and (folder / DECK_FILE).is_file():
        return read_deck_folder(folder)
    if name in shipped_names():
        return _shipped(name)
    if name in builtin_names():
        return _builtin(name)
    raise UnknownDeck(
        f"no deck called {name!r}; known: {', '.join(known_decks(root))}",
        deck=name,
        known=known_decks(root),
        decks_dir=str(root),
    )


def safe_file_name(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label) + ".png"


def write_deck_folder(
    folder: Path,
    name: str,
    faces: dict[str, np.ndarray],
    backs: dict[str, np.ndarray],
    card_ids: dict[str, list[str]] | None = None,
    base: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write a deck folder atomically enough: templates first, deck.json (the index) last."""
    tdir = folder / "templates"
    tdir.mkdir(parents=True, exist_ok=True)
    entries = []
    for kind, group in (("face", faces), ("back", backs)):
        for label, image in group.items():
            fname = f"{kind}-{safe_file_name(label)}"
            if not cv2.imwrite(str(tdir / fname), image):
                raise BrokenDeck(f"could not write {tdir / fname}")
            entries.append(
                {
                    "label": label,
                    "kind": kind,
                    "file": f"templates/{fname}",
                    "card_ids": list((card_ids or {}).get(label, [label])),
                }
            )
    doc = {"name": name, "base": base, "size": list(CANONICAL_SIZE), "templates": entries, **(extra or {})}
    tmp = folder / (DECK_FILE + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(folder / DECK_FILE)
    return folder


def read_deck_folder(folder: Path) -> Deck:
    try:
        doc = json.loads((folder / DECK_FILE).read_text(encoding="utf-8"))
        entries = doc["templates"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise BrokenDeck(f"{folder / DECK_FILE} is not a deck index: {exc}", folder=str(folder)) from None
    if not isinstance(entries, list) or not isinstance(doc.get("name", ""), str):
        raise BrokenDeck(f"{folder / DECK_FILE} is not a deck index: templates must be a list", folder=str(folder))
    groups: dict[str, tuple[list[str], list[np.ndarray], dict[str, list[str]]]] = {
        "face": ([], [], {}),
        "back": ([], [], {}),
    }
    for e in entries:
        if not (
            isinstance(e, dict)
            and isinstance(e.get("file"), str)
            and isinstance(e.get("label"), str)
            and e.get("kind", "face") in groups
            and (
                e.get("card_ids") is None
                or (isinstance(e["card_ids"], list) and all(isinstance(c, str) for c in e["card_ids"]))
            )
        ):
            raise BrokenDeck(
                f"{folder / DECK_FILE}: each template needs a label, a file, a kind (face or back) "
                f"and card ids as text: {str(e)[:80]}",
                folder=str(folder),
            )
        image = cv2.imread(str(folder / e["file"]), cv2.IMREAD_COLOR)
        if image is None:
            raise BrokenDeck(
                f"template {e['file']} of deck {doc.get('name')!r} is missing or unreadable", folder=str(folder)
            )
        labels, images, ids = groups[e.get("kind", "face")]
        labels.append(e["label"])
        images.append(to_canonical(image))
        ids[e["label"]] = e.get("card_ids") or [e["label"]]
    if not groups["face"][0]:
        raise BrokenDeck(f"deck {doc.get('name')!r} has no face templates", folder=str(folder))

    name, base = doc.get("name", folder.name), doc.get("base")
    # a deck enrolled as free-form faces has no base deck to say which faces are siblings
    faces = CardIdentifier(
        name,
        groups["face"][0],
        groups["face"][1],
        card_ids=groups["face"][2],
        siblings=symbol_siblings(base) if base in DECKS else [],
    )
    backs = CardIdentifier(f"{name}:backs", *groups["back"][:2], embedder=None) if groups["back"][0] else None
    return Deck(name=name, faces=faces, backs=backs, base=base, source=str(folder))
