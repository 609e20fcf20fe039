"""The Italian regional decks shipped with the referee, made from flat scans of real cards.

Napoletane, Piacentine and Bergamasche are read with no enrolment: each is a deck folder in
`models/decks/NAME/` (the enrolled-deck format of vision/cards/templates.py, built by
`scripts/build_regional_decks.py`), whose base is the built-in `italian` deck, so a card reads
as the id the trick-taking engines take (`AC` is the Asso di coppe, `RB` the Re di bastoni).
"""

from __future__ import annotations

import re

from vision.cards.detector import MODELS_DIR

SHIPPED_DECKS_DIR = MODELS_DIR / "decks"

# deck name -> the folder of its scans
REGIONAL_DECKS = {"napoletane": "Napoletane", "piacentine": "Piacentine", "bergamasche": "Bergamasche"}

_SCAN = re.compile(r"^(10|[1-9])([bcds])\.jpg$")
_RANKS = {1: "A", 8: "F", 9: "C", 10: "R"}  # Asso, Fante, Cavallo, Re; 2-7 are their number


def card_id_of_scan(file_name: str) -> str:
    """`7d.jpg` -> `7D` (the sette di denari), `10b.jpg` -> `RB` (the re di bastoni)."""
    m = _SCAN.match(file_name.lower())
    if m is None:
        raise ValueError(f"{file_name}: a scan is named <value 1-10><b|c|d|s>.jpg")
    value = int(m.group(1))
    return f"{_RANKS.get(value, str(value))}{m.group(2).upper()}"
