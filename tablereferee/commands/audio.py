"""`referee audio PATH`: the audible signals (hum, mumble, talk about TV / games / sport) in a
WAV file, the audio track of a video, or a live microphone (`mic`)."""

from __future__ import annotations

import json
import math

import click

from referee.core import RefereeError
from referee.observations import SignalEvent
from tablereferee.commands._errors import BY_KIND, exit_on_error
from tablereferee.commands._options import FiniteFloat
from tablereferee.commands._quiet import native_chatter_filtered


class MouthFileError(RefereeError):
    """A --mouth file that is not a JSON list of mouth_moving events."""


def _load_mouth(path: str) -> list[SignalEvent]:
    """The mouth_moving events of a JSON file: a list of events, or `{"events": [...]}` as
    `referee signals --json` prints it; other signals are skipped."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise MouthFileError(f"cannot read {path}: {exc.strerror or exc}", path=path) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise MouthFileError(f"{path} is not JSON: {exc}", path=path) from None
    if isinstance(data, dict):
        data = data.get("events", [])
    if not isinstance(data, list):
        raise MouthFileError(f'{path}: expected a list of events (or {{"events": [...]}})', path=path)
    out = []
    for n, d in enumerate(data):
        if not isinstance(d, dict):
            raise MouthFileError(f"{path}: event {n} is not an object", path=path, event=n)
        if d.get("signal") != "mouth_moving":
            continue
        try:
            start, end = float(d["start"]), float(d["end"])
            confidence = float(d.get("confidence", 1.0))
            player, evidence = d["player"], d.get("evidence", {})
        except KeyError as exc:
            raise MouthFileError(f"{path}: event {n} has no {exc}", path=path, event=n) from None
        except (TypeError, ValueError) as exc:
            raise MouthFileError(f"{path}: event {n}: {exc}", path=path, event=n) from None
        if not isinstance(player, str) or not isinstance(evidence, dict):
            raise MouthFileError(f"{path}: event {n}: the player must be a name, the evidence an object", path=path)
        if not (math.isfinite(start) and math.isfinite(end) and start <= end and 0 <= confidence <= 1):
            raise MouthFileError(
                f"{path}: event {n}: needs finite start <= end and a confidence in 0..1", path=path, event=n
            )
        out.append(SignalEvent(player, "mouth_moving", start, end, confidence, evidence))
    return out


def _mouth_from_video(path: str) -> list[SignalEvent]:
    """mouth_moving intervals of the video's seats, from the body-signal recogniser."""
    from vision.signals.engine import mouth_moving_events  # deferred: vision.signals loads NumPy

    with native_chatter_filtered():
        return list(mouth_moving_events(path))


@click.command("audio")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--windows", "show_windows", is_flag=True, help="Also print the per-window classes.")
@click.option(
    "--lang", type=click.Choice(["en", "it"]), default="en", show_default=True, help="Language spoken at the table."
)
@click.option(
    "--model",
    "model_dir",
    type=click.Path(),
    default=None,
    help="A PocketSphinx model folder for --lang (Italian: none ships; see docs/audio.md).",
)
@click.option("--no-recognition", is_flag=True, help="Skip speech recognition (speech is 'talking').")
@click.option(
    "--start",
    type=FiniteFloat(-1e9, 1e9),
    default=None,
    help="Session time of the first sample (default: the video's own, or 0).",
)
@click.option(
    "--seconds",
    type=FiniteFloat(0.0, 24 * 3600.0, min_open=True),
    default=10.0,
    show_default=True,
    help="With `mic`: how long to listen.",
)
@click.option("--device", default=None, help="With `mic`: input device index or name.")
@click.option(
    "--mouth",
    "mouth_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="JSON list of mouth_moving events: attribute each sound to a seat.",
)
@click.option("--attribute", is_flag=True, help="Attribute each sound to a seat from the mouth cue of the video PATH.")
def command(
    path, as_json, show_windows, lang, model_dir, no_recognition, start, seconds, device, mouth_file, attribute
):
    """Report hum, mumble and table talk (TV shows, games, sport) in PATH: a WAV file, a
    video's audio track, or `mic` for the live microphone."""
    with exit_on_error(BY_KIND, as_json):
        result = _run(
            path, show_windows, lang, model_dir, no_recognition, start, seconds, device, mouth_file, attribute
        )
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(f"{result['source']}: {result['duration']:.1f} s, noise floor {result['noise_floor_db']:.1f} dBFS")
    for note in result["notes"]:
        click.echo(f"note: {note}")
    for w in result.get("windows", []):
        click.echo(f"  {w['start']:7.2f}-{w['end']:7.2f}  {w['label']}")
    if not result["events"]:
        click.echo("no audible signal")
    for e in result["events"]:
        words = e["evidence"].get("words")
        click.echo(
            f"{e['start']:7.2f}-{e['end']:7.2f}  {e['signal']:<11} {e['player']:<10} "
            f"conf {e['confidence']:.2f}{' (unsure)' if e['unsure'] else ''}" + (f'  "{words}"' if words else "")
        )


def _run(path, show_windows, lang, model_dir, no_recognition, start, seconds, device, mouth_file, attribute):
    from vision.audio import sources  # deferred: vision.audio loads NumPy; --help starts without it
    from vision.audio.attribute import attribute as attribute_events  # deferred: vision.audio loads NumPy
    from vision.audio.pipeline import AudioListener  # deferred: vision.audio loads NumPy
    from vision.audio.recognize import SphinxRecognizer  # deferred: vision.audio loads NumPy

    if attribute and path == "mic":
        raise click.UsageError("--attribute needs a video PATH (with `mic`, pass --mouth FILE.json)")
    recognizer = None
    if model_dir and not no_recognition:
        recognizer = SphinxRecognizer.from_folder(model_dir, lang=lang)
    listener = AudioListener(lang=lang, recognizer=recognizer, recognize=not no_recognition)
    if path == "mic":
        clip = sources.Microphone(device=device).record(seconds)
        if start is not None:
            clip = sources.AudioClip(clip.samples, start, clip.source)
    else:
        clip = sources.load(path, start=start)
    analysis = listener.analyse(clip)
    events = analysis.events
    notes = [listener.no_recognizer_reason] if listener.no_recognizer_reason else []
    if mouth_file:
        events = attribute_events(events, _load_mouth(mouth_file))
    elif attribute:
        events = attribute_events(events, _mouth_from_video(path))
    out = {
        "source": clip.source,
        "start": round(clip.start, 3),
        "duration": round(clip.duration, 3),
        "noise_floor_db": round(analysis.noise_floor_db, 2),
        "notes": notes,
        "events": [e.to_dict() for e in events],
    }
    if show_windows:
        out["windows"] = [w.to_dict() for w in analysis.windows]
    return out
