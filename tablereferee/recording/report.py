"""The dispute package's report: one self-contained HTML page two arguing players can read.

`report.html` holds everything inline (pictures as data URIs, no script, nothing fetched): the
verdict in words (what was claimed, what the cards or the landmarks showed, which rule decided,
who got what), the key frames of the clip (the disputed moment and each piece of evidence),
the evidence drawn (for a signal, the measure its detector judged against its line; for cards,
each crop that was read beside the template it matched), the log excerpt in words, the model
versions, and the SHA-256 of every source video segment of the window, with any gap named.
It shows the package's viewer's view (the public one by default), as the rest of the package.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import Engine
from referee.secrecy import Viewer
from referee.sessionlog import Entry
from tablereferee.recording.folder import SessionFolder, VideoGap, sha256_of
from tablereferee.recording.tracks import read_cards

STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 2em auto; max-width: 1100px; color: #111; }
h1 { font-size: 1.7em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 1.6em; }
.verdict { font-size: 1.35em; background: #f4f7fb; border-left: 6px solid #1f5fa8; padding: .6em 1em; }
.verdict p { margin: .3em 0; } .warn { background: #fff3cd; border-left-color: #c0392b; }
figure { display: inline-block; margin: .5em; vertical-align: top; } figcaption { font-size: .9em; color: #444; }
img { max-width: 100%; border: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; font-size: .92em; } td, th { border-bottom: 1px solid #eee;
padding: .3em .5em; text-align: left; vertical-align: top; } code, pre { font-size: .85em; }
"""


def _img(image: np.ndarray, quality: int = 85) -> str:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(data.tobytes()).decode()


