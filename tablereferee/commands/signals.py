"""`referee signals PATH`: body signals seen in an image, a video or a camera."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from referee.core import RefereeError
from tablereferee.commands._errors import BY_KIND, CommandError
from tablereferee.commands._options import FiniteFloat
from tablereferee.commands._quiet import native_chatter_filtered

OVERLAY_SUFFIXES = (".mp4", ".m4v", ".mov")


class OverlayNotWritten(RefereeError):
    """The overlay video could not be written."""


@click.command("signals")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (events, and landmarks with --landmarks).")
@click.option("--landmarks", is_flag=True, help="Also print the per-frame landmarks.")
@click.option(
    "--overlay", type=click.Path(dir_okay=False), help="Write OUT.mp4 with landmarks, seats and events drawn."
)
@click.option(
    "--calibration",
    "calibration_path",
    type=click.Path(dir_okay=False),
    help="A table calibration JSON (seats, table lines); proposed from the first seconds when absent.",
)
@click.option("--save-calibration", type=click.Path(dir_okay=False), help="Write the calibration used (to edit it).")
@click.option("--names", help="Comma-separated player names for proposed seats (left to right).")
@click.option("--mirrored", is_flag=True, help="The source is a mirrored (selfie) view.")
@click.option(
    "--fps",
    type=FiniteFloat(0.0, min_open=True),
    default=10.0,
    show_default=True,
    help="Frames per second to analyse (above 0).",
)
@click.option("--free", "free_path", type=click.Path(dir_okay=False), help="A learnt Free Signal JSON to look for.")
@click.option("--max-frames", type=click.IntRange(min=1), help="Stop after this many frames (cameras).")
@click.option(
    "--learn-free",
    type=click.Path(dir_okay=False),
    help="Learn a Free Signal from 3-5 demonstration SOURCEs and write it to this JSON.",
)
@click.option("--player", help="With --learn-free: the seat whose gesture is learnt (default: the first).")
def command(
    sources: tuple[str, ...],
    as_json: bool,
    landmarks: bool,
    overlay: str | None,
    calibration_path: str | None,
    save_calibration: str | None,
    names: str | None,
    mirrored: bool,
    fps: float,
    free_path: str | None,
    max_frames: int | None,
    learn_free: str | None,
    player: str | None,
) -> None:
    """Recognise the Beccato! body signals (touches, raised hands, elbows, taps, winks, moving
    mouths) in SOURCE: an image, a video file or a camera index. With --learn-free, the SOURCEs
    are 3-5 recordings of a team's own gesture."""
    from vision.landmarks.calibration import CalibrationError, TableCalibration  # deferred: loads NumPy
    from vision.signals.engine import detect_signals, landmarks_from_media  # deferred: loads NumPy
    from vision.signals.free import FreeSignal  # deferred: loads NumPy

    if learn_free:
        with native_chatter_filtered():
            _learn(sources, learn_free, player, calibration_path, fps, mirrored)
        return
    if len(sources) != 1:
        raise click.UsageError("give one SOURCE (several only with --learn-free)")
    if overlay and Path(overlay).suffix.lower() not in OVERLAY_SUFFIXES:
        raise click.BadParameter(f"{overlay}: name the video {', '.join(OVERLAY_SUFFIXES)}", param_hint="'--overlay'")
    source = sources[0]
    try:
        calibration = TableCalibration.load(calibration_path) if calibration_path else None
        if calibration is not None and mirrored and not calibration.mirrored:
            calibration = dataclasses.replace(calibration, mirrored=True)
        free = FreeSignal.load(free_path) if free_path else None
        if max_frames is None and source.isdigit():
            max_frames = 300
        with native_chatter_filtered():
            frames, calibration = landmarks_from_media(
                source,
                calibration,
                fps=fps,
                names=_names(names),
                mirrored=mirrored,
                max_frames=max_frames,
            )
        events = detect_signals(frames, calibration, free=free)
        if save_calibration:
            try:
                calibration.save(save_calibration)
            except OSError as exc:
                raise CalibrationError(f"cannot write {save_calibration}: {exc.strerror or exc}") from None
        if overlay:
            _write_overlay(source, frames, calibration, events, overlay, max_frames)
    except RefereeError as exc:
        raise CommandError(exc, BY_KIND, as_json) from None

    if as_json:
        out = {
            "source": source,
            "calibration": calibration.to_dict(),
            "problems": calibration.status(),
            "events": [e.to_dict() for e in events],
        }
        if landmarks:
            out["landmarks"] = [f.to_dict() for f in frames]
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return
    for problem in calibration.status():
        click.echo(f"note: {problem}", err=True)
    if landmarks:
        for f in frames:
            parts = []
            for p in f.persons:
                parts.append(
                    f"{p.seat}: face={'yes' if p.face is not None else 'no'} "
                    f"pose={'yes' if p.pose is not None else 'no'} hands={','.join(sorted(p.hands)) or '-'}"
                )
            click.echo(f"{f.t:7.2f}s  " + "; ".join(parts))
    if not events:
        click.echo("no signal seen")
    for e in events:
        flag = " (unsure)" if e.unsure else ""
        click.echo(f"{e.start:7.2f}-{e.end:6.2f}s  {e.player:>10}  {e.signal:<24} {e.confidence:.2f}{flag}")


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise click.BadParameter("name every seat, left to right: --names Ann,Bob", param_hint="'--names'")
    return names


