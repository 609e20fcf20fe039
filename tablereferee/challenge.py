"""The instant challenge: the last seconds of every camera, ready to replay the moment a
Caught! is called (or a phone presses "challenge"), with no perception run again.

    buffer = ChallengeBuffer(seconds=10)           # the live loop's frame listener feeds it:
    buffer.add(frame, observations)                #   each CameraFrame with what was observed in it
    buffer.add_landmarks(camera, frame_landmarks)  #   the landmarks the signal stage found (optional)
    challenge = build_challenge(buffer, accused="Bruno", calibration=calibration)
    challenge.jpeg("people", 12)                   # that frame with its overlays, as JPEG

Frames are kept JPEG-encoded (about 40-90 KB a frame at 1280x720), dropped once older than
`seconds` behind the newest frame of their camera, and never more than `max_bytes` in all: the
buffer's memory is bounded whatever the cameras do. The overlays (the cards read, the landmarks,
the seats) come from what the run already observed, and are drawn on a frame only when it is
asked for (then kept).

A challenge plays the window at normal speed, then again slowed down (`SLOW`, 0.25x) around the
strongest cue of the accused player: their strongest signal seen in the window, else the moment
their measures came nearest a signal's line (`vision.evidence`), else the last seconds before
the call. What the cue was is said without naming the signal (a team's signal is its secret):
"Bruno's strongest cue, seen at 2.08 s (confidence 0.53)".

Each team has a few challenges a game (`ChallengeBook(per_team=3)`); a 4th is refused with
`NoChallengesLeft`. A Caught! called at the table opens its challenge without using one.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.core import RefereeError
from referee.observations import CardsSeen, SignalEvent
from tablereferee.web.auth import WebError
from vision.landmarks.calibration import TableCalibration
from vision.landmarks.types import FrameLandmarks

SECONDS = 10.0  # the window a challenge replays
SLOW = 0.25  # the slowed-down replay's speed
AROUND = 1.0  # s either side of the cue slowed down
QUALITY = 80  # JPEG quality of the kept frames
MAX_BYTES = 96 << 20  # the buffer's memory, all cameras together
READ_LASTS = 0.5  # s: a card read or landmarks are drawn on the frames this long after them


class NoChallengesLeft(WebError):
    """A team that has used all its challenges of this game."""

    status = 409


class NothingToReplay(WebError):
    """A challenge asked for before any camera sent a frame (or with no camera at all)."""

    status = 409


class NoSuchChallenge(WebError):
    """A challenge number this table never made."""

    status = 404


class NoSuchFrame(WebError):
    """A frame or camera a challenge does not hold."""

    status = 404


class UnknownPlayer(WebError):
    """A challenge about someone who is not at the table."""

    status = 404


@dataclasses.dataclass
class Kept:
    """One frame in the buffer: its JPEG and what had been observed of it."""

    camera: str
    index: int
    t: float
    jpeg: bytes
    cards: tuple[Any, ...] = ()  # CardReading of the latest read at or before t
    cards_t: float | None = None
    landmarks: FrameLandmarks | None = None


class ChallengeBuffer:
    """The last `seconds` of every camera, JPEG-encoded, with the observations made of them."""

    def __init__(self, seconds: float = SECONDS, quality: int = QUALITY, max_bytes: int = MAX_BYTES) -> None:
        if not seconds > 0:
            raise RefereeError(f"a challenge buffer holds some seconds of video, not {seconds}")
        self.seconds, self.quality, self.max_bytes = float(seconds), int(quality), int(max_bytes)
        self._frames: dict[str, collections.deque[Kept]] = {}
        self._signals: collections.deque[SignalEvent] = collections.deque()
        self._cards: dict[str, tuple[float, tuple[Any, ...]]] = {}
        self._landmarks: dict[str, FrameLandmarks] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def bytes(self) -> int:
        return self._bytes

    def cameras(self) -> list[str]:
        with self._lock:
            return list(self._frames)

    def newest(self) -> float | None:
        with self._lock:
            ends = [q[-1].t for q in self._frames.values() if q]
        return max(ends) if ends else None

    def add(self, frame: Any, observations: Sequence[Any] = (), landmarks: FrameLandmarks | None = None) -> None:
        """A `CameraFrame` (camera, index, t, image) and what was observed in it (CardsSeen,
        SignalEvent, FrameLandmarks; anything else is ignored)."""
        ok, data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            return
        self.note(observations, camera=frame.camera)
        if landmarks is not None:
            self.add_landmarks(frame.camera, landmarks)
        with self._lock:
            cards_t, cards = self._cards.get(frame.camera, (None, ()))
            lm = self._landmarks.get(frame.camera)
            if cards_t is not None and frame.t - cards_t > READ_LASTS:
                cards_t, cards = None, ()
            if lm is not None and frame.t - lm.t > READ_LASTS:
                lm = None
            kept = Kept(frame.camera, int(frame.index), float(frame.t), data.tobytes(), cards, cards_t, lm)
            queue = self._frames.setdefault(frame.camera, collections.deque())
            queue.append(kept)
            self._bytes += len(kept.jpeg)
            self._trim(frame.t)

    def add_landmarks(self, camera: str, landmarks: FrameLandmarks) -> None:
        with self._lock:
            self._landmarks[camera] = landmarks

    def note(self, observations: Iterable[Any], camera: str | None = None) -> None:
        """Observations made apart from a frame (a signal the stage flushed later)."""
        with self._lock:
            for obs in observations:
                if isinstance(obs, CardsSeen):
                    self._cards[obs.camera] = (obs.t, tuple(obs.cards))
                elif isinstance(obs, SignalEvent):
                    self._signals.append(obs)
                elif isinstance(obs, FrameLandmarks) and camera is not None:
                    self._landmarks[camera] = obs

    def _trim(self, now: float) -> None:
        for queue in self._frames.values():
            while queue and queue[0].t < now - self.seconds - 1e-6 and len(queue) > 1:
                self._bytes -= len(queue.popleft().jpeg)
        while self._bytes > self.max_bytes:
            oldest = min((q for q in self._frames.values() if len(q) > 1), key=lambda q: q[0].t, default=None)
            if oldest is None:
                break
            self._bytes -= len(oldest.popleft().jpeg)
        while self._signals and self._signals[0].end < now - 2 * self.seconds:
            self._signals.popleft()

    def snapshot(self, start: float, end: float) -> tuple[dict[str, list[Kept]], list[SignalEvent]]:
        """The frames of [start, end] of every camera, and the signals that overlap it."""
        with self._lock:
            frames = {cam: [k for k in q if start - 1e-6 <= k.t <= end + 1e-6] for cam, q in self._frames.items()}
            signals = [s for s in self._signals if s.end >= start and s.start <= end]
        return {c: f for c, f in frames.items() if f}, signals


@dataclasses.dataclass
class Cue:
    t: float
    text: str
    source: str  # "signal", "measure" or "call"
    confidence: float | None = None


def strongest_cue(
    accused: str | None,
    signals: Sequence[SignalEvent],
    frames: Mapping[str, Sequence[Kept]],
    calibration: TableCalibration | None,
    start: float,
    end: float,
) -> Cue:
    """The moment to slow down: the accused's strongest signal in the window, else their
    measures' nearest approach to a signal's line, else the last seconds before the call."""
    theirs = [s for s in signals if accused is not None and s.player == accused]
    if theirs:
        best = max(theirs, key=lambda s: (not s.unsure, s.confidence))
        sure = ", unsure" if best.unsure else ""
        return Cue(
            min(max((best.start + best.end) / 2, start), end),
            f"{accused}'s strongest cue, seen {best.start:.2f}-{best.end:.2f} s "
            f"(confidence {best.confidence:.2f}{sure})",
            "signal",
            float(best.confidence),
        )
    near = _nearest_measure(accused, frames, calibration, start, end) if accused else None
    if near is not None:
        t, margin = near
        return Cue(
            t, f"no signal of {accused} was seen: the moment nearest one ({margin:+.0%} from its line)", "measure"
        )
    back = max(start, end - AROUND)
    who = f"of {accused} " if accused else ""
    return Cue(back, f"no cue {who}was seen: the last seconds before the call", "call")


def _nearest_measure(
    accused: str | None,
    frames: Mapping[str, Sequence[Kept]],
    calibration: TableCalibration | None,
    start: float,
    end: float,
) -> tuple[float, float] | None:
    """(time, margin) where one of the accused's measures came nearest its line (vision.evidence)."""
    if accused is None or calibration is None or accused not in [s.name for s in calibration.seats]:
        return None
    from vision.evidence import measures  # deferred: the signal detectors, only without a signal seen
    from vision.signals.catalogue import default_catalogue  # deferred: as above
    from vision.signals.engine import seat_series  # deferred: as above

    seat = next(s for s in calibration.seats if s.name == accused)
    lms: list[FrameLandmarks] = []
    seen: set[int] = set()
    for k in frames.get(seat.camera, ()):
        if k.landmarks is not None and id(k.landmarks) not in seen:
            seen.add(id(k.landmarks))
            lms.append(k.landmarks)
    if len(lms) < 3:
        return None
    cat = default_catalogue()
    series = seat_series(lms, calibration.for_camera(seat.camera), accused)
    best: tuple[float, float] | None = None
    for spec in cat.signals:
        try:
            found = measures(series, spec, cat)
        except (KeyError, ValueError, IndexError):
            continue
        for m in found:
            if not m.primary:
                continue
            c = m.closest()
            if c is None:
                continue
            margin = m.margin(c[1])
            if best is None or margin > best[1]:
                best = (float(m.t[c[0]]), margin)
    return best


