"""`referee cards PATH`: the cards in a picture, a video or a camera, frame by frame.

Per processed frame: its time, and for every card its label (or `unknown`), the confidence, the
four corners, face up or down, the orientation, the track id and the zone when known. `--json`
prints one JSON object per frame (JSON Lines); `--overlay OUT` writes the picture or the video
with the cards drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.core import RefereeError
from tablereferee.commands._errors import BY_KIND, CommandError
from tablereferee.commands._options import FiniteFloat

if TYPE_CHECKING:
    import cv2
    import numpy as np


def draw_cards(image, cards):
    """The frame with each card's outline (green face up, grey face down), its top edge
    thicker, and its label, confidence and track id."""
    import cv2  # deferred: OpenCV takes ~0.1 s to load; --help starts without it
    import numpy as np  # deferred: NumPy takes ~0.1 s to load; --help starts without it

    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    for d in cards.to_dicts():
        quad = np.asarray(d["corners"], np.float32)
        colour = (60, 200, 60) if d["face_up"] else (160, 160, 160)
        if d["face_up"] and d["label"] == "unknown":
            colour = (0, 165, 255)
        cv2.polylines(out, [quad.astype(np.int32)], True, colour, max(1, int(2 * scale)), cv2.LINE_AA)
        cv2.line(
            out, tuple(quad[0].astype(int)), tuple(quad[1].astype(int)), colour, max(2, int(5 * scale)), cv2.LINE_AA
        )
        text = d["label"] if d["face_up"] else "face down"
        if d["face_up"] and d["label"] != "unknown":
            text += f" {d['confidence']:.2f}"
        if d["track_id"] is not None:
            text = f"#{d['track_id']} {text}"
        if d["zone"]:
            text += f" @{d['zone']}"
        x, y = quad[:, 0].min(), quad[:, 1].min()
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, 1)
        y = max(th + 4, int(y) - 4)
        cv2.rectangle(out, (int(x), y - th - 4), (int(x) + tw + 4, y + 2), colour, -1)
        cv2.putText(out, text, (int(x) + 2, y - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0), 1, cv2.LINE_AA)
    return out


class OverlayWriter:
    """Writes the overlay: one picture for an image source, a video otherwise."""

    def __init__(self, path: str, kind: str, fps: float | None) -> None:
        self.path, self.kind, self.fps = Path(path), kind, fps or 25.0
        self._writer: cv2.VideoWriter | None = None

    def write(self, image: np.ndarray) -> None:
        import cv2  # deferred: OpenCV takes ~0.1 s to load; --help starts without it

        if self.kind == "image":
            try:
                written = cv2.imwrite(str(self.path), image)
            except cv2.error:
                written = False
            if not written:
                raise OverlayNotWritten(f"cannot write the picture {self.path}", path=str(self.path))
            return
        if self._writer is None:
            mp4 = self.path.suffix.lower() in (".mp4", ".m4v", ".mov")
            fourcc = cv2.VideoWriter.fourcc(*("mp4v" if mp4 else "MJPG"))
            self._writer = cv2.VideoWriter(str(self.path), fourcc, self.fps, (image.shape[1], image.shape[0]))
            if not self._writer.isOpened():
                raise OverlayNotWritten(f"cannot write the video {self.path}", path=str(self.path))
        self._writer.write(image)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()


class OverlayNotWritten(RefereeError):
    """The overlay file could not be written."""


VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov", ".avi", ".mkv")


def check_overlay_path(path: str, kind: str) -> None:
    """A usage error before any work when OUT's name says a format the overlay cannot be."""
    import cv2  # deferred: OpenCV takes ~0.1 s to load; --help starts without it

    suffix = Path(path).suffix.lower()
    if kind == "image":
        if not suffix or not cv2.haveImageWriter(f"x{suffix}"):
            raise click.BadParameter(
                f"{path}: name the picture .png, .jpg, .bmp, .webp or .tif", param_hint="'--overlay'"
            )
    elif suffix not in VIDEO_SUFFIXES:
        raise click.BadParameter(f"{path}: name the video {', '.join(VIDEO_SUFFIXES)}", param_hint="'--overlay'")
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise OverlayNotWritten(f"no folder {str(folder)!r} to write {Path(path).name} in", path=path)


