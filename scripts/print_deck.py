"""Print-and-play PDF of a deck at real card size, with cut marks, so a group can print a deck
that the camera reads best.

    .venv/bin/python scripts/print_deck.py beccato --design classic -o beccato.pdf
    .venv/bin/python scripts/print_deck.py italian --paper letter --backs -o italian.pdf

(`vision.cards.printing`.) Cards are laid out in a grid on A4 (or US Letter) pages at --dpi (300 by default); with
--backs, each page of faces is followed by a page of backs mirrored for long-edge duplex
printing. Pillow writes the PDF (a page is one image at the given resolution, so the printed
size is exact when the printer does not "fit to page").
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.cards import decks as D
from vision.cards import printing
from vision.cards import render as R


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("deck", choices=D.DECKS)
    ap.add_argument("--design", default="classic", choices=sorted(R.DESIGNS))
    ap.add_argument("--paper", default="a4", choices=sorted(printing.PAPER_MM))
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--backs", action="store_true", help="a page of backs after each page of faces")
    ap.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args(argv)
    pages = printing.layout_pages(args.deck, args.design, args.paper, args.dpi, args.backs)
    printing.write_pdf(pages, args.output, args.dpi)
    cols, rows = printing.grid(args.deck, args.paper)
    w, h = D.CARD_SIZE_MM[args.deck]
    print(f"{args.output}: {len(pages)} pages, {cols}x{rows} cards of {w:g}x{h:g} mm per page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
