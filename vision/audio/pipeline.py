"""The audio path: clip -> windows -> classes (smoothed) -> events.

`AudioListener.analyse(clip)` returns the per-window classes and the `SignalEvent`s:

* `hum` and `mumble` for runs of those classes at least `min_event` seconds long;
* for each stretch of speech, the words heard and, when their keywords vote for one, a
  `talk_tv` / `talk_games` / `talk_sport` event; otherwise `talking` (talk with no topic found).
  Without a recognizer for the language (Italian with no model folder) every stretch of speech
  is `talking`, with the reason in its evidence.

Events carry `player="unknown"`: one microphone cannot tell who spoke; `attribute.attribute()`
assigns them to a seat from the mouth cue.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from referee.observations import UNKNOWN_PLAYER, SignalEvent
from vision.audio import features as F
from vision.audio import topics
from vision.audio.classify import Classifier, default_classifier, viterbi
from vision.audio.recognize import SphinxRecognizer, Word, english
from vision.audio.sources import AudioClip

TALKING = "talking"  # speech with no topic found: not a Signal card, but worth logging


@dataclasses.dataclass(frozen=True)
class WindowClass:
    start: float
    end: float
    label: str  # smoothed class
    raw_label: str  # the window's own most likely class
    probs: dict[str, float]
    features: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "label": self.label,
            "raw_label": self.raw_label,
            "probs": {k: round(v, 3) for k, v in self.probs.items()},
            "features": {k: round(v, 3) for k, v in self.features.items()},
        }


@dataclasses.dataclass(frozen=True)
class AudioAnalysis:
    windows: list[WindowClass]
    events: list[SignalEvent]
    noise_floor_db: float
    words: list[Word]


def _runs(labels: list[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for i, lab in enumerate(labels):
        if out and out[-1][0] == lab and out[-1][2] == i:
            out[-1] = (lab, out[-1][1], i + 1)
        else:
            out.append((lab, i, i + 1))
    return out


class AudioListener:
    """Configuration of the audio path.

    lang: "en" (recognizer inside pocketsphinx) or "it" (needs `recognizer` built from a model
    folder with `SphinxRecognizer.from_folder`; without one, speech is reported as `talking`).
    recognize: False skips recognition (speech becomes `talking`), e.g. for a quick look.
    """

    def __init__(
        self,
        lang: str = "en",
        recognizer: SphinxRecognizer | None = None,
        classifier: Classifier | None = None,
        window: float = 1.0,
        hop: float = 0.5,
        calibrate_seconds: float = 1.0,
        min_event: float = 1.0,
        vote_seconds: float = 8.0,
        stay: float = 0.85,
        recognize: bool = True,
    ) -> None:
        if lang not in ("en", "it"):
            raise ValueError(f"language {lang!r}: only 'en' and 'it' are known")
        self.lang = lang
        self.classifier = classifier or default_classifier()
        self.window, self.hop = window, hop
        self.calibrate_seconds = calibrate_seconds
        self.min_event, self.vote_seconds, self.stay = min_event, vote_seconds, stay
        self.recognize = recognize
        self._recognizer = recognizer
        self._floor: F.NoiseFloor | None = None
        self._last_end: float | None = None
        self.no_recognizer_reason: str | None = None
        if recognize and recognizer is None and lang != "en":
            self.no_recognizer_reason = (
                f"no {lang!r} recognition model: pass a PocketSphinx model folder (--model DIR) "
                "to spot topics; speech is reported as talking"
            )

    @property
    def recognizer(self) -> SphinxRecognizer | None:
        if not self.recognize or self.no_recognizer_reason:
            return None
        if self._recognizer is None:
            self._recognizer = english()
        return self._recognizer

    def calibrate(self, clip: AudioClip) -> F.NoiseFloor:
        return F.NoiseFloor.calibrate(clip, self.calibrate_seconds)

    def classify(
        self, clip: AudioClip, floor: F.NoiseFloor | None = None, track: F.FrameTrack | None = None
    ) -> list[WindowClass]:
        w = F.windows(clip, floor or self.calibrate(clip), self.window, self.hop, track)
        post = self.classifier.posteriors(w.features)
        path = viterbi(post, self.stay)
        names = self.classifier.classes
        return [
            WindowClass(
                float(a),
                float(b),
                names[k],
                names[int(p.argmax())],
                dict(zip(names, map(float, p))),
                dict(zip(F.FEATURE_NAMES, map(float, f))),
            )
            for a, b, k, p, f in zip(w.starts, w.ends, path, post, w.features)
        ]

    def analyse(self, clip: AudioClip, floor: F.NoiseFloor | None = None) -> AudioAnalysis:
        """Classify a clip and report its events.

        The noise floor is calibrated on the first second of a session. A clip that carries on
        where the previous one ended (a live stream listened to in chunks) keeps the session's
        floor, so a chunk that opens mid-sentence is not taken for the room at rest; any other
        clip starts a new calibration. Pass `floor` to choose it yourself.
        """
        if floor is None:
            follows = self._last_end is not None and abs(clip.start - self._last_end) <= 0.25
            floor = self._floor if follows and self._floor is not None else self.calibrate(clip)
        self._floor, self._last_end = floor, clip.end
        track = F.frame_track(clip)
        wins = self.classify(clip, floor, track)
        events: list[SignalEvent] = []
        all_words: list[Word] = []
        for label, i, j in _runs([w.label for w in wins]):
            if label == "silence":
                continue
            start, end = _refine(clip, track, floor, wins[i].start, wins[j - 1].end)
            if label == "speech":
                # pad so that words cut by a window edge are decoded whole
                evs, words = self._speech_events(clip.slice(start - 0.25, end + 0.25), start, end, wins[i:j], floor)
                events += evs
                all_words += words
                continue
            if end - start < self.min_event:
                continue
            events.append(
                SignalEvent(
                    UNKNOWN_PLAYER,
                    label,
                    round(start, 3),
                    round(end, 3),
                    round(float(np.mean([w.probs[label] for w in wins[i:j]])), 3),
                    {
                        "source": "audio",
                        "windows": j - i,
                        "noise_floor_db": round(floor.db, 1),
                        "features": _mean_features(wins[i:j]),
                    },
                )
            )
        return AudioAnalysis(wins, sorted(events, key=lambda e: (e.start, e.signal)), floor.db, all_words)

    def _speech_events(
        self, clip: AudioClip, start: float, end: float, wins: list[WindowClass], floor: F.NoiseFloor
    ) -> tuple[list[SignalEvent], list[Word]]:
        conf = round(float(np.mean([w.probs["speech"] for w in wins])), 3)
        base = {
            "source": "audio",
            "windows": len(wins),
            "noise_floor_db": round(floor.db, 1),
            "features": _mean_features(wins),
        }
        rec = self.recognizer
        if rec is None:
            reason = self.no_recognizer_reason or "recognition switched off"
            return [
                SignalEvent(
                    UNKNOWN_PLAYER,
                    TALKING,
                    round(start, 3),
                    round(end, 3),
                    conf,
                    {**base, "topic": None, "words": None, "reason": reason},
                )
            ], []
        words = rec.words(clip)
        heard = " ".join(w.text for w in words)
        votes = topics.vote(topics.hits(words, langs=(rec.lang,)), self.vote_seconds)
        if not votes:
            return [
                SignalEvent(
                    UNKNOWN_PLAYER,
                    TALKING,
                    round(start, 3),
                    round(end, 3),
                    conf,
                    {**base, "topic": None, "words": heard, "language": rec.lang, "recognizer": rec.source},
                )
            ], words
        out = []
        for v in votes:
            # one vote: the whole stretch of talk; several (talk far apart in a long stretch):
            # each around its own keywords
            v0, v1 = (start, end) if len(votes) == 1 else (max(start, v.start - 2.0), min(end, v.end + 2.0))
            out.append(
                SignalEvent(
                    UNKNOWN_PLAYER,
                    v.topic,
                    round(v0, 3),
                    round(v1, 3),
                    round(min(conf, v.confidence), 3),
                    {
                        **base,
                        "topic": v.topic,
                        "words": heard,
                        "language": rec.lang,
                        "recognizer": rec.source,
                        "tally": v.tally,
                        "keywords": [
                            {"word": h.words, "stem": h.stem, "start": round(h.start, 2), "prob": round(h.prob, 3)}
                            for h in v.hits
                        ],
                    },
                    unsure=v.unsure,
                )
            )
        return out, words


def _refine(
    clip: AudioClip, track: F.FrameTrack, floor: F.NoiseFloor, start: float, end: float, margin_db: float = 9.0
) -> tuple[float, float]:
    """Tighten a run of windows to its first and last frames clearly above the noise floor
    (loudness smoothed over 50 ms, so a noise spike does not count)."""
    hop_s = F.FRAME_HOP / F.SAMPLE_RATE
    i0 = max(0, int((start - clip.start) / hop_s))
    i1 = min(track.n, int(np.ceil((end - clip.start) / hop_s)))
    power = np.convolve(10 ** (track.db[i0:i1] / 10), np.ones(5) / 5, mode="same")
    active = np.flatnonzero(10 * np.log10(power + 1e-12) - floor.db > margin_db)
    if active.size == 0:
        return start, end
    a = clip.start + (i0 + active[0]) * hop_s
    b = clip.start + (i0 + active[-1]) * hop_s + F.FRAME_LEN / F.SAMPLE_RATE
    return max(start, a), min(end, b)


def _mean_features(wins: list[WindowClass]) -> dict[str, float]:
    return {k: round(float(np.mean([w.features[k] for w in wins])), 3) for k in F.FEATURE_NAMES}
