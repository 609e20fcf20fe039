"""Measure the corner-index reader (vision/cards/corner_index.py) on real photos of real cards.

Sources (none was used to train the model; see models/corner_index/README.md):

* `edje/test` of ../shared/testdata/cards_real (Apache-2.0): 67 phone and webcam photos of a
  Bicycle-style deck's 9-to-ace cards, every box labelled with rank and suit
  (`labels_test.json`). Split by photo id, the project's rule (`vision.cards.real_eval.split_of`):
  a photo whose first number is a multiple of 3 (`IMG_2385.JPG`, `cam_image6.jpg`) is
  **held out**: nothing is tuned or trained on it; every other photo is **tune**.
* `edje/train` (296 photos, boxes labelled by rank only): the model was trained on its corners
  (and on the tune split's), so its row ("train") says how well the training data is fitted.
* tests/fixtures/cards (MIT, other decks: a casino deck's screenshots, a 2 of clubs), cards
  given by their centres: the project's detector finds the quad that holds each. Split by the
  same rule; never trained on (another design: the check that the index generalises).

For each face-up card not marked partial (the requirement's "unoccluded"): the quad is guessed
from its box the way the reader does (`vision.cards.refine.candidate_quads`, the first
`--guesses`), each guess rectified (`rectify`, at `--size`) and read (`read_index`); the read
kept is the most confident (the reader also picks among guesses by confidence). A read is
right (rank and suit), wrong-sure (a wrong name at `SURE` or more), wrong-unsure (a wrong name
under SURE) or unknown. Per-photo table, totals per split, and the synthetic held-out figures
of the model (models/corner_index/training.json) beside them.

    .venv/bin/python scripts/eval_corner_index.py [--json out.json] [--min-confidence 0.5]
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.cards import corner_index as C
from vision.cards.real_eval import split_of as real_split_of
from vision.cards.rectify import CANONICAL_SIZE, rectify
from vision.cards.refine import candidate_quads

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "testdata" / "cards_real" / "edje"
FIXTURE_CARDS = ROOT / "tests" / "fixtures" / "cards"
RANK_OF_LABEL = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
READ_SIZE = (180, 270)  # rectified at this size (w, h) for the read; CANONICAL_SIZE works as well


def split_of(photo: str) -> str:
    """'tune' or 'heldout' for a photo, by its file name alone: held out when its first number
    is a multiple of 3 (the project's rule, `vision.cards.real_eval.split_of`)."""
    return "heldout" if real_split_of(photo) == "held_out" else "tune"


@dataclass
class Card:
    source: str  # "edje-test", "edje-train", "fixtures"
    photo: str
    truth: str  # "QS"; for edje-train the rank alone ("Q")
    box: np.ndarray  # (4, 2) quad to start from (a box or a detected quad)
    partial: bool = False
    rank_only: bool = False


@dataclass
class Outcome:
    card: Card
    read: C.IndexRead
    quad: np.ndarray | None = None
    crop: np.ndarray | None = None

    @property
    def name(self) -> str | None:
        if self.read.unknown:
            return None
        return self.read.rank if self.card.rank_only else self.read.card

    @property
    def kind(self) -> str:
        if self.name is None:
            return "unknown"
        if self.name == self.card.truth:
            return "right"
        return "wrong_sure" if self.read.confidence >= C.SURE else "wrong_unsure"


@dataclass
class Tally:
    cards: int = 0
    right: int = 0
    wrong_sure: int = 0
    wrong_unsure: int = 0
    unknown: int = 0
    sure: int = 0
    sure_right: int = 0
    rows: list[str] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.cards += 1
        setattr(self, o.kind, getattr(self, o.kind) + 1)
        if not o.read.unknown and o.read.confidence >= C.SURE:
            self.sure += 1
            self.sure_right += int(o.kind == "right")

    def line(self, label: str) -> str:
        n = max(self.cards, 1)
        return (
            f"{label:<34} {self.cards:>5} {self.right:>5} ({100 * self.right / n:5.1f}%) {self.wrong_sure:>5}"
            f" {self.wrong_unsure:>5} {self.unknown:>5}   sure {self.sure:>4}, wrong among sure"
            f" {100 * (self.sure - self.sure_right) / max(self.sure, 1):4.1f}%"
        )

    def as_dict(self) -> dict:
        return {
            "cards": self.cards,
            "right": self.right,
            "wrong_sure": self.wrong_sure,
            "wrong_unsure": self.wrong_unsure,
            "unknown": self.unknown,
            "sure": self.sure,
            "right_share": self.right / max(self.cards, 1),
            "wrong_among_sure": (self.sure - self.sure_right) / max(self.sure, 1),
        }


def box_quad(box: Iterable[float]) -> np.ndarray:
    x0, y0, x1, y1 = (float(v) for v in box)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def edje_test() -> Iterator[tuple[str, np.ndarray, list[Card]]]:
    labels = json.loads((REAL / "labels_test.json").read_text(encoding="utf-8"))
    for photo in sorted(k for k in labels if not k.startswith("_")):
        image = cv2.imread(str(REAL / "test" / photo))
        if image is None:
            continue
        cards = [
            Card("edje-test", photo, b["card"], box_quad(b["box"]), partial=bool(b["partial"]))
            for b in labels[photo]
            if b.get("card") and b.get("face", "up") == "up"
        ]
        yield photo, image, cards


def edje_train() -> Iterator[tuple[str, np.ndarray, list[Card]]]:
    for xml in sorted((REAL / "train").glob("*.xml")):
        root = ET.parse(xml).getroot()
        photo = root.findtext("filename") or xml.with_suffix(".JPG").name
        path = REAL / "train" / photo
        if not path.is_file():
            path = next((p for p in (REAL / "train").glob(xml.stem + ".*") if p.suffix.lower() != ".xml"), path)
        image = cv2.imread(str(path))
        if image is None:
            continue
        cards = []
        for obj in root.iter("object"):
            bb = obj.find("bndbox")
            rank = RANK_OF_LABEL.get(obj.findtext("name") or "")
            if bb is None or rank is None:
                continue
            box = [float(bb.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax")]
            cards.append(Card("edje-train", path.name, rank, box_quad(box), rank_only=True))
        yield path.name, image, cards


def fixture_cards() -> Iterator[tuple[str, np.ndarray, list[Card]]]:
    from vision.cards.detector import CardDetector  # deferred: loads the ONNX detector only for this source

    detector = CardDetector()
    spec = json.loads((FIXTURE_CARDS / "cards.json").read_text(encoding="utf-8"))["cards"]
    for photo in sorted(spec):
        image = cv2.imread(str(FIXTURE_CARDS / photo))
        if image is None:
            continue
        found = detector(image)
        up = np.asarray(found.corners[found.face_up], np.float32)
        cards = []
        for c in spec[photo]:
            name = str(c["card"])
            partial = " " in name  # "8D under a hand"
            quad = next(
                (
                    q
                    for q in up
                    if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c["x"]), float(c["y"])), False) >= 0
                ),
                None,
            )
            if quad is None:  # not found by the detector: a box of a typical card's size at its centre
                quad = box_quad([c["x"] - 40, c["y"] - 56, c["x"] + 40, c["y"] + 56])
            cards.append(Card("fixtures", photo, name.split(" ")[0], quad, partial=partial))
        yield photo, image, cards