@dataclasses.dataclass
class Challenge:
    number: int
    accused: str | None
    by: str | None
    team: str | None
    at: float  # the call's session time
    start: float
    end: float
    cue: Cue
    frames: dict[str, list[Kept]]
    phases: list[dict[str, Any]]
    made_in: float  # s from the call to ready
    calibration: TableCalibration | None = None
    created: float = dataclasses.field(default_factory=time.time)
    drawn: threading.Event = dataclasses.field(default_factory=threading.Event, repr=False)  # draw_all done
    _drawn: dict[tuple[str, int], bytes] = dataclasses.field(default_factory=dict, repr=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)

    def headline(self) -> str:
        who = f"{self.by} challenges" if self.by else "Caught!"
        about = f" {self.accused}" if self.accused else ""
        return f"{who}{about}: the {self.end - self.start:.0f} s before the call at {self.at:.2f} s"

    def to_dict(self, base: str = "/api/challenges") -> dict[str, Any]:
        return {
            "number": self.number,
            "accused": self.accused,
            "by": self.by,
            "team": self.team,
            "at": round(self.at, 3),
            "from": round(self.start, 3),
            "to": round(self.end, 3),
            "headline": self.headline(),
            "cue": {"t": round(self.cue.t, 3), "text": self.cue.text, "source": self.cue.source},
            "phases": self.phases,
            "made_in": round(self.made_in, 3),
            "cameras": [
                {
                    "name": cam,
                    "frames": [
                        {"t": round(k.t, 3), "url": f"{base}/{self.number}/frames/{cam}/{i}.jpg"}
                        for i, k in enumerate(kept)
                    ],
                }
                for cam, kept in self.frames.items()
            ],
        }

    def draw_all(self, stop: threading.Event | None = None) -> None:
        """Draw every frame in the order they play (the first of each camera first)."""
        longest = max((len(k) for k in self.frames.values()), default=0)
        try:
            for i in range(longest):
                for cam, kept in self.frames.items():
                    if stop is not None and stop.is_set():
                        return
                    if i < len(kept):
                        self.jpeg(cam, i)
        finally:
            self.drawn.set()

    def jpeg(self, camera: str, i: int) -> bytes:
        """Frame `i` of `camera` with its overlays drawn (drawn once, then kept)."""
        kept = self.frames.get(camera)
        if kept is None or not 0 <= i < len(kept):
            raise NoSuchFrame(f"challenge {self.number} has no frame {i} of camera {camera!r}", camera=camera)
        key = (camera, i)
        with self._lock:
            if key in self._drawn:
                return self._drawn[key]
        data = draw_kept(kept[i], self.calibration, self.cue, self.accused)
        with self._lock:
            self._drawn[key] = data
        return data


