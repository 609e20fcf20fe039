"""A drill: the app draws a Signal card, the player gives it while the camera watches, and
the referee answers whether it was read, by which cue, how long after the gesture began, and
how nonchalantly (`vision.signals.nonchalance`).

    drill = Drill.start("Anna", signal="raise_hand_right")      # or a random visible card
    for jpeg, t in frames:                                      # t: seconds since capture began
        live = drill.add_jpeg(jpeg, t)                          # {"seen": bool, ...} at once
    result = drill.finish()                                     # the verdict and its evidence

Frames come from the browser's camera (JPEGs posted by the practice page), or from a table
camera or a video (`Drill.add_image`). The perception is the live table's: MediaPipe
landmarks (`vision.landmarks.LandmarkExtractor`, one seat over the whole frame) and the
catalogue's own detectors (`vision.signals.engine.detect_signals`). The delay is measured
from the event's start (the first frame the detector's cue held) to recognition: the first
frame whose detection included the event, on the frames' own clock, plus the time the server
took to read that frame.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from referee.signal_cards import BY_ID, FREE_SIGNAL
from vision.evidence import measures
from vision.landmarks.calibration import TableCalibration, whole_frame
from vision.landmarks.extract import LandmarkExtractor, Rates
from vision.landmarks.types import FrameLandmarks
from vision.signals.catalogue import Catalogue, SignalSpec, default_catalogue
from vision.signals.detectors import REGISTRY
from vision.signals.engine import detect_signals, seat_series
from vision.signals.free import FreeSignal
from vision.signals.nonchalance import best_event, nonchalance

WINDOW = 6.0  # seconds of camera a drill watches
COUNTDOWN = 3  # seconds the page counts down before it watches
MAX_FRAMES = 600  # a drill's frames (a minute at 10 a second)
CLIP_SIDE = 480  # the side of a quiz clip's frames
MAX_SIDE = 960  # frames are shrunk to this side before the models see them
DRILL_RATES = Rates(face=None, hands=None, pose=None, zoom=3.0)  # every model on every frame sent


class DrillError(RefereeError):
    """A drill request that cannot be done."""


class NoSuchSignal(DrillError):
    """A Signal card this referee cannot drill (unknown, or read from cards or sound)."""


class NotAPicture(DrillError):
    """A frame that is not a JPEG or PNG picture."""


class DrillOver(DrillError):
    """A frame sent to a drill that has finished."""


class TooManyFrames(DrillError):
    """A drill sent more frames than it watches."""


class BadFrameTime(DrillError):
    """A frame whose time is not after the previous frame's."""


def drillable(cat: Catalogue | None = None) -> list[SignalSpec]:
    """The visible signals a camera can drill: a printed (or rulebook) card whose detector
    needs only the body and face (not the cards held, not sound)."""
    cat = cat or default_catalogue()
    return [s for s in cat.signals if s.id in BY_ID and s.detector in REGISTRY and s.detector != "mouth_moving"]


def card_text(signal: str, team_signal: str | None = None) -> str:
    if signal == FREE_SIGNAL:
        return f"Give your team's own signal ({team_signal})" if team_signal else "Give your team's own signal"
    card = BY_ID.get(signal)
    return card.text if card else signal