def _png(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def _figure(src: str, caption: str, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ""
    return f'<figure><img src="{src}"{size}><figcaption>{html.escape(caption)}</figcaption></figure>'


def clip_frame(clip: Path, at: float) -> np.ndarray | None:
    """The clip's frame at `at` seconds from its start (the nearest before it)."""
    if not clip.is_file():
        return None
    cap = cv2.VideoCapture(str(clip))
    try:
        cap.set(cv2.CAP_PROP_POS_MSEC, max(0.0, at) * 1000)
        ok, frame = cap.read()
        return frame if ok else None
    finally:
        cap.release()


def verdict_lines(engine: Engine | None, target: Entry, reasons: Sequence[Entry], viewer: Viewer) -> list[str]:
    """The decision in words: the rule that made it and what the engine answered."""
    from referee.voice import say_events  # deferred: the voice loads the engines' card names

    lines: list[str] = []
    for r in reasons:
        p = r.payload
        if p.get("type") in ("decision", "ask") and p.get("reasoning"):
            lines.append(
                f"The referee's rule “{p.get('rule')}” decided (confidence {p.get('confidence')}): {p['reasoning']}."
            )
    if target.kind == "action":
        lines += say_events(engine, target.events, viewer) if target.events else []
        if target.source == "keyboard":
            lines.append(f"Typed at the table: “{target.payload.get('text') or ''}”.")
    elif target.kind == "observation" and target.payload.get("type") == "signal":
        p = target.payload
        sure = "unsure" if p.get("unsure") else "sure"
        lines.append(
            f"{p['player']}: {str(p['signal']).replace('_', ' ')} seen from {p['start']:.2f} to {p['end']:.2f} s "
            f"(confidence {p['confidence']:.2f}, {sure}). A signal is evidence: it changes no score by itself."
        )
    elif target.kind == "correction":
        lines += say_events(engine, target.events, viewer) if target.events else []
    return lines or ["This entry changed nothing in the game (evidence only)."]


def card_evidence(
    folder: SessionFolder, camera: str | None, t: float, zone: str | None
) -> list[tuple[np.ndarray, str]]:
    """Each card read in `zone` at `t` (as the run read it): its crop beside the template it
    matched, with the name and confidence."""
    from vision.cards.rectify import rectify  # deferred: only cards drawn
    from vision.cards.templates import load_deck  # deferred: as above

    if camera is None:
        return []
    track = read_cards(folder.path, camera)
    if track is None:
        return []
    seen = track.at(t)
    if seen is None:
        return []
    frame = None
    from tablereferee.recording.folder import bgr, read_pictures  # deferred: PyAV, only here

    for ft, picture in read_pictures(folder.camera_dir(camera)):
        if ft >= seen["t"] - 1e-3:
            frame = bgr(picture)  # only the frame shown is converted
            break
    if frame is None:
        return []
    try:
        deck = load_deck(folder.manifest.get("options", {}).get("deck", "beccato"))
    except Exception:  # a deck this machine does not have: the crops alone
        deck = None
    out = []
    for c in seen["cards"]:
        if (zone is not None and c.get("zone") != zone) or len(c["corners"]) != 4:
            continue
        crop = rectify(frame, np.array(c["corners"], np.float32))
        pair = [cv2.resize(crop, (180, 270))]
        label = deck.faces.label_of(c["card"]) if deck is not None and c["card"] else None
        if deck is not None and label is not None and label in deck.faces.labels:
            template = deck.faces.images[deck.faces.labels.index(label)]
            pair.append(cv2.resize(template, (180, 270)))
        gap = np.full((270, 10, 3), 255, np.uint8)
        out.append(
            (
                np.hstack([pair[0], gap, pair[1]]) if len(pair) == 2 else pair[0],
                f"read as {c['card'] or 'unknown'} ({c['confidence']:.2f}); left: the crop, right: its template",
            )
        )
    return out


def write_report(
    out_dir: Path,
    folder: SessionFolder,
    engine: Engine | None,
    viewer: Viewer,
    target: Entry,
    origin: float,
    t_event: float,
    window: tuple[float, float],
    reasons: Sequence[Entry],
    evidence: Sequence[Entry],
    excerpt: Sequence[Entry],
    package: Mapping[str, Any],
    gaps: Sequence[VideoGap],
    describe: Any,
) -> Path:
    """Write `out_dir/report.html` (see the module doc)."""
    t0, t1 = window
    clip = out_dir / "clip.mp4"
    parts: list[str] = []
    esc = html.escape
    parts.append(f"<h1>Entry {target.seq} of {esc(folder.path.name)}, at {t_event:.2f} s</h1>")
    warn = "" if package.get("moment_in_video") else " warn"
    verdict = "".join(f"<p>{esc(line)}</p>" for line in verdict_lines(engine, target, reasons, viewer))
    if not package.get("moment_in_video"):
        verdict = f"<p><b>{esc(str(package.get('not_in_video')))}</b></p>" + verdict
    parts.append(f'<h2>Verdict</h2><div class="verdict{warn}">{verdict}</div>')

    figures = []
    p = target.payload
    middle = (p["start"] + p["end"]) / 2 if target.kind == "observation" and p.get("type") == "signal" else None
    first = [(middle, "the middle of the signal")] if middle is not None else []
    moments = [*first, (t_event, "the disputed moment")] + [
        (e.time - origin, f"evidence #{e.seq}: {describe(e)}") for e in evidence if t0 <= e.time - origin <= t1
    ]
    shown: list[float] = []
    for at, caption in moments:
        if len(shown) >= 6 or any(abs(at - s) < 0.05 for s in shown):
            continue  # the same moment once
        shown.append(at)
        frame = clip_frame(clip, at - t0)
        if frame is not None:
            figures.append(_figure(_img(frame), f"{at:.2f} s: {caption}", 520))
    if figures:
        parts.append("<h2>Key frames</h2>" + "".join(figures))

    drawn = _evidence_figures(out_dir, folder, target, reasons, evidence, origin, package)
    if drawn:
        parts.append("<h2>Evidence, drawn</h2>" + "".join(drawn))

    rows = "".join(
        f"<tr><td>#{e.seq}</td><td>{e.time - origin:.2f} s</td><td>{esc(e.source)}</td>"
        f"<td>{'' if e.confidence is None else f'{e.confidence:.2f}'}</td><td>{esc(describe(e))}</td></tr>"
        for e in excerpt
    )
    parts.append(
        "<h2>The log around it</h2><table><tr><th>entry</th><th>time</th><th>from</th><th>confidence</th>"
        f"<th>what</th></tr>{rows}</table>"
    )
    if gaps:
        parts.append(
            "<h2>Gaps in the video</h2><ul>" + "".join(f"<li>{esc(g.describe())}</li>" for g in gaps) + "</ul>"
        )
    segs = []
    for cam in folder.camera_names():
        d = folder.camera_dir(cam)
        for seg in sorted(d.glob("seg_*.mp4")) if d.is_dir() else []:
            start = int(seg.stem.split("_")[1]) / 1000 if seg.stem.split("_")[1].isdigit() else None
            if start is not None and start > t1:
                continue
            segs.append(f"<tr><td>{esc(cam)}</td><td>{esc(seg.name)}</td><td><code>{sha256_of(seg)}</code></td></tr>")
    parts.append(
        "<h2>Source video</h2><p>The segments recorded up to the end of the window, with their SHA-256 "
        "(anyone can check that the video shown is the one recorded).</p>"
        f"<table><tr><th>camera</th><th>segment</th><th>SHA-256</th></tr>{''.join(segs)}</table>"
    )
    parts.append(
        "<h2>Models</h2><pre>"
        + esc(json.dumps({"models": package.get("models"), "versions": package.get("versions")}, indent=1))
        + f"</pre><p>Game engine: {esc(str(package.get('game')))} {esc(str(package.get('engine_version')))}. "
        + "Overlays: "
        + esc("; ".join(f"{k} {v}" for k, v in (package.get("drawn_from") or {}).items()))
        + ".</p>"
    )
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Dispute: entry {target.seq}</title><style>{STYLE}</style></head><body>"
        + "".join(parts)
        + "</body></html>\n"
    )
    path = out_dir / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def _evidence_figures(
    out_dir: Path,
    folder: SessionFolder,
    target: Entry,
    reasons: Sequence[Entry],
    evidence: Sequence[Entry],
    origin: float,
    package: Mapping[str, Any],
) -> list[str]:
    esc = html.escape
    out: list[str] = []
    signals = [e for e in [target, *evidence] if e.kind == "observation" and e.payload.get("type") == "signal"]
    for s in signals[:3]:
        p = s.payload
        try:
            from tablereferee.review.ask import answer_question  # deferred: the signal detectors, only here

            answer, files = answer_question(
                folder.path,
                p["player"],
                p["signal"],
                max(0.0, p["start"] - 1.0),
                p["end"] + 1.0,
                out_dir / f".evidence-{s.seq}",
            )
        except Exception as exc:  # evidence that cannot be drawn is said, never fatal to the package
            out.append(f"<p>The measure of {esc(str(p.get('signal')))} could not be drawn: {esc(str(exc))}</p>")
            continue
        plot = files.get("plot")
        if plot:
            out.append(_figure(_png(Path(plot)), answer.reason, 700))
        for f in Path(out_dir / f".evidence-{s.seq}").glob("*"):
            f.unlink()
        (out_dir / f".evidence-{s.seq}").rmdir()
    for r in [*reasons, *evidence]:
        p = r.payload
        if r.kind == "observation" and p.get("type") == "cards":
            for image, caption in card_evidence(folder, package.get("card_camera"), r.time - origin, p.get("zone"))[:6]:
                out.append(_figure(_img(image, 92), caption))
    return out
