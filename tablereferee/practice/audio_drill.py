"""An audible drill: the app draws an audible Signal card (Hum, Mumble, Talk about TV shows,
games or sport), the player gives it into the microphone, and the referee answers whether it
was heard, what it was taken for, how long after the sound began it was recognised, and how
nonchalantly it was given. A second kind of drill, `quiet`, has the player talk normally and
counts every audible signal the referee hears all the same (false alarms).

    drill = AudioDrill.start("Anna", "hum")                      # or None: a random audible card
    for pcm in chunks:                                           # 16-bit little-endian mono PCM
        live = drill.add_pcm(pcm, rate=16000)                    # {"heard": bool, ...} at once
    verdict = drill.finish()                                     # the verdict and its evidence

The perception is the table microphone's (`vision.audio.pipeline.AudioListener`): the first
second is the room at rest (the noise floor), 1 s windows every 0.5 s are classified and
smoothed, runs of hum or mumble of a second become events, speech is decoded by PocketSphinx
and its keywords vote for a topic. After each chunk that completes a window the audio so far
is analysed again, as the live table would know it; the delay runs from the event's start (its
first loud frame) to the end of the chunk that first held it, plus the time the server took.

`table_talk=True` mixes the others' table talk (`TABLE_TALK`: game talk and Italian talk from
the audio fixtures, with pauses, looped) into the microphone's sound, at `talk_db` above the
microphone's own room noise: the signal is then given while others talk, and only what
overlaps the player's own sound counts as theirs.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from referee.core import RefereeError
from referee.observations import SignalEvent
from referee.signal_cards import BY_ID, SIGNAL_CARDS
from vision.audio import features as F
from vision.audio.pipeline import TALKING, AudioAnalysis, AudioListener, WindowClass
from vision.audio.sources import SAMPLE_RATE, AudioClip, from_array, load, save_wav

AUDIBLE = tuple(c.id for c in SIGNAL_CARDS if c.cue == "audio")  # the cards a microphone drill scores
TALK = frozenset({"talk_tv", "talk_games", "talk_sport"})
QUIET = "quiet"  # the drill in which no signal may be heard
WINDOW = 8.0  # seconds of microphone a drill listens to (the first is the room at rest)
CALIBRATION = 1.0  # the first second: the noise floor
MAX_SECONDS = 60.0
RATES = (8_000, 64_000)  # the sample rates a chunk may have (the page sends 16 kHz)
TALK_DB = 22.0  # the others' talk, above the microphone's room noise
DITHER = 1e-4  # about -80 dBFS: a muted microphone's digital silence is no room (see the report)
LIVE_TAIL = 3.0  # seconds a live check of a hum or a mumble analyses (the verdict: the whole drill)
OWN_OVERLAP = 0.3  # seconds an event must share with the player's own sound to be theirs
TABLE_TALK = Path(__file__).with_name("audio_drill_table_talk.wav")
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "audio"

NAMES = {
    "hum": "a hum",
    "mumble": "a mumble",
    "talk_tv": "talk about TV shows",
    "talk_games": "talk about games",
    "talk_sport": "talk about sport",
    TALKING: "talk with no topic",
}
WEIGHTS = {"quiet": 0.35, "subtle": 0.20, "brief": 0.25, "masked": 0.20}
LINE = 0.5  # the classifier's line drawn with its score: more likely than not

_ANALYSE = threading.Lock()  # Silero's and PocketSphinx's models are shared and keep state: one at a time
_QUICK = AudioListener(recognize=False)  # hums and mumbles: no decoding
_FULL = AudioListener()  # the verdict, and live checks of talk


class AudioDrillError(RefereeError):
    """An audible drill request that cannot be done."""


class NotAnAudibleSignal(AudioDrillError):
    """A Signal card a microphone cannot drill (unknown, or seen rather than heard)."""


class NotPCM(AudioDrillError):
    """A chunk that is not 16-bit little-endian mono PCM."""


class BadAudioRate(AudioDrillError):
    """A chunk's sample rate outside what a drill takes, or changed within a drill."""


class AudioDrillOver(AudioDrillError):
    """A chunk sent to a drill that has finished."""

    status = 409