@dataclass(frozen=True)
class Settings:
    guesses: int = 4  # quad guesses per card (candidate_quads)
    min_confidence: float = C.MIN_CONFIDENCE
    scales: tuple[float, ...] = C.SCALES
    size: tuple[int, int] = READ_SIZE
    show: str = "all"  # the split whose rows are printed


def read_card(image: np.ndarray, card: Card, settings: Settings, model: C.IndexModel) -> Outcome:
    """The most confident read among the first `guesses` quads guessed from the card's box."""
    best: Outcome | None = None
    for k, quad in enumerate(candidate_quads(image, card.box)):
        if k >= settings.guesses:
            break
        crop = rectify(image, quad, settings.size)
        read = C.read_index(crop, model, min_confidence=settings.min_confidence, scales=settings.scales)
        if best is None or read.confidence > best.read.confidence:
            best = Outcome(card, read, quad, crop)
    return best if best is not None else Outcome(card, C.IndexRead(None, None, 0.0, True))


def write_fixture(folder: Path, index: dict, image: np.ndarray, o: Outcome, split: str, n: int) -> None:
    """The card's crop (rectified at CANONICAL_SIZE from the quad of its kept read) as a small
    JPEG in `folder`, and its entry in `index`."""
    if o.quad is None:
        return
    crop = rectify(image, o.quad, CANONICAL_SIZE)
    name = f"{split}_{Path(o.card.photo).stem}_{n}_{o.card.truth}.jpg"
    cv2.imwrite(str(folder / name), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
    index[name] = {
        "card": o.card.truth,
        "split": split,
        "source": o.card.source,
        "photo": o.card.photo,
        "quad": np.round(o.quad, 1).tolist(),
    }


def contact_sheet(path: Path, items: list[tuple[np.ndarray, str]], per_row: int = 10) -> None:
    """The crops (each rectified card, its corners' patches beside it) in a grid, each captioned."""
    tiles = []
    for crop, caption in items:
        card = cv2.resize(crop, (120, 180))
        corners = np.vstack([C.corner_patch(card), C.corner_patch(card, turned=True)])
        corners = cv2.resize(corners, (60, 180))
        tile = np.full((200, 184, 3), 255, np.uint8)
        tile[:180, :120] = card
        tile[:180, 122:182] = corners
        cv2.putText(tile, caption, (2, 195), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (0, 0, 200), 1, cv2.LINE_AA)
        tiles.append(tile)
    if not tiles:
        return
    while len(tiles) % per_row:
        tiles.append(np.full_like(tiles[0], 255))
    rows = [np.hstack(tiles[i : i + per_row]) for i in range(0, len(tiles), per_row)]
    cv2.imwrite(str(path), np.vstack(rows))


def evaluate(
    settings: Settings,
    with_train: bool,
    verbose: bool,
    model_dir: Path = C.MODEL_DIR,
    fixtures: Path | None = None,
    sheet: Path | None = None,
) -> dict:
    model = C.IndexModel.load(model_dir / C.MODEL_FILE)
    tallies: dict[str, Tally] = {}
    splits: dict[str, str] = {}
    fixture_index: dict[str, dict] = {}
    outcomes: list[dict] = []
    failures: dict[str, list[tuple[np.ndarray, str]]] = {}

    def tally(key: str) -> Tally:
        return tallies.setdefault(key, Tally())

    print(f"{'photo':<26} {'split':<8} {'card':<5} {'read':<5} {'conf':>5}  kind")
    sources = [("edje-test", edje_test()), ("fixtures", fixture_cards())]
    if with_train:
        sources.append(("edje-train", edje_train()))
    for source, photos in sources:
        for photo, image, cards in photos:
            split = "train" if source == "edje-train" else split_of(photo)
            splits[f"{source} {photo}"] = split
            for n, card in enumerate(cards):
                o = read_card(image, card, settings, model)
                if fixtures is not None and not card.partial and source != "edje-train":
                    write_fixture(fixtures, fixture_index, image, o, split, n)
                # edje/train marks no card partial: its group is every box
                group = "all boxes" if card.rank_only else ("partial" if card.partial else "unoccluded")
                tally(f"{source} {split} {group}").add(o)
                if sheet is not None and o.kind != "right" and o.crop is not None and source != "edje-train":
                    caption = f"{Path(photo).stem[:14]} {card.truth}>{o.name or '?'} {o.read.confidence:.2f}"
                    failures.setdefault(f"{split}-{group}", []).append((o.crop, caption))
                if not card.partial:
                    tally(f"photo {source} {photo}").add(o)
                    if source != "edje-train":
                        tally(f"ALL {split} unoccluded (rank+suit)").add(o)
                outcomes.append(
                    {
                        "source": source,
                        "photo": photo,
                        "split": split,
                        "partial": card.partial,
                        "truth": card.truth,
                        "read": o.name,
                        "best": (o.read.rank or "") + ("" if card.rank_only else (o.read.suit or "")),
                        "confidence": round(o.read.confidence, 4),
                        "kind": o.kind,
                    }
                )
                shown = settings.show in ("all", split)
                if shown and (verbose and source != "edje-train" or o.kind == "wrong_sure"):
                    print(
                        f"{photo:<26} {split:<8} {card.truth:<5} {o.name or '-':<5} {o.read.confidence:5.2f}  {o.kind}"
                        + (" (partial)" if card.partial else "")
                    )
    print()
    print(f"{'':<34} {'cards':>5} {'right':>5} {'':>8} {'wrSure':>5} {'wrUns':>5} {'unkn':>5}")
    for key in sorted(k for k in tallies if k.startswith("photo ")):
        if verbose and settings.show in ("all", splits[key[6:]]):
            print(tallies[key].line(key[6:]))
    for key in sorted(k for k in tallies if not k.startswith("photo ")):
        print(tallies[key].line(key))
    for key, items in failures.items():
        contact_sheet(Path(f"{sheet}-{key}.png"), items)
    if fixtures is not None:
        (fixtures / "crops.json").write_text(json.dumps(fixture_index, indent=1) + "\n", encoding="utf-8")
    training = model_dir / "training.json"
    synth = json.loads(training.read_text(encoding="utf-8")).get("synthetic_heldout") if training.is_file() else None
    if synth:
        print(
            f"synthetic held-out (one corner, {synth['with_index']} patches): rank {100 * synth['rank_accuracy']:.1f}%,"
            f" suit {100 * synth['suit_accuracy']:.1f}%, card right {100 * synth['one_corner_right']:.1f}%,"
            f" unknown {100 * synth['one_corner_unknown']:.1f}%,"
            f" wrong among sure {100 * synth['one_corner_wrong_sure_of_sure']:.2f}%"
        )
    return {
        "guesses": settings.guesses,
        "min_confidence": settings.min_confidence,
        "scales": list(settings.scales),
        "sure": C.SURE,
        "read_size": list(settings.size),
        "totals": {k: t.as_dict() for k, t in tallies.items() if not k.startswith("photo ")},
        "photos": {k[6:]: t.as_dict() for k, t in tallies.items() if k.startswith("photo ")},
        "synthetic_heldout": synth,
        "outcomes": outcomes,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guesses", type=int, default=4, help="quad guesses per card (candidate_quads)")
    ap.add_argument("--min-confidence", type=float, default=C.MIN_CONFIDENCE)
    ap.add_argument("--no-train", action="store_true", help="leave out the rank-only edje/train photos")
    ap.add_argument("--quiet", action="store_true", help="no per-card and per-photo rows")
    ap.add_argument("--model", type=Path, default=C.MODEL_DIR, help="folder of corner_index.npz and training.json")
    ap.add_argument("--write-fixtures", type=Path, help="write each unoccluded card's crop here (tests' fixtures)")
    ap.add_argument("--json", type=Path, help="write the figures and every card's outcome here")
    ap.add_argument("--sheet", type=Path, help="contact sheets of the misses: SHEET-<split>-<group>.png")
    ap.add_argument("--scales", type=float, nargs="+", default=list(C.SCALES), help="corner sizes read and averaged")
    ap.add_argument("--size", type=int, nargs=2, default=list(READ_SIZE), help="rectified card size (w h) read at")
    ap.add_argument("--split", choices=("tune", "heldout", "all"), default="all", help="whose rows are printed")
    args = ap.parse_args(argv)
    settings = Settings(
        args.guesses,
        args.min_confidence,
        tuple(args.scales),
        (args.size[0], args.size[1]),
        args.split,
    )
    if args.write_fixtures:
        args.write_fixtures.mkdir(parents=True, exist_ok=True)
    result = evaluate(settings, not args.no_train, not args.quiet, args.model, args.write_fixtures, args.sheet)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
