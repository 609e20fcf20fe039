"""Pictures of a game's cards for the scorer's pickers, rendered from `vision.cards`' templates.

Only what a scorer enters is listed (chickens, henhouses, eggs and the Chick of Beccato!, every
face of a suited deck): never a Signal card, a Guild card or a back.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import cv2

from tablereferee.web.auth import WebError
from vision.cards import decks
from vision.cards.render import render_card

LISTED = frozenset({"chicken", "henhouse", "egg", "chick", "pip"})
PX_PER_MM = 3.0  # about 190 px tall: a phone shows several in a row


class NoSuchCard(WebError):
    """A card id the game's deck does not have (or one the pickers never show)."""

    status = 404


def deck_of(game: str, setup: Mapping[str, Any]) -> str:
    """The deck a game is played with (`vision.cards.decks` names)."""
    if game == "beccato":
        return "beccato"
    if game == "bestia":
        from referee.bestia.game import variant_named  # deferred: one engine's own module, loaded with it

        options = setup.get("options") or {}
        name = variant_named(str(options.get("variant", "classic"))).deck.name
        return "italian" if name.startswith("italian") else "french40" if name == "french-40" else "french52"
    return "italian"


def cards(deck: str) -> list[dict[str, Any]]:
    """The cards a picker shows: id, name, the engine's name for it, kind, picture."""
    return [
        {
            "id": c.id,
            "name": c.name,
            "value": decks.engine_name(c),
            "kind": c.kind,
            "picture": f"/api/cards/{c.id}.png",
        }
        for c in decks.faces(deck)
        if c.kind in LISTED
    ]


@functools.lru_cache(maxsize=256)
def picture(deck: str, card_id: str) -> bytes:
    """The PNG of one card."""
    try:
        found = decks.card(deck, card_id)
    except KeyError:
        raise NoSuchCard(f"the {deck} deck has no card {card_id!r}", card=card_id) from None
    if found.kind not in LISTED:
        raise NoSuchCard(f"{card_id!r} is not a card the pickers show", card=card_id)
    ok, png = cv2.imencode(".png", render_card(found, px_per_mm=PX_PER_MM))
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 image
        raise NoSuchCard(f"the picture of {card_id!r} could not be made", card=card_id)
    return png.tobytes()