class TooMuchAudio(AudioDrillError):
    """More audio than a drill listens to."""

    status = 413


def card_text(signal: str | None) -> str:
    if signal is None or signal == QUIET:
        return "Talk normally, and give no signal: every signal the referee hears is a false alarm"
    return BY_ID[signal].text


def check_signal(signal: str) -> str:
    """`signal` if a microphone can drill it, else a named refusal (which never names a team's
    own card: the caller may be drilling it)."""
    if signal in AUDIBLE:
        return signal
    if signal in BY_ID or signal == "free":
        raise NotAnAudibleSignal(
            "that Signal card is seen, not heard: drill it with the camera on the practice page (/practice)"
        )  # the card is not named: it may be the team's own
    raise NotAnAudibleSignal(f"there is no audible Signal card {signal!r}; audible: {', '.join(AUDIBLE)}")


# -- the others' table talk -------------------------------------------------------------------


def build_table_talk(fixtures: Path = FIXTURES) -> np.ndarray:
    """The others' talk: game talk (English, no topic) and Italian talk (no topic without an
    Italian model) from the audio fixtures, 2.4-2.5 s pauses between, in the fixtures' own room
    noise (the Italian clip scaled so its room matches): 10.7 s that loop."""
    game = load(fixtures / "speech_en_game.wav").samples
    italian = load(fixtures / "speech_it.wav").samples
    rms = lambda x: float(np.sqrt(np.mean(x[:SAMPLE_RATE] ** 2)))  # noqa: E731
    italian = italian * (rms(game) / rms(italian))
    room = game[:SAMPLE_RATE]

    def fill(seconds: float) -> np.ndarray:
        n = int(seconds * SAMPLE_RATE)
        return np.tile(room, n // len(room) + 1)[:n]

    s = SAMPLE_RATE
    parts = [fill(1.3), game[s : int(3.3 * s)], fill(2.5), italian[s : int(3.2 * s)], fill(2.4)]
    return np.concatenate(parts).astype(np.float32)


_BED: np.ndarray | None = None


def table_talk() -> np.ndarray:
    global _BED
    if _BED is None:
        _BED = load(TABLE_TALK).samples
    return _BED


def talk_level_db(x: np.ndarray) -> float:
    """The loudness of talk in a track: the 90th percentile of its 25 ms frames, dBFS."""
    return float(np.percentile(F.frame_db(x), 90))


def _dither(n: int) -> np.ndarray:
    block = np.random.default_rng(7).normal(0.0, DITHER, int(1.37 * SAMPLE_RATE)).astype(np.float32)
    return np.tile(block, n // len(block) + 1)[:n]


# -- the drill ----------------------------------------------------------------------------------


@dataclasses.dataclass
class AudioDrill:
    """One audible drill of one player: the card drawn, the audio heard, the first recognition."""

    id: str
    player: str
    signal: str | None  # None: the quiet drill
    secret: bool = False
    team: str | None = None
    window: float = WINDOW
    table_talk: bool = False
    talk_db: float = TALK_DB
    rate: int | None = None
    chunks: list[np.ndarray] = dataclasses.field(default_factory=list)
    first_heard: float | None = None  # audio time of the end of the chunk that first held the event
    first_heard_ms: float | None = None
    processing_ms: list[float] = dataclasses.field(default_factory=list)
    hearing: str = "silence"  # the newest window's class
    result: dict[str, Any] | None = None
    created: float = dataclasses.field(default_factory=time.time)
    _floor: F.NoiseFloor | None = None
    _gain: float | None = None
    _windows_seen: int = 0
    _decoded_at: float = -1.0  # audio time of the last live decoding (talk drills)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @classmethod
    def start(
        cls,
        player: str,
        signal: str | None = None,
        *,
        quiet: bool = False,
        secret: bool = False,
        team: str | None = None,
        window: float = WINDOW,
        table_talk: bool = False,
        talk_db: float = TALK_DB,
    ) -> AudioDrill:
        if quiet or signal == QUIET:
            signal = None
        elif signal is None:
            signal = secrets.choice(AUDIBLE)
        else:
            signal = check_signal(signal)
        if not CALIBRATION + 1.0 <= window <= MAX_SECONDS:
            raise AudioDrillError(f"a drill listens {CALIBRATION + 1.0:g} to {MAX_SECONDS:g} s", field="window")
        return cls(secrets.token_urlsafe(9), player, signal, secret, team, float(window), table_talk, float(talk_db))

    @property
    def kind(self) -> str:
        return QUIET if self.signal is None else "signal"

    def card(self) -> dict[str, Any]:
        return {"signal": self.signal or QUIET, "text": card_text(self.signal), "secret": self.secret}

    def prepare(self) -> None:
        """Load the models now (PocketSphinx takes a second or more), while the page counts down."""
        with _ANALYSE:
            _QUICK.classify(AudioClip(_dither(SAMPLE_RATE)))
            if self.signal is None or self.signal in TALK:
                assert _FULL.recognizer is not None  # english(): the model inside pocketsphinx's wheel

    # -- audio ------------------------------------------------------------------------------

    @property
    def seconds(self) -> float:
        return sum(len(c) for c in self.chunks) / (self.rate or SAMPLE_RATE)

    def add_pcm(self, data: bytes, rate: int = SAMPLE_RATE) -> dict[str, Any]:
        """One chunk of the microphone (16-bit little-endian mono PCM at `rate`), and whether the
        card's signal is heard so far."""
        began = time.perf_counter()
        with self._lock:
            if self.result is not None:
                raise AudioDrillOver("this drill has finished: start a new one")
            if not RATES[0] <= rate <= RATES[1]:
                raise BadAudioRate(f"a sample rate of {rate} Hz: a drill takes {RATES[0]} to {RATES[1]} Hz", rate=rate)
            if self.rate is not None and rate != self.rate:
                raise BadAudioRate(f"this drill's audio is at {self.rate} Hz, not {rate} Hz", rate=rate)
            if not data:
                raise NotPCM("an empty chunk: send 16-bit little-endian mono PCM")
            if len(data) % 2:
                raise NotPCM(f"{len(data)} bytes is not a whole number of 16-bit samples")
            samples = np.frombuffer(data, "<i2").astype(np.float32) / 32768.0
            if self.seconds + len(samples) / rate > min(self.window + 5.0, MAX_SECONDS):
                raise TooMuchAudio(f"a drill listens to {self.window:g} s (and 5 s more at most)")
            self.rate = rate
            self.chunks.append(samples)
            level = float(np.max(F.frame_db(samples))) if len(samples) else F.FLOOR_DB
            self._check(began)
            elapsed = (time.perf_counter() - began) * 1000
            self.processing_ms.append(elapsed)
            t = self.seconds
            heard = self.first_heard is not None
            return {
                "t": round(t, 3),
                "chunk": len(self.chunks),
                "windows": self._windows_seen,  # the 1 s windows analysed so far
                "heard": heard,
                "hearing": self.hearing,
                "level_db": round(level - (self._floor.db if self._floor else level), 1),
                "server_ms": round(elapsed, 1),
                "done": t >= self.window or (heard and self.signal is not None and self._sound_over(t)),
            }

    def mic(self) -> np.ndarray:
        """The player's own sound at 16 kHz."""
        if not self.chunks:
            return np.zeros(0, np.float32)
        raw = np.concatenate(self.chunks)
        if self.rate in (None, SAMPLE_RATE):
            return raw
        return from_array(raw, int(self.rate or SAMPLE_RATE), source="browser").samples

    def heard_clip(self) -> AudioClip:
        """What the referee hears: the player's sound, the others' talk mixed in (a table-talk
        drill), and a dither far under any room."""
        mic = self.mic()
        x = mic + _dither(len(mic))
        if self.table_talk and len(mic):
            bed = table_talk()
            if self._gain is None and len(mic) >= SAMPLE_RATE // 2:
                room = F.NoiseFloor.calibrate(AudioClip(x), 0.5).db
                target = float(np.clip(room + self.talk_db, -45.0, -6.0))
                self._gain = 10 ** ((target - talk_level_db(bed)) / 20)
            if self._gain is not None:
                x = x + self._gain * np.tile(bed, len(mic) // len(bed) + 1)[: len(mic)]
        return AudioClip(np.clip(x, -1.0, 1.0), 0.0, "practice microphone")

    def _check(self, began: float) -> None:
        """Analyse the audio so far when a new window is complete: is the card's signal heard?"""
        clip = self.heard_clip()
        if clip.duration < CALIBRATION:
            return
        if self._floor is None:
            self._floor = F.NoiseFloor.calibrate(clip, CALIBRATION)
        frames = 1 + (len(clip.samples) - F.FRAME_LEN) // F.FRAME_HOP
        wf, hf = round(_QUICK.window * F.FRAME_RATE), round(_QUICK.hop * F.FRAME_RATE)
        complete = 1 + (frames - wf) // hf if frames >= wf else 0
        if complete <= self._windows_seen:
            return
        self._windows_seen = complete
        talk = self.signal in TALK
        # a hum or a mumble is heard from the last seconds alone (on the window grid, with the
        # room's floor): each check costs the same however long the drill has run
        tail = clip if talk else clip.slice(max(0.0, (clip.duration - LIVE_TAIL) // _QUICK.hop * _QUICK.hop), clip.end)
        with _ANALYSE:
            analysis = _QUICK.analyse(tail, self._floor)
            if talk and self.first_heard is None and self._due(analysis, clip.duration):
                self._decoded_at = clip.duration
                analysis = _FULL.analyse(clip, self._floor)
        self.hearing = analysis.windows[-1].label if analysis.windows else "silence"
        if self.first_heard is None and self.signal is not None:
            own = self._own_span()
            if any(e.signal == self.signal and _overlap(e, own) for e in analysis.events):
                self.first_heard = clip.duration
                self.first_heard_ms = (time.perf_counter() - began) * 1000

    def _due(self, analysis: AudioAnalysis, now: float) -> bool:
        """A talk drill decodes the speech so far at most once a second of new audio, and once
        more when a stretch of speech has ended."""
        speech = [e for e in analysis.events if e.signal == TALKING]
        if not speech or speech[-1].end <= self._decoded_at:  # no speech since the last decoding
            return False
        return analysis.windows[-1].label != "speech" or now - self._decoded_at >= 1.0

    def _sound_over(self, t: float) -> bool:
        """Whether the player's sound has ended: the newest window is the room (a table-talk
        drill: none of the player's own loud frames in the last half second)."""
        if not self.table_talk:
            return self.hearing == "silence"
        own = self._own_span()
        return not own or own[-1][1] < t - 0.5

    def _own_span(self) -> list[tuple[float, float]]:
        """Where the player's own sound is (a table-talk drill: the microphone's loud frames
        before the others' talk was mixed in); the whole drill otherwise."""
        mic = self.mic()
        if not self.table_talk:
            return [(0.0, len(mic) / SAMPLE_RATE)]
        return loud_spans(mic + _dither(len(mic)))

    def others_talk(self, seconds: float) -> list[tuple[float, float]] | None:
        """Where the others talk in a table-talk drill (None: the drill mixes no talk in)."""
        if not self.table_talk:
            return None
        bed = table_talk()
        spans: list[tuple[float, float]] = []
        for a, b in loud_spans(bed):  # a pause between words under half a second is still talk
            if spans and a - spans[-1][1] < 0.5:
                spans[-1] = (spans[-1][0], b)
            else:
                spans.append((a, b))
        period = len(bed) / SAMPLE_RATE
        return [(a + k * period, b + k * period) for k in range(int(seconds / period) + 1) for a, b in spans]

    # -- the verdict ------------------------------------------------------------------------

    def finish(self) -> dict[str, Any]:
        """The verdict: heard or not, taken for what, the delay, the nonchalance, the evidence
        (a quiet drill: the false alarms)."""
        with self._lock:
            if self.result is None:
                self.result = self._verdict()
            return self.result

    def _verdict(self) -> dict[str, Any]:
        clip = self.heard_clip()
        out: dict[str, Any] = {
            "drill": self.id,
            "player": self.player,
            "kind": self.kind,
            "card": self.card(),
            "table_talk": self.table_talk,
            "seconds": round(clip.duration, 3),
            "chunks": len(self.chunks),
            "frames": len(self.chunks),
            "rate": self.rate,
            "heard": False,
            "seen": False,
            "unsure": None,
            "start": None,
            "end": None,
            "confidence": None,
            "taken_for": None,
            "heard_in_audio": None,  # the end of the chunk that first held the event, on the audio's clock
            "recognised_at": None,  # and the server's time for that chunk added
            "delay": None,
            "cue": None,
            "nonchalance": {"score": 0.0, "read": False, "parts": {}},
            "nonchalance_lines": [],
            "events": [],
            "false_alarms": [],
            "noise_floor_db": None,
            "evidence": {"t": [], "score": [], "loudness": [], "label": [], "line": LINE, "name": ""},
            "server_ms": round(float(np.median(self.processing_ms)), 1) if self.processing_ms else None,
        }
        if clip.duration < CALIBRATION + 0.5:
            out["words"] = "Not heard: the microphone sent too little sound (a drill needs more than 1.5 s)."
            return out
        floor = self._floor or F.NoiseFloor.calibrate(clip, CALIBRATION)
        own = self._own_span()
        with _ANALYSE:
            analysis = _QUICK.analyse(clip, floor)
            # the words are decoded where a topic could be the player's: a talk or quiet drill,
            # or talk of their own in a hum or mumble drill (what it was taken for)
            if (
                self.signal is None
                or self.signal in TALK
                or any(e.signal == TALKING and _overlap(e, own) for e in analysis.events)
            ):
                analysis = _FULL.analyse(clip, floor)
        mine = [e for e in analysis.events if _overlap(e, own)]
        out["noise_floor_db"] = round(floor.db, 1)
        out["events"] = [
            {
                "signal": e.signal,
                "start": e.start,
                "end": e.end,
                "confidence": e.confidence,
                "unsure": e.unsure,
                "yours": e in mine,
            }
            for e in analysis.events
        ]
        audible = [e for e in mine if e.signal in AUDIBLE]
        event = next((e for e in mine if e.signal == self.signal), None) if self.signal else None
        out["own_talk_seconds"] = round(_speech_seconds(analysis.windows, own), 2)
        out["talk_seconds"] = round(_speech_seconds(analysis.windows, [(0.0, clip.duration)]), 2)
        if self.signal is None:
            out["false_alarms"] = [_brief(e) for e in audible]
            out["clean"] = not audible
            out["false_alarms_per_minute"] = round(len(audible) / (clip.duration / 60), 2)
            out["evidence"] = evidence(analysis.windows, None, None)
            out["nonchalance"] = {"score": 100.0 if not audible else 0.0, "read": False, "parts": {}}
        else:
            out["false_alarms"] = [_brief(e) for e in audible if e.signal != self.signal]
            taken = event or max(mine, key=lambda e: e.end - e.start, default=None)
            out["taken_for"] = taken.signal if taken else None
            out["evidence"] = evidence(analysis.windows, self.signal, event)
        if event is not None:
            out.update(
                heard=True,
                seen=True,
                unsure=bool(event.unsure),
                start=event.start,
                end=event.end,
                confidence=event.confidence,
                cue=f"heard from the microphone as {NAMES[event.signal]}",
            )
            if self.first_heard is not None:
                out["heard_in_audio"] = round(self.first_heard, 3)
                out["recognised_at"] = round(self.first_heard + (self.first_heard_ms or 0.0) / 1000, 3)
                out["delay"] = round(max(out["recognised_at"] - event.start, 0.0), 3)
            n = audible_nonchalance(event, analysis.windows, _QUICK.min_event, self.others_talk(clip.duration))
            out["nonchalance"] = n
            out["nonchalance_lines"] = nonchalance_lines(n)
            if "keywords" in event.evidence:
                out["evidence"]["keywords"] = event.evidence["keywords"]
                out["evidence"]["words"] = event.evidence.get("words")
        others = self.others_talk(clip.duration)
        out["evidence"]["others"] = [  # where the others talked (a table-talk drill), for the plot
            [round(a, 2), round(min(b, clip.duration), 2)] for a, b in others or [] if a < clip.duration
        ]
        out["words"] = verdict_words(out)
        return out


def _overlap(event: SignalEvent, spans: list[tuple[float, float]]) -> bool:
    """Whether an event is the player's: it shares 0.3 s, and a third of itself, with their sound."""
    shared = sum(max(0.0, min(event.end, b) - max(event.start, a)) for a, b in spans)
    return shared >= max(OWN_OVERLAP, (event.end - event.start) / 3)


def loud_spans(x: np.ndarray, margin_db: float = 9.0) -> list[tuple[float, float]]:
    """Where a track is loud: 25 ms frames (smoothed over 50 ms) `margin_db` above its first
    second's noise floor, in seconds."""
    floor = F.NoiseFloor.calibrate(AudioClip(x), CALIBRATION)
    power = np.convolve(10 ** (F.frame_db(x) / 10), np.ones(5) / 5, mode="same")
    loud = 10 * np.log10(power + 1e-12) - floor.db > margin_db
    hop = F.FRAME_HOP / SAMPLE_RATE
    return [(float(a * hop), float(b * hop + F.FRAME_LEN / SAMPLE_RATE)) for a, b in F._runs(loud)]


def _speech_seconds(windows: list[WindowClass], spans: list[tuple[float, float]]) -> float:
    """Seconds of speech windows (the hop each) inside the spans."""
    hop = windows[1].start - windows[0].start if len(windows) > 1 else 0.5
    return sum(hop for w in windows if w.label == "speech" and any(a <= (w.start + w.end) / 2 <= b for a, b in spans))


def _brief(e: SignalEvent) -> dict[str, Any]:
    return {"signal": e.signal, "start": e.start, "end": e.end, "confidence": e.confidence, "text": NAMES[e.signal]}


def class_of(signal: str | None) -> str:
    """The classifier's class whose score is the evidence of a card: talk is speech."""
    if signal in ("hum", "mumble"):
        return str(signal)
    return "speech"


def evidence(windows: list[WindowClass], signal: str | None, event: SignalEvent | None) -> dict[str, Any]:
    """The classifier's score for the card's class per window (its centre) against the line,
    the loudness above the room, and each window's smoothed class (a quiet drill: the score of
    the likeliest signal class, hum or mumble)."""
    if signal is None:
        score = [max(w.probs["hum"], w.probs["mumble"]) for w in windows]
        name = "hum or mumble: the classifier's probability"
    else:
        score = [w.probs[class_of(signal)] for w in windows]
        name = f"{class_of(signal)}: the classifier's probability"
    return {
        "name": name,
        "line": LINE,
        "t": [round((w.start + w.end) / 2, 3) for w in windows],
        "score": [round(s, 3) for s in score],
        "loudness": [round(w.features["snr_db"], 1) for w in windows],
        "label": [w.label for w in windows],
        "event": [event.start, event.end] if event else None,
    }


def _lin(x: float, one: float, zero: float) -> float:
    """1 at `one`, 0 at `zero`, linear between."""
    return float(np.clip((zero - x) / (zero - one), 0.0, 1.0))


def audible_nonchalance(
    event: SignalEvent,
    windows: list[WindowClass],
    min_event: float = 1.0,
    others: list[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """How quietly, close to the classifier's line, briefly and masked by others' talk an
    audible signal was given while still heard. Four parts, 0..1 each (docs/practice.md, "Audible drills"):

    quiet: the event's loudness above the room (90th percentile of its windows), 1 at 12 dB, 0 at 36;
    subtle: a hum or mumble's mean probability over its windows, 1 at the line (0.5), 0 at 1; a
            topic's share of words that were not its keywords;
    brief: 1 at the shortest event (`min_event`), 0 at four times that;
    masked: other talk within a second either side, 1 at 2 s of it: `others` where the others
            talk (a table-talk drill knows it), else the windows heard as speech (a topic: those
            outside itself).
    """
    inside = [w for w in windows if w.end > event.start and w.start < event.end] or windows[:1]
    loud = float(np.percentile([w.features["snr_db"] for w in inside], 90)) if inside else 0.0
    if event.signal in TALK:
        words = str(event.evidence.get("words") or "").split()
        keys = len(event.evidence.get("keywords") or [])
        subtle = 1.0 - min(keys / max(len(words), 1), 1.0)
        prob = None
    else:
        prob = float(np.mean([w.probs[event.signal] for w in inside]))
        subtle = _lin(prob, LINE, 1.0)
    duration = event.end - event.start
    spans: list[list[float]] = [list(o) for o in others or []]  # the others' talk, merged
    for w in windows if others is None else []:  # the speech windows, merged (they overlap)
        if w.label == "speech":
            if spans and w.start <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], w.end)
            else:
                spans.append([w.start, w.end])

    def cover(lo: float, hi: float) -> float:
        return sum(max(0.0, min(hi, b) - max(lo, a)) for a, b in spans)

    other = cover(event.start - 1.0, event.end + 1.0)
    if event.signal in TALK and others is None:  # talk heard is masked by talk outside itself only
        other -= cover(event.start, event.end)
    parts = {
        "quiet": _lin(loud, 12.0, 36.0),
        "subtle": subtle,
        "brief": _lin(duration, min_event, 4 * min_event),
        "masked": float(np.clip(other / 2.0, 0.0, 1.0)),
    }
    score = 100.0 * sum(WEIGHTS[k] * v for k, v in parts.items())
    return {
        "score": round(score, 1),
        "read": True,
        "parts": {k: round(v, 3) for k, v in parts.items()},
        "measured": {
            "loudness_db": round(loud, 1),
            "probability": None if prob is None else round(prob, 3),
            "seconds": round(duration, 3),
            "other_talk_s": round(other, 2),
        },
    }


def nonchalance_lines(n: dict[str, Any]) -> list[str]:
    """The score and its parts in words, as the page lists them."""
    p, m = n["parts"], n["measured"]
    subtle = (
        f"subtle {p['subtle']:.0%}: the classifier was {m['probability']:.0%} sure (the line is {LINE:.0%})"
        if m["probability"] is not None
        else f"subtle {p['subtle']:.0%}: the share of your words that were not the topic's keywords"
    )
    return [
        f"nonchalance {n['score']:.0f} of 100",
        f"quiet {p['quiet']:.0%}: {m['loudness_db']:.0f} dB above the room (full marks at 12 dB, none at 36)",
        subtle,
        f"brief {p['brief']:.0%}: {m['seconds']:.1f} s long",
        f"masked {p['masked']:.0%}: {m['other_talk_s']:.1f} s of other talk within a second of it",
    ]


def verdict_words(v: dict[str, Any]) -> str:
    """The verdict as the page says it."""
    if v["kind"] == QUIET:
        n = len(v["false_alarms"])
        talk = f"{v.get('own_talk_seconds', 0):.1f} s of your talk"
        if n == 0:
            if v.get("own_talk_seconds", 0) < 1.0:
                return "No false alarm, but the referee heard little talk from you: talk normally and try again."
            return f"No false alarm: {talk}, and no signal heard."
        heard = "; ".join(f"{f['text']} at {f['start']:.1f}-{f['end']:.1f} s" for f in v["false_alarms"])
        return f"{n} false alarm{'s' if n > 1 else ''} in {v['seconds']:.0f} s: the referee heard {heard}."
    name = NAMES.get(v["card"]["signal"], "the signal")
    if not v["heard"]:
        taken = v["taken_for"]
        if taken is None:
            return f"Not heard as {name}: the referee heard only the room."
        return f"Not heard as {name}: the referee took it for {NAMES.get(taken, taken)}."
    parts = [f"Heard {name}, {v['start']:.1f}-{v['end']:.1f} s"]
    if v["delay"] is not None:
        parts.append(f"recognised {v['delay']:.2f} s after the sound began")
    parts.append(f"nonchalance {v['nonchalance']['score']:.0f} of 100")
    if v["unsure"]:
        parts.append("though the referee was unsure of the topic")
    return ", ".join(parts) + "."


# -- the history --------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE IF NOT EXISTS audio_drills (
    id TEXT PRIMARY KEY, player TEXT NOT NULL, kind TEXT NOT NULL, signal TEXT NOT NULL,
    secret INTEGER NOT NULL, table_talk INTEGER NOT NULL, heard INTEGER NOT NULL, taken_for TEXT,
    delay REAL, score REAL NOT NULL, false_alarms INTEGER NOT NULL, seconds REAL NOT NULL,
    at REAL NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audio_drills_player ON audio_drills (player, at);
"""
SECRET_LABEL = "the team's own signal"


class AudioHistory:
    """Every audible drill, in its own table of the practice history's SQLite file
    (`practice.sqlite`): the quiet drills and the table-talk flag, which the drills table has
    no column for. A team's own card is kept as "the team's own signal"."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10)
        self._db.executescript(SCHEMA)
        self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, v: dict[str, Any], secret: bool = False) -> None:
        detail = {k: v.get(k) for k in ("unsure", "start", "end", "confidence", "recognised_at", "noise_floor_db")}
        detail["nonchalance"] = v["nonchalance"]
        detail["false_alarms"] = [] if secret else v["false_alarms"]
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO audio_drills VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    v["drill"],
                    v["player"],
                    v["kind"],
                    SECRET_LABEL if secret else v["card"]["signal"],
                    int(secret),
                    int(v["table_talk"]),
                    int(v["heard"]),
                    None if secret else v["taken_for"],
                    v["delay"],
                    float(v["nonchalance"]["score"]),
                    len(v["false_alarms"]),
                    float(v["seconds"]),
                    time.time(),
                    json.dumps(detail),
                ),
            )
            self._db.commit()

    def history(self, player: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, signal, table_talk, heard, taken_for, delay, score, false_alarms, seconds, at"
                " FROM audio_drills WHERE player = ? ORDER BY at, rowid",
                (player,),
            ).fetchall()
        keys = ("drill", "kind", "signal", "table_talk", "heard", "taken_for", "delay", "score", "false_alarms")
        out = []
        for r in rows:
            d = dict(zip(keys, r[:9]))
            d.update(table_talk=bool(d["table_talk"]), heard=bool(d["heard"]), seconds=r[9], at=r[10])
            out.append(d)
        return out

    def summary(self, player: str) -> dict[str, Any]:
        """Per card (and per quiet drill): drills, how often heard (with table talk too), the mean
        delay and score; the quiet drills' false alarms a minute."""
        per: dict[str, dict[str, Any]] = {}
        for h in self.history(player):
            s = per.setdefault(
                h["signal"],
                {
                    "drills": 0,
                    "heard": 0,
                    "with_table_talk": 0,
                    "heard_with_table_talk": 0,
                    "d": [],
                    "s": [],
                    "fa": 0,
                    "sec": 0.0,
                },
            )
            s["drills"] += 1
            s["heard"] += int(h["heard"])
            s["with_table_talk"] += int(h["table_talk"])
            s["heard_with_table_talk"] += int(h["table_talk"] and h["heard"])
            s["fa"] += h["false_alarms"]
            s["sec"] += h["seconds"]
            if h["delay"] is not None:
                s["d"].append(h["delay"])
            if h["heard"]:
                s["s"].append(h["score"])
        out = {}
        for sig, s in per.items():
            row = {k: s[k] for k in ("drills", "heard", "with_table_talk", "heard_with_table_talk")}
            row["mean_delay"] = round(sum(s["d"]) / len(s["d"]), 3) if s["d"] else None
            row["mean_nonchalance"] = round(sum(s["s"]) / len(s["s"]), 1) if s["s"] else None
            row["false_alarms"] = s["fa"]
            row["false_alarms_per_minute"] = round(s["fa"] / (s["sec"] / 60), 2) if s["sec"] > 0 else None
            out[sig] = row
        return out


if __name__ == "__main__":  # rebuild the shipped table talk from the fixtures
    save_wav(AudioClip(build_table_talk()), TABLE_TALK)
    print(f"wrote {TABLE_TALK}")
