"""Build the shipped Italian regional decks (models/decks/) from flat scans of their cards.

    .venv/bin/python scripts/build_regional_decks.py --scans ../shared/testdata/cards_real/scopa

For each of Napoletane, Piacentine and Bergamasche, the 40 scans `<value><b|c|d|s>.jpg` (value
1-10, 8 = Fante, 9 = Cavallo, 10 = Re; bastoni, coppe, denari, spade) and `back.jpg` become a
deck folder in the enrolled-deck format (vision/cards/templates.py: deck.json and
templates/*.png at the canonical size), whose base is the built-in `italian` deck, so the card
ids (`AC`, `7D`, `RB`...) are the ones the trick-taking engines read. The scans are public
domain (see models/decks/ATTRIBUTION.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.cards.regional import REGIONAL_DECKS, SHIPPED_DECKS_DIR, card_id_of_scan  # noqa: E402
from vision.cards.templates import to_canonical, write_deck_folder  # noqa: E402


def build(scans: Path, out: Path) -> dict[str, int]:
    made: dict[str, int] = {}
    for name, folder in REGIONAL_DECKS.items():
        source = scans / folder
        faces, ids = {}, {}
        for path in sorted(source.glob("*.jpg")):
            if path.stem == "back":
                continue
            card = card_id_of_scan(path.name)
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise SystemExit(f"{path} cannot be read")
            faces[card] = to_canonical(image)
            ids[card] = [card]
        if len(faces) != 40:
            raise SystemExit(f"{source}: {len(faces)} card scans, a deck has 40")
        back = cv2.imread(str(source / "back.jpg"), cv2.IMREAD_COLOR)
        backs = {"back": to_canonical(back)} if back is not None else {}
        about = json.loads((source / "cards.json").read_text(encoding="utf-8")).get("_about", {})
        write_deck_folder(
            out / name,
            name,
            faces,
            backs,
            card_ids=ids,
            base="italian",
            extra={"source": "scans", "printing": about.get("deck", folder)},
        )
        made[name] = len(faces)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=Path, required=True, help="folder with Napoletane/, Piacentine/, Bergamasche/")
    parser.add_argument("--out", type=Path, default=SHIPPED_DECKS_DIR)
    args = parser.parse_args()
    for name, n in build(args.scans, args.out).items():
        print(f"{name}: {n} faces and the back -> {args.out / name}")


if __name__ == "__main__":
    main()