def draw_kept(
    k: Kept, calibration: TableCalibration | None, cue: Cue | None = None, accused: str | None = None
) -> bytes:
    """A kept frame with the cards read, the landmarks and the seats drawn, and its time."""
    image = cv2.imdecode(np.frombuffer(k.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return k.jpeg
    if k.landmarks is not None and calibration is not None:
        from vision.landmarks.draw import draw_frame  # deferred: OpenCV drawing of landmarks

        image = draw_frame(image, k.landmarks, calibration.for_camera(k.camera))  # no signal named on it
    for c in k.cards:
        corners = np.array(c.corners, np.int32).reshape(-1, 1, 2)
        if len(corners) != 4:
            continue
        color = (80, 220, 80) if c.face_up else (40, 140, 240)
        cv2.polylines(image, [corners], True, color, 3, cv2.LINE_AA)
        x, y = int(corners[:, 0, 0].min()), int(corners[:, 0, 1].min())
        name = str(c.card or "?").split(":")[-1]
        cv2.putText(
            image, f"{name} {c.confidence:.0%}", (x, max(18, y - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4
        )
        cv2.putText(
            image, f"{name} {c.confidence:.0%}", (x, max(18, y - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1
        )
    h, w = image.shape[:2]
    near = cue is not None and abs(k.t - cue.t) <= AROUND
    text = f"{k.camera}  {k.t:.2f} s" + (f"  - around {accused}'s cue" if near and accused else "")
    cv2.rectangle(image, (0, h - 30), (w, h), (0, 0, 0), -1)
    cv2.putText(image, text, (8, h - 9), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 220, 255) if near else (255, 255, 255), 1)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    return data.tobytes() if ok else k.jpeg


def build_challenge(
    buffer: ChallengeBuffer,
    accused: str | None,
    at: float | None = None,
    *,
    by: str | None = None,
    team: str | None = None,
    seconds: float | None = None,
    calibration: TableCalibration | None = None,
    number: int = 1,
    called: float | None = None,
) -> Challenge:
    """The challenge of the `seconds` before `at` (default: the newest frame): the frames kept,
    the cue of `accused`, and the phases to play (normal speed, then slowed around the cue).
    `called` (time.perf_counter() of the call) measures `made_in`."""
    began = time.perf_counter() if called is None else called
    end = buffer.newest() if at is None else float(at)
    if end is None:
        raise NothingToReplay("no camera has sent a frame yet: there is nothing to replay")
    start = max(0.0, end - (seconds or buffer.seconds))
    frames, signals = buffer.snapshot(start, end)
    if not frames:
        raise NothingToReplay(f"no camera has a frame between {start:.1f} and {end:.1f} s")
    start = min(k[0].t for k in frames.values())
    cue = strongest_cue(accused, signals, frames, calibration, start, end)
    slow_from, slow_to = max(start, cue.t - AROUND), min(end, cue.t + AROUND)
    phases = [
        {"name": "normal", "text": "at normal speed", "rate": 1.0, "from": round(start, 3), "to": round(end, 3)},
        {
            "name": "slow",
            "text": f"slowed down {1 / SLOW:.0f}x around {cue.text}",
            "rate": SLOW,
            "from": round(slow_from, 3),
            "to": round(max(slow_to, slow_from + 0.1), 3),
        },
    ]
    return Challenge(
        number, accused, by, team, end, start, end, cue, frames, phases, time.perf_counter() - began, calibration
    )


class ChallengeBook:
    """How many challenges each team has left this game."""

    def __init__(self, per_team: int = 3) -> None:
        self.per_team = int(per_team)
        self.used: dict[str, int] = collections.Counter()
        self._lock = threading.Lock()

    def left(self, team: str) -> int:
        return self.per_team - self.used[team]

    def use(self, team: str) -> int:
        """Charge one of `team`'s challenges (answers how many are left), or `NoChallengesLeft`."""
        with self._lock:
            if self.used[team] >= self.per_team:
                raise NoChallengesLeft(
                    f"the {team} team has used all its {self.per_team} challenges of this game",
                    team=team,
                    per_team=self.per_team,
                )
            self.used[team] += 1
            return self.per_team - self.used[team]

    def give_back(self, team: str) -> None:
        with self._lock:
            self.used[team] = max(0, self.used[team] - 1)


class Challenges:
    """A table's challenges: the buffer, the book, the challenges made, and who is told."""

    def __init__(
        self,
        buffer: ChallengeBuffer | None = None,
        book: ChallengeBook | None = None,
        teams: Mapping[str, Sequence[str]] | None = None,
        calibration: TableCalibration | None = None,
        predraw: bool = True,
    ) -> None:
        self.predraw = predraw  # draw every frame in the background once a challenge is made
        self.buffer = buffer or ChallengeBuffer()
        self.book = book or ChallengeBook()
        self.teams = {t: list(ms) for t, ms in (teams or {}).items()}
        self.calibration = calibration
        self.made: dict[int, Challenge] = {}
        self._numbers = itertools.count(1)
        self._listeners: list[Callable[[Challenge], None]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []

    def close(self) -> None:
        """Stop drawing challenges ahead (the server is stopping)."""
        self._stop.set()
        for worker in self._workers:
            worker.join()
        self._workers.clear()

    def team_of(self, player: str | None) -> str | None:
        return next((t for t, ms in self.teams.items() if player in ms), None)

    def players(self) -> list[str]:
        return [p for ms in self.teams.values() for p in ms]

    def subscribe(self, listener: Callable[[Challenge], None]) -> Callable[[], None]:
        """`listener(challenge)` once each challenge is ready (the WebSocket tells every screen)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def open(
        self, accused: str | None, by: str | None = None, at: float | None = None, charge: bool = True
    ) -> Challenge:
        """A challenge of `accused` asked by `by` (their team's book is charged when `charge`)."""
        called = time.perf_counter()
        known = self.players()
        for who in (accused, by):
            if who is not None and known and who not in known:
                raise UnknownPlayer(f"{who} is not at this table; the players: {', '.join(known)}", player=who)
        team = self.team_of(by)
        if charge and team is not None:
            self.book.use(team)
        try:
            with self._lock:
                number = next(self._numbers)
            challenge = build_challenge(
                self.buffer, accused, at, by=by, team=team, calibration=self.calibration, number=number, called=called
            )
        except BaseException:
            if charge and team is not None:
                self.book.give_back(team)  # nothing to replay: the team keeps its challenge
            raise
        with self._lock:
            self.made[number] = challenge
        if self.predraw:
            worker = threading.Thread(target=challenge.draw_all, args=(self._stop,), name=f"challenge-{number}")
            self._workers.append(worker)
            worker.start()
        for listener in list(self._listeners):
            listener(challenge)
        return challenge

    def on_action(self, action: Mapping[str, Any], at: float | None = None) -> Challenge | None:
        """A Caught! logged at the table opens its challenge (without using one of the book's)."""
        if action.get("kind") != "caught":
            return None
        return self.open(action.get("target"), by=action.get("caller"), at=at, charge=False)

    def get(self, number: int) -> Challenge:
        challenge = self.made.get(number)
        if challenge is None:
            raise NoSuchChallenge(f"there is no challenge {number} at this table", number=number)
        return challenge

    def latest(self) -> Challenge:
        if not self.made:
            raise NoSuchChallenge("no challenge has been made at this table yet")
        return self.made[max(self.made)]

    def left(self) -> dict[str, int]:
        return {t: self.book.left(t) for t in self.teams}

    def teams_from_session(self, session: str | Path) -> None:
        """The teams and seats of a recorded session (the demo's buffer)."""
        from referee.core import get_engine  # deferred: only a recorded session's teams
        from referee.secrecy import seats  # deferred: as above
        from tablereferee.recording.folder import SessionFolder  # deferred: as above

        folder = SessionFolder.open(session)
        setup = folder.manifest.get("setup") or {}
        try:
            _, teams = seats(get_engine(str(folder.manifest.get("game"))).new_game(setup))
        except (RefereeError, TypeError, KeyError):
            teams = {}
        teams = teams or {p: [p] for p in setup.get("players") or []}
        self.teams = {str(t): list(ms) for t, ms in teams.items()}
        if folder.manifest.get("calibration"):
            self.calibration = TableCalibration.from_dict(folder.manifest["calibration"])


def recorded_frames(session: str | Path) -> list[tuple[Any, list[Any], FrameLandmarks | None]]:
    """Every recorded frame of a session, in time order, with what the run observed of it (its
    stored card reads and landmarks, the signals logged once they ended): what a live table's
    frame listener hands the buffer, for tests and the benchmark."""
    from referee.observations import CardReading  # deferred: only a recorded session
    from referee.sessionlog import read_log  # deferred: as above
    from tablereferee.recording.folder import SessionFolder, read_segments  # deferred: PyAV
    from tablereferee.recording.tracks import read_cards, read_landmarks  # deferred: as above
    from vision.capture.sources import CameraFrame  # deferred: as above

    folder = SessionFolder.open(session)
    items: list[tuple[float, int, Any]] = []
    for cam in folder.camera_names():
        for i, (t, image) in enumerate(read_segments(folder.camera_dir(cam))):
            items.append((t, 0, CameraFrame(cam, i, t, image)))
    cards = {c: read_cards(folder.path, c) for c in folder.camera_names()}
    lms = {c: read_landmarks(folder.path, c) for c in folder.camera_names()}
    reads = {c: {round(f["t"], 3): f for f in tr.frames} for c, tr in cards.items() if tr is not None}
    marks = {c: {round(f.t, 3): f for f in tr.frames} for c, tr in lms.items() if tr is not None}
    contents = read_log(folder.log_path)
    origin = contents.header.created
    signals = []
    for e in contents.entries:
        p = e.payload
        if e.kind == "observation" and p.get("type") == "signal":
            signals.append(
                (
                    e.time - origin,
                    SignalEvent(
                        str(p.get("player")),
                        str(p["signal"]),
                        float(p["start"]),
                        float(p["end"]),
                        float(p.get("confidence") or 0),
                        unsure=bool(p.get("unsure")),
                    ),
                )
            )
    items.sort(key=lambda x: (x[0], x[1]))
    out: list[tuple[Any, list[Any], FrameLandmarks | None]] = []
    pending = sorted(signals, key=lambda s: s[0])
    for t, _, frame in items:
        obs: list[Any] = []
        read = reads.get(frame.camera, {}).get(round(t, 3))
        if read is not None:
            obs.append(
                CardsSeen(
                    t,
                    frame.camera,
                    tuple(
                        CardReading(
                            c["card"],
                            float(c["confidence"]),
                            bool(c["face_up"]),
                            c["zone"],
                            tuple((float(x), float(y)) for x, y in c["corners"]),
                        )
                        for c in read["cards"]
                    ),
                    read.get("frame", -1),
                )
            )
        while pending and pending[0][0] <= t:
            obs.append(pending.pop(0)[1])
        out.append((frame, obs, marks.get(frame.camera, {}).get(round(t, 3))))
    return out


def fill_from_session(buffer: ChallengeBuffer, session: str | Path, until: float | None = None) -> int:
    """Feed a recorded session's frames through `buffer` as a live table would (up to `until`)."""
    n = 0
    for frame, obs, lm in recorded_frames(session):
        if until is not None and frame.t > until:
            break
        buffer.add(frame, obs, lm)
        n += 1
    return n
