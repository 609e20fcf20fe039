"""`referee enroll-deck NAME PHOTO...`: enrol a physical deck from photos of its cards.

One photo per card, each named after its card (`4S.jpg`, `spades_4.jpg`, `4 di coppe.jpg`:
with `--base` the names are read; some named and some not is refused), or sheets of N cards
(`--per-photo N`, read in rows, left to right) in the order `--guide` prints (with how to take
the photos). Each card must lie upright. A photo with no card, two cards, blur, a card cut off
by the photo's edge, or a French card whose pips say it is another card than its name is
rejected by name and nothing is written. A contact sheet of what was learnt is written beside
the deck.
"""

from __future__ import annotations

import json
import sys

import click

from referee.core import RefereeError
from tablereferee.commands._errors import EXIT_USAGE, echo_error, exit_code_for


@click.command("enroll-deck")
@click.argument("name")
@click.argument("photos", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "--base",
    default=None,
    help="The deck the printing follows (beccato, italian, french52, french40): "
    "the card ids and the guided order come from it.",
)
@click.option(
    "--cards",
    "cards",
    default=None,
    help="Comma-separated card ids in photo order (default: --base's order, or the photo file names).",
)
@click.option(
    "--per-photo",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Cards on each photo (a sheet), read in rows, left to right.",
)
@click.option(
    "--back",
    "backs",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="A photo of the deck's back (repeatable): face-down cards are then recognised as backs.",
)
@click.option(
    "--decks-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where enrolled decks live (default ~/.local/share/table-referee/decks).",
)
@click.option("--replace", is_flag=True, help="Replace a deck of the same name.")
@click.option("--model", type=click.Path(dir_okay=False), default=None, help="Card detector ONNX model.")
@click.option("--guide", "show_guide", is_flag=True, help="Print the order of the photos and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the result (or the error) as JSON.")
def command(name, photos, base, cards, per_photo, backs, decks_dir, replace, model, show_guide, as_json):
    """Enrol the deck NAME from PHOTO files, so `referee cards --deck NAME` can read it."""
    from vision.cards.detector import CardDetector, ModelNotFound  # deferred: loads OpenCV; --help starts without it
    from vision.cards.enroll import (  # deferred: loads OpenCV; --help starts without it
        CONTACT_SHEET,
        HOW_TO,
        enroll_deck,
        guide,
    )

    labels = [c.strip() for c in cards.split(",") if c.strip()] if cards else None
    try:
        if show_guide:
            for line in HOW_TO:
                click.echo(line)
            click.echo("")
            for line in guide(base, labels, per_photo):
                click.echo(line)
            return
        try:
            detector = CardDetector(model)
        except ModelNotFound:
            if model:
                raise
            detector = None  # the contour finder alone
        result = enroll_deck(
            name,
            photos,
            base=base,
            labels=labels,
            per_photo=per_photo,
            back_photos=backs,
            detector=detector,
            decks_dir=decks_dir,
            replace=replace,
        )
    except RefereeError as exc:
        echo_error(exc, as_json)
        if not as_json:
            for r in exc.details.get("rejected", []):
                click.echo(f"  {r['photo']}: {r['reason']}: {r['message']}", err=True)
        sys.exit(exit_code_for(exc))
    except KeyError as exc:  # an unknown --base deck (vision.cards.decks.UnknownDeck)
        message = str(exc.args[0]) if exc.args else str(exc)
        if as_json:
            click.echo(json.dumps({"error": "UnknownDeck", "message": message}), err=True)
        else:
            click.echo(f"error: UnknownDeck: {message}", err=True)
        sys.exit(EXIT_USAGE)
    if as_json:
        click.echo(json.dumps(result.to_dict() | {"contact_sheet": str(result.folder / CONTACT_SHEET)}))
    else:
        click.echo(f"enrolled {result.name}: {len(result.labels)} cards in {result.folder}")
        click.echo(f"what was learnt, card by card: {result.folder / CONTACT_SHEET}")