@dataclasses.dataclass
class Drill:
    """One drill of one player: the card drawn, the frames seen, and the first recognition."""

    id: str
    player: str
    signal: str
    secret: bool = False  # the team's own card: its name is never shown to anyone else
    team: str | None = None
    free: FreeSignal | None = None
    window: float = WINDOW
    catalogue: Catalogue = dataclasses.field(default_factory=default_catalogue)
    frames: list[FrameLandmarks] = dataclasses.field(default_factory=list)
    first_seen: float | None = None  # frame time of the first detection that held the event
    first_seen_latency_ms: float | None = None
    processing_ms: list[float] = dataclasses.field(default_factory=list)
    result: dict[str, Any] | None = None
    pictures: list[bytes] = dataclasses.field(default_factory=list)  # small JPEGs of the frames, for quiz clips
    arrivals: list[float | None] = dataclasses.field(default_factory=list)  # server clock (monotonic) per frame
    created: float = dataclasses.field(default_factory=time.time)
    _extractor: LandmarkExtractor | None = None
    _calibration: TableCalibration | None = None
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @classmethod
    def start(
        cls,
        player: str,
        signal: str | None = None,
        *,
        secret: bool = False,
        team: str | None = None,
        free: FreeSignal | None = None,
        window: float = WINDOW,
        catalogue: Catalogue | None = None,
    ) -> Drill:
        cat = catalogue or default_catalogue()
        specs = {s.id: s for s in drillable(cat)}
        if signal is None:
            signal = secrets.choice(sorted(specs))
        elif signal == FREE_SIGNAL:
            if free is None:
                raise NoSuchSignal("this team has no Free Signal yet: enrol it first (3 to 5 demonstrations)")
        elif signal not in specs:
            if signal in BY_ID:
                raise NoSuchSignal(
                    f"{card_text(signal)!r} is read from the cards held or from sound: a camera drill cannot score it",
                    signal=signal,
                )
            raise NoSuchSignal(f"there is no Signal card {signal!r}", signal=signal)
        return cls(secrets.token_urlsafe(9), player, signal, secret, team, free, float(window), cat)

    # -- frames --------------------------------------------------------------------------------

    @property
    def spec(self) -> SignalSpec | None:
        return next((s for s in self.catalogue.signals if s.id == self.signal), None)

    def card(self) -> dict[str, Any]:
        """What the page shows the player: the card (the caller is the player who drew it)."""
        team_signal = self.free.name if self.free is not None else None
        return {"signal": self.signal, "text": card_text(self.signal, team_signal), "secret": self.secret}

    def add_jpeg(self, data: bytes, t: float, arrived: float | None = None) -> dict[str, Any]:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            raise NotAPicture("the frame is not a JPEG or PNG picture")
        return self.add_image(image, t, arrived)

    def add_image(self, image: np.ndarray, t: float, arrived: float | None = None) -> dict[str, Any]:
        """Landmarks of one frame (t: seconds on the drill's clock), and whether the card's
        signal is read so far. `arrived`: when the frame reached the server (`time.monotonic`),
        which ties the drill's clock to the server's (`server_time`)."""
        began = time.perf_counter()
        with self._lock:
            if self.result is not None:
                raise DrillOver("this drill has finished: start a new one")
            if len(self.frames) >= MAX_FRAMES:
                raise TooManyFrames(f"a drill watches at most {MAX_FRAMES} frames")
            if not np.isfinite(t) or t < 0 or (self.frames and t <= self.frames[-1].t):
                raise BadFrameTime(f"frame time {t!r} s is not after the previous frame's", t=str(t))
            h, w = image.shape[:2]
            if max(h, w) > MAX_SIDE:
                k = MAX_SIDE / max(h, w)
                image = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
            self._ready()
            assert self._extractor is not None
            fr = self._extractor.process(image, float(t), len(self.frames))
            self.frames.append(fr)
            self.arrivals.append(arrived)
            self.pictures.append(clip_picture(image))
            event = self._event()
            elapsed = (time.perf_counter() - began) * 1000
            self.processing_ms.append(elapsed)
            if event is not None and self.first_seen is None:
                self.first_seen = float(t)
                self.first_seen_latency_ms = elapsed
            person = fr.person(self.player)
            return {
                "t": float(t),
                "frame": fr.index,
                "seen": self.first_seen is not None,
                "person": person is not None and (person.face is not None or person.pose is not None),
                "server_ms": round(elapsed, 1),
                "done": float(t) >= self.window,
            }

    def server_time(self, t: float) -> float | None:
        """The server's clock (`time.monotonic`) at drill time `t`: the frames' arrivals less
        their own times, the smallest (the frame that travelled fastest) taken as the offset.
        Late by that frame's encoding and upload (tens of ms on a home network); None when no
        frame said when it arrived."""
        offsets = [a - f.t for a, f in zip(self.arrivals, self.frames, strict=True) if a is not None]
        return t + min(offsets) if offsets else None

    def prepare(self) -> None:
        """Load the models now (a second or more), so the first frame is read as fast as the rest:
        the page calls this while it counts down."""
        with self._lock:
            self._ready()

    def _ready(self) -> None:
        if self._extractor is None:
            self._calibration = whole_frame(self.player)
            self._extractor = LandmarkExtractor(self._calibration, DRILL_RATES, workers=1)
            self._extractor.process(np.zeros((360, 640, 3), np.uint8), -1.0, -1)  # the models' first run is slow

    def _events(self, frames: list[FrameLandmarks] | None = None) -> list[SignalEvent]:
        frames = self.frames if frames is None else frames
        if not frames or self._calibration is None:
            return []
        if self.signal == FREE_SIGNAL:
            return detect_signals(frames, self._calibration, self.catalogue, only=[FREE_SIGNAL], free=self.free)
        return detect_signals(frames, self._calibration, self.catalogue, only=[self.signal])

    def _event(self) -> SignalEvent | None:
        return best_event(self._events(), self.signal, self.player)

    # -- the verdict ---------------------------------------------------------------------------

    def finish(self) -> dict[str, Any]:
        """The verdict: seen or not, by which cue, the delay, the nonchalance and the evidence."""
        with self._lock:
            if self.result is not None:
                return self.result
            if self._extractor is not None:
                self._extractor.close()
                self._extractor = None
            self.result = self._verdict()
            return self.result

    def close(self) -> None:
        with self._lock:
            if self._extractor is not None:
                self._extractor.close()
                self._extractor = None

    def _recognised_at(self) -> float | None:
        """When the referee knew, on the frames' clock: the frame that first held the event,
        plus the time it took to read it."""
        if self.first_seen is None:
            return None
        return round(self.first_seen + (self.first_seen_latency_ms or 0.0) / 1000.0, 3)

    def _verdict(self) -> dict[str, Any]:
        event = self._event()
        spec = self.spec
        people = [f.person(self.player) for f in self.frames]
        seen_share = float(np.mean([p is not None and p.face is not None for p in people])) if people else 0.0
        out: dict[str, Any] = {
            "drill": self.id,
            "player": self.player,
            "card": self.card(),
            "frames": len(self.frames),
            "seconds": round(self.frames[-1].t - self.frames[0].t, 3) if len(self.frames) > 1 else 0.0,
            "seen_share": round(seen_share, 3),
            "seen": event is not None,
            "unsure": bool(event.unsure) if event else None,
            "start": event.start if event else None,
            "end": event.end if event else None,
            "confidence": event.confidence if event else None,
            "recognised_at": self._recognised_at() if event else None,
            "delay": None,
            "cue": None,
            "nonchalance": {"score": 0.0, "read": False, "parts": {}},
            "evidence": [],
            "fps": None,
            "server_ms": round(float(np.median(self.processing_ms)), 1) if self.processing_ms else None,
        }
        if len(self.frames) > 1:
            out["fps"] = round((len(self.frames) - 1) / max(self.frames[-1].t - self.frames[0].t, 1e-6), 2)
        recognised = self._recognised_at()
        if event is not None and recognised is not None:
            out["delay"] = round(max(recognised - event.start, 0.0), 3)
        if event is not None:
            out["cue"] = cue_words(spec, event)
        if self._calibration is not None and self.frames:
            series = seat_series(self.frames, self._calibration, self.player)
            if spec is not None:
                n = nonchalance(series, spec, self.catalogue, event)
                out["nonchalance"] = n.to_dict()
                out["nonchalance_lines"] = n.lines()
                out["evidence"] = [m.to_dict() for m in measures(series, spec, self.catalogue)]
            elif event is not None:  # a Free Signal: its warping cost against the threshold
                cost = float(event.evidence.get("dtw_cost", 0.0))
                thr = float(event.evidence.get("threshold", 1.0))
                share = min(cost / thr, 1.0) if thr > 0 else 0.0
                score = 100.0 * (0.4 * share + 0.25 * max(0.0, 1 - (event.end - event.start) / 3.0) + 0.2)
                out["nonchalance"] = {"score": round(score, 1), "read": True, "parts": {"subtle": round(share, 3)}}
        out["words"] = verdict_words(out)
        return out


