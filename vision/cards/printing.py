"""Print-and-play pages of a deck at real card size, with cut marks (`scripts/print_deck.py`).

Cards are laid out in a grid on A4 (or US Letter) pages at a given resolution; with backs, each
page of faces is followed by a page of backs mirrored for long-edge duplex printing. Pillow
writes the PDF (a page is one image at the given resolution, so the printed size is exact when
the printer does not "fit to page").
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cards import decks as D
from vision.cards import render as R

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 8.0
GAP_MM = 2.0


def grid(deck_name: str, paper: str = "a4") -> tuple[int, int]:
    """(columns, rows) of cards that fit on a page."""
    pw, ph = PAPER_MM[paper]
    cw, ch = D.CARD_SIZE_MM[deck_name]
    cols = int((pw - 2 * MARGIN_MM + GAP_MM) // (cw + GAP_MM))
    rows = int((ph - 2 * MARGIN_MM + GAP_MM) // (ch + GAP_MM))
    return cols, rows


def layout_pages(deck_name: str, design: str = "classic", paper: str = "a4", dpi: float = 300.0, backs: bool = False):
    """Pages as (BGR image, [(card id, x, y, w, h) in pixels]) in print order."""
    ppm = dpi / 25.4
    pw, ph = (int(round(v * ppm)) for v in PAPER_MM[paper])
    cw_mm, ch_mm = D.CARD_SIZE_MM[deck_name]
    cols, rows = grid(deck_name, paper)
    per_page = cols * rows
    cards = list(D.deck(deck_name))
    back_card = D.backs(deck_name)[0]
    grid_w = cols * cw_mm + (cols - 1) * GAP_MM
    grid_h = rows * ch_mm + (rows - 1) * GAP_MM
    x0_mm, y0_mm = (PAPER_MM[paper][0] - grid_w) / 2, (PAPER_MM[paper][1] - grid_h) / 2
    pages = []
    for start in range(0, len(cards), per_page):
        chunk = cards[start : start + per_page]
        sides = [False, True] if backs else [False]
        for is_back in sides:
            page = np.full((ph, pw, 3), 255, np.uint8)
            boxes = []
            for i, c in enumerate(chunk):
                r, col = divmod(i, cols)
                if is_back:
                    col = cols - 1 - col  # long-edge duplex: mirrored left to right
                    c_draw = _back_for(deck_name, c, back_card)
                else:
                    c_draw = c
                x = int(round((x0_mm + col * (cw_mm + GAP_MM)) * ppm))
                y = int(round((y0_mm + r * (ch_mm + GAP_MM)) * ppm))
                img = R.render_card(c_draw, design, ppm)
                h, w = img.shape[:2]
                mask = R.card_mask((h, w), ppm)
                region = page[y : y + h, x : x + w]
                region[mask > 127] = img[mask > 127]
                cv2.rectangle(page, (x, y), (x + w - 1, y + h - 1), (200, 200, 200), 1)
                boxes.append((c_draw.id, x, y, w, h))
            _cut_marks(page, boxes, ppm)
            pages.append((page, boxes))
    return pages


def _back_for(deck_name: str, c: D.Card, default: D.Card) -> D.Card:
    if deck_name == "beccato":
        return D.card("beccato", f"back:beccato:{c.kind}")
    return default


def _cut_marks(page: np.ndarray, boxes, ppm: float) -> None:
    L = int(3 * ppm)
    xs = sorted({b[1] for b in boxes} | {b[1] + b[3] for b in boxes})
    ys = sorted({b[2] for b in boxes} | {b[2] + b[4] for b in boxes})
    top, bottom = min(ys), max(ys)
    left, right = min(xs), max(xs)
    for x in xs:
        cv2.line(page, (x, max(0, top - L - 2)), (x, max(0, top - 2)), (0, 0, 0), 1)
        cv2.line(page, (x, bottom + 2), (x, bottom + L + 2), (0, 0, 0), 1)
    for y in ys:
        cv2.line(page, (max(0, left - L - 2), y), (max(0, left - 2), y), (0, 0, 0), 1)
        cv2.line(page, (right + 2, y), (right + L + 2, y), (0, 0, 0), 1)


def write_pdf(pages, path: Path, dpi: float) -> None:
    from PIL import Image  # deferred: Pillow is not a run-time dependency; only printing needs it

    imgs = [Image.fromarray(cv2.cvtColor(p, cv2.COLOR_BGR2RGB)) for p, _ in pages]
    imgs[0].save(path, "PDF", resolution=dpi, save_all=True, append_images=imgs[1:])
