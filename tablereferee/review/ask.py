"""A question about a recorded session, answered from what the run kept, with its pictures.

`answer_question(session, player, signal, start, end, out)`: the landmarks of the camera that
sees `player` (`tracks/CAMERA/landmarks.jsonl.gz`; a session recorded before runs kept them has
them found again from its video, with progress shown), `vision.evidence.ask` for the word and
the evidence, and in `out`:

    closest.png   the frame nearest the cue, landmarks and the player's seat drawn, the measure
                  written on it
    measure.png   the measure over the window against its line, the events shaded, the closest
                  frame marked
    answer.json   the answer, the evidence and the measures as data
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from tablereferee.recording.folder import SessionFolder, read_segments
from tablereferee.recording.tracks import read_landmarks
from vision.evidence import Answer, UnknownSeat, ask
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.draw import draw_frame
from vision.landmarks.types import FrameLandmarks


class NoCalibration(RefereeError):
    """A session with no seats: nobody's signals were watched."""


class QuestionNotWritten(RefereeError):
    """The answer's pictures could not be written."""


def camera_of(folder: SessionFolder, player: str) -> tuple[str, TableCalibration]:
    """The camera whose seats include `player`, and its calibration."""
    data = folder.manifest.get("calibration")
    if not data:
        raise NoCalibration(f"{folder.path} has no seats: no camera watched the players' signals")
    calibration = TableCalibration.from_dict(data)
    for seat in calibration.seats:
        if seat.name == player:
            return seat.camera, calibration.for_camera(seat.camera)
    names = [s.name for s in calibration.seats]
    raise UnknownSeat(f"{player} has no seat in this session; its seats: {', '.join(names)}", player=player)


def stored_or_found(
    folder: SessionFolder,
    camera: str,
    calibration: TableCalibration,
    start: float,
    end: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[FrameLandmarks], str]:
    """The landmarks of `camera` over the window (with the detectors' context before it), and
    where they come from: as the run found them, or found again from the video."""
    from vision.evidence import CONTEXT  # deferred: only the window's bounds

    track = read_landmarks(folder.path, camera)
    if track is not None:
        return [f for f in track.frames if start - CONTEXT <= f.t <= end], "as the run found them"
    from vision.landmarks.extract import LandmarkExtractor  # deferred: loads MediaPipe; only old sessions need it

    frames_in = [(t, im) for t, im in read_segments(folder.camera_dir(camera)) if start - CONTEXT <= t <= end]
    extractor = LandmarkExtractor(calibration)
    out = []
    try:
        for i, (t, image) in enumerate(frames_in):
            out.append(extractor.process(image, t, i))
            if progress is not None:
                progress(i + 1, len(frames_in))
    finally:
        extractor.close()
    return out, "found again from the video (the run kept none)"


def answer_question(
    session: str | Path,
    player: str,
    signal: str,
    start: float,
    end: float,
    out: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Answer, dict[str, Any]]:
    folder = SessionFolder.open(session)
    camera, calibration = camera_of(folder, player)
    frames, source = stored_or_found(folder, camera, calibration, start, end, progress)
    answer = ask(frames, calibration, player, signal, start, end)
    files: dict[str, Any] = {"landmarks": source, "camera": camera}
    if out is not None:
        files.update(_write(Path(out), folder, camera, calibration, frames, answer))
    return answer, files


def _write(
    out: Path,
    folder: SessionFolder,
    camera: str,
    calibration: TableCalibration,
    frames: list[FrameLandmarks],
    answer: Answer,
) -> dict[str, str]:
    try:
        out.mkdir(parents=True, exist_ok=True)
        written: dict[str, str] = {}
        picture = _closest_picture(folder, camera, calibration, frames, answer)
        if picture is not None:
            path = out / "closest.png"
            if not cv2.imwrite(str(path), picture):
                raise OSError(f"cannot write {path}")
            written["picture"] = str(path)
        if answer.measures:
            written["plot"] = str(_plot(out / "measure.png", answer))
        (out / "answer.json").write_text(json.dumps(answer.to_dict(), indent=1) + "\n", encoding="utf-8")
        written["answer"] = str(out / "answer.json")
        return written
    except OSError as exc:
        raise QuestionNotWritten(f"the answer's files could not be written to {out}: {exc}") from None


def _closest_picture(
    folder: SessionFolder,
    camera: str,
    calibration: TableCalibration,
    frames: list[FrameLandmarks],
    answer: Answer,
) -> np.ndarray | None:
    at = answer.closest_t
    if at is None:
        at = (answer.events[0].start + answer.events[0].end) / 2 if answer.events else (answer.start + answer.end) / 2
    best: tuple[float, np.ndarray] | None = None
    for t, image in read_segments(folder.camera_dir(camera)):
        if best is None or abs(t - at) < abs(best[0] - at):
            best = (t, image)
        if t > at + 1.0:
            break
    if best is None:
        return None
    t, image = best
    fl = min(frames, key=lambda f: abs(f.t - t), default=None)
    canvas = (
        draw_frame(image, fl, calibration, answer.events) if fl is not None and abs(fl.t - t) < 0.5 else image.copy()
    )
    scale = max(1.0, 1280 / canvas.shape[1])  # a picture people look at together: large enough to see
    canvas = cv2.resize(canvas, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    text = f"{answer.player}, {answer.signal}, {answer.start:g}-{answer.end:g} s: {answer.word}.  Frame at {t:.2f} s"
    if answer.closest_value is not None:
        text += f", nearest the cue: {answer.closest_value:.2f}"
    banner = np.zeros((44, canvas.shape[1], 3), np.uint8)
    cv2.putText(banner, text, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
    canvas = np.vstack([banner, canvas])
    return canvas


def _plot(path: Path, answer: Answer) -> Path:
    import matplotlib  # deferred: only a written answer draws its plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: as above

    fig, axes = plt.subplots(len(answer.measures), 1, figsize=(8, 2.4 * len(answer.measures)), squeeze=False)
    for ax, m in zip(axes[:, 0], answer.measures):
        ax.plot(m.t, m.values, color="#1f5fa8", lw=2)
        ax.axhline(m.line, color="#c0392b", ls="--", lw=1.5, label=f"the line: {m.line:g}")
        for ev in answer.events:
            ax.axvspan(ev.start, ev.end, color="#f1c40f" if ev.unsure else "#2ecc71", alpha=0.3)
        c = m.closest()
        if c is not None:
            ax.plot([m.t[c[0]]], [c[1]], "o", color="black")
        ax.set_xlim(answer.start, answer.end)
        ax.set_title(m.name, fontsize=10)
        ax.set_xlabel("session time, s")
        ax.legend(loc="upper right", fontsize=8)
    fig.suptitle(f"{answer.player}: {answer.signal}? {answer.word}", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