def clip_picture(image: np.ndarray, side: int = CLIP_SIDE) -> bytes:
    """A frame shrunk for a quiz clip, as JPEG."""
    h, w = image.shape[:2]
    if max(h, w) > side:
        k = side / max(h, w)
        image = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return buf.tobytes() if ok else b""


def cue_words(spec: SignalSpec | None, event: SignalEvent) -> str:
    """By which cue the signal was read, in words."""
    ev = event.evidence if isinstance(event.evidence, dict) else {}
    if spec is None:
        return "the team's own gesture, matched against its demonstrations"
    if ev.get("hand_frames", 1) == 0 and ev.get("pose_frames", 0):
        how = "from the body's pose alone (the hand itself was not found)"
    elif "hand" in ev:
        how = f"from the {ev['hand']} hand's landmarks"
    else:
        how = "from the face's landmarks"
    return f"{spec.cue}; read {how}"


def verdict_words(v: dict[str, Any]) -> str:
    """The verdict as the page says it."""
    if not v["seen"]:
        if v["seen_share"] < 0.5:
            return "Not seen: the camera saw your face in only a few frames; sit in front of it."
        return "Not seen: the referee did not read the signal in this drill."
    parts = [f"Seen, {v['start']:.1f}-{v['end']:.1f} s"]
    if v["delay"] is not None:
        parts.append(f"recognised {v['delay']:.2f} s after it began")
    parts.append(f"nonchalance {v['nonchalance']['score']:.0f} of 100")
    if v["unsure"]:
        parts.append("though the referee was unsure")
    return ", ".join(parts) + "."