def _learn(sources, out, player, calibration_path, fps, mirrored) -> None:
    from vision.landmarks.calibration import TableCalibration  # deferred: loads NumPy; --help starts without it
    from vision.signals.engine import landmarks_from_media, seat_series  # deferred: loads NumPy
    from vision.signals.free import FreeSignal, FreeSignalError  # deferred: loads NumPy

    try:
        calibration = TableCalibration.load(calibration_path) if calibration_path else None
        demos = []
        for src in sources:
            frames, calib = landmarks_from_media(src, calibration, fps=fps, mirrored=mirrored)
            seat = player or calib.seats[0].name
            demos.append(seat_series(frames, calib, seat))
        learnt = FreeSignal.learn(demos, name=Path(out).stem)
        learnt.save(out)
    except OSError as exc:
        raise CommandError(FreeSignalError(f"cannot write {out}: {exc.strerror or exc}", path=out), BY_KIND) from None
    except RefereeError as exc:
        raise CommandError(exc, BY_KIND) from None
    click.echo(
        json.dumps(
            {
                "free_signal": out,
                "demonstrations": len(sources),
                "threshold": round(learnt.threshold, 4),
                "template_lengths": [len(t) for t in learnt.templates],
            }
        )
    )


def _write_overlay(source, frames, calibration, events, path, max_frames) -> None:
    import cv2  # deferred: OpenCV takes ~0.1 s to load; --help starts without it
    import numpy as np  # deferred: NumPy takes ~0.1 s to load; --help starts without it

    from vision.landmarks.draw import draw_frame  # deferred: loads OpenCV
    from vision.video import open_frames  # deferred: loads OpenCV

    if not frames:
        return
    times = np.array([f.t for f in frames])
    writer = None
    with open_frames(source, max_frames=max_frames) as src:
        fps = src.fps or 10.0
        for fr in src:
            i = int(np.argmin(np.abs(times - fr.time)))
            img = draw_frame(fr.image, frames[i], calibration, events)
            if writer is None:
                h, w = img.shape[:2]
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (w, h))
                if not writer.isOpened():
                    raise OverlayNotWritten(f"cannot write the video {path}", path=str(path))
            writer.write(img)
            if src.kind == "image":
                for _ in range(int(fps) - 1):
                    writer.write(img)
    if writer is not None:
        writer.release()
