"""`referee audio PATH`: the audible signals (hum, mumble, talk about TV / games / sport) in a
WAV file, the audio track of a video, or a live microphone (`mic`)."""

from __future__ import annotations

import json
import sys

import click

from referee.core import RefereeError


def _load_mouth(path: str):
    from referee.observations import SignalEvent

    with open(path) as f:
        data = json.load(f)
    if isinstance(data, dict):
        data = data.get("events", [])
    out = []
    for d in data:
        if d.get("signal") == "mouth_moving":
            out.append(SignalEvent(d["player"], d["signal"], float(d["start"]), float(d["end"]),
                                   float(d.get("confidence", 1.0)), d.get("evidence", {})))
    return out


def _mouth_from_video(path: str):
    """mouth_moving intervals from the body-signal recogniser, when it offers a function for it."""
    import importlib

    from vision.audio.errors import AudioError

    for module_name, func_name in (("vision.signals.engine", "mouth_moving_events"),
                                   ("vision.signals", "mouth_intervals"),
                                   ("vision.signals.mouth", "mouth_intervals"),
                                   ("vision.signals.detect", "mouth_intervals")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        func = getattr(module, func_name, None)
        if callable(func):
            return list(func(path))

    class MouthCueUnavailable(AudioError):
        """The body-signal recogniser offers no mouth_moving intervals for a video."""

    raise MouthCueUnavailable(
        "no mouth cue: vision.signals offers no mouth_moving_events(video); pass --mouth FILE.json "
        "with mouth_moving events instead", path=path)


@click.command("audio")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--windows", "show_windows", is_flag=True, help="Also print the per-window classes.")
@click.option("--lang", type=click.Choice(["en", "it"]), default="en", show_default=True,
              help="Language spoken at the table.")
@click.option("--model", "model_dir", type=click.Path(), default=None,
              help="A PocketSphinx model folder for --lang (Italian: none ships; see docs/audio.md).")
@click.option("--no-recognition", is_flag=True, help="Skip speech recognition (speech is 'talking').")
@click.option("--start", type=float, default=None,
              help="Session time of the first sample (default: the video's own, or 0).")
@click.option("--seconds", type=float, default=10.0, show_default=True,
              help="With `mic`: how long to listen.")
@click.option("--device", default=None, help="With `mic`: input device index or name.")
@click.option("--mouth", "mouth_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="JSON list of mouth_moving events: attribute each sound to a seat.")
@click.option("--attribute", is_flag=True,
              help="Attribute each sound to a seat from the mouth cue of the video PATH.")
def command(path, as_json, show_windows, lang, model_dir, no_recognition, start, seconds, device,
            mouth_file, attribute):
    """Report hum, mumble and table talk (TV shows, games, sport) in PATH: a WAV file, a
    video's audio track, or `mic` for the live microphone."""
    try:
        result = _run(path, show_windows, lang, model_dir, no_recognition, start, seconds, device,
                      mouth_file, attribute)
    except RefereeError as exc:
        if as_json:
            click.echo(json.dumps(exc.to_dict()), err=True)
        else:
            click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(f"{result['source']}: {result['duration']:.1f} s, noise floor "
               f"{result['noise_floor_db']:.1f} dBFS")
    for note in result["notes"]:
        click.echo(f"note: {note}")
    for w in result.get("windows", []):
        click.echo(f"  {w['start']:7.2f}-{w['end']:7.2f}  {w['label']}")
    if not result["events"]:
        click.echo("no audible signal")
    for e in result["events"]:
        words = e["evidence"].get("words")
        click.echo(f"{e['start']:7.2f}-{e['end']:7.2f}  {e['signal']:<11} {e['player']:<10} "
                   f"conf {e['confidence']:.2f}{' (unsure)' if e['unsure'] else ''}"
                   + (f"  \"{words}\"" if words else ""))


def _run(path, show_windows, lang, model_dir, no_recognition, start, seconds, device, mouth_file,
         attribute):
    from vision.audio import sources
    from vision.audio.attribute import attribute as attribute_events
    from vision.audio.pipeline import AudioListener
    from vision.audio.recognize import SphinxRecognizer

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
    out = {"source": clip.source, "start": round(clip.start, 3), "duration": round(clip.duration, 3),
           "noise_floor_db": round(analysis.noise_floor_db, 2), "notes": notes,
           "events": [e.to_dict() for e in events]}
    if show_windows:
        out["windows"] = [w.to_dict() for w in analysis.windows]
    return out