def _seats(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise click.BadParameter(
            "name the players clockwise from the camera side: --seats Ann,Bob", param_hint="'--seats'"
        )
    return names


def _possible(text: str | None, deck) -> list[str] | None:
    """The card ids of --possible, each one the deck knows (a typo would silently rule out every card)."""
    if text is None:
        return None
    if deck is None:
        raise click.BadParameter("needs --deck: the card ids are the deck's", param_hint="'--possible'")
    ids = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [i for i in ids if deck.faces.label_of(i) is None]
    if not ids or unknown:
        examples = ", ".join(deck.faces.labels[:3])
        raise click.BadParameter(
            f"{', '.join(unknown) or 'no card id'}: not a card of {deck.name} (e.g. {examples})",
            param_hint="'--possible'",
        )
    return ids


def frame_record(frame, cards) -> dict:
    return {"frame": frame.index, "time": round(frame.time, 3), "cards": cards.to_dicts()}


def _text_lines(rec: dict) -> list[str]:
    lines = [f"t={rec['time']:.2f}s frame {rec['frame']}: {len(rec['cards'])} card(s)"]
    for c in rec["cards"]:
        state = "face up" if c["face_up"] else "face down"
        conf = f" {c['confidence']:.2f}" if c["label"] != "unknown" else ""
        track = f" #{c['track_id']}" if c["track_id"] is not None else ""
        zone = f" in {c['zone']}" if c["zone"] else ""
        corners = " ".join(f"({x:.0f},{y:.0f})" for x, y in c["corners"])
        lines.append(f"  {c['label']}{conf} {state} {c['orientation']:.0f}deg{track}{zone} {corners}")
    return lines


@click.command("cards")
@click.argument("path")
@click.option(
    "--deck",
    "deck_name",
    default=None,
    help="Deck to identify against: built in (beccato, italian, french52, french40, or DECK:DESIGN) "
    "or enrolled with `referee enroll-deck`. Without it cards are found but not named.",
)
@click.option(
    "--decks-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of enrolled decks (default ~/.local/share/table-referee/decks).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per frame (JSON Lines).")
@click.option(
    "--overlay",
    "overlay",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the picture or video with the cards drawn.",
)
@click.option("--model", type=click.Path(dir_okay=False), default=None, help="Card detector ONNX model.")
@click.option(
    "--conf",
    type=FiniteFloat(0.0, 1.0, min_open=True),
    default=0.25,
    show_default=True,
    help="Detector confidence threshold, above 0 and at most 1.",
)
@click.option(
    "--zones",
    "zones_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Table layout JSON (zones in table coordinates; see vision/cards/zones.py).",
)
@click.option("--seats", default=None, help="Comma-separated players clockwise from the camera side: default zones.")
@click.option("--possible", default=None, help="Comma-separated card ids still possible (resolves near ties).")
@click.option("--every", type=click.IntRange(min=1), default=1, show_default=True, help="Read every Nth frame.")
@click.option("--max-frames", type=click.IntRange(min=1), default=None, help="Stop after N frames read.")
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="onnxruntime threads (1 to 256).")
def command(
    path, deck_name, decks_dir, as_json, overlay, model, conf, zones_file, seats, possible, every, max_frames, threads
):
    """Read the cards in PATH: an image, a video file or a camera index (0, 1...)."""
    from vision.cards.detector import CardDetector  # deferred: loads OpenCV; --help starts without it
    from vision.cards.reader import CardReader  # deferred: loads OpenCV
    from vision.cards.templates import load_deck  # deferred: loads OpenCV
    from vision.cards.track import CardTracker  # deferred: loads NumPy
    from vision.cards.zones import TableLayout  # deferred: loads OpenCV
    from vision.video import open_frames  # deferred: loads OpenCV

    writer = None
    try:
        deck = load_deck(deck_name, decks_dir) if deck_name else None
        layout = (
            TableLayout.load(zones_file)
            if zones_file
            else (TableLayout.default(_seats(seats)) if seats is not None else None)
        )
        source = open_frames(path)
        detector = CardDetector(model, conf=conf, threads=threads)
        tracker = CardTracker(frame_rate=(source.fps or 25.0) / every) if source.kind != "image" else None
        reader = CardReader(detector, deck, tracker=tracker, layout=layout)
        maybe = _possible(possible, deck)
        if overlay:
            check_overlay_path(overlay, source.kind)
            writer = OverlayWriter(overlay, source.kind, (source.fps or 25.0) / every)
        n = 0
        with source:
            for frame in source:
                if frame.index % every:
                    continue
                cards = reader.read(frame.image, possible=maybe)
                rec = frame_record(frame, cards)
                if as_json:
                    click.echo(json.dumps(rec))
                else:
                    click.echo("\n".join(_text_lines(rec)))
                if writer is not None:
                    writer.write(draw_cards(frame.image, cards))
                n += 1
                if max_frames and n >= max_frames:
                    break
    except RefereeError as exc:
        raise CommandError(exc, BY_KIND, as_json) from None
    finally:
        if writer is not None:
            writer.close()
