"""Offline test audio: speech from espeak-ng, hums and mumbles from numpy and sox, room noise,
babble and card taps, mixed at chosen levels. Used by the fixture, evaluation and fitting
scripts; needs Debian's `espeak-ng` and `sox` on PATH.

Every clip opens with `LEAD` seconds of room noise only (the noise-floor calibration period)
and carries its per-sample labels, so window accuracy can be measured.

This is synthetic audio: espeak-ng speech is cleaner and more regular than people talking at a
table, and the hums and mumbles follow our own recipe. Numbers measured on it are an upper bound.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile

import numpy as np

from vision.audio.sources import SAMPLE_RATE, AudioClip, load, save_wav

CLASSES = ("silence", "speech", "mumble", "hum")
LEAD = 1.0

# espeak-ng voices (language + variant). Fitting uses TUNE_*, evaluation HELDOUT_*: no overlap.
TUNE_VOICES_EN = ("en-us", "en-gb+m3", "en-us+f2", "en+klatt2", "en-gb-x-rp+m1", "en-us+f4")
TUNE_VOICES_IT = ("it", "it+f3", "it+m2")
HELDOUT_VOICES_EN = ("en-gb-scotland+f5", "en-us+m7", "en-029+f1", "en-gb+klatt3", "en-us+m5")
HELDOUT_VOICES_IT = ("it+f5", "it+m4", "it+klatt")

TOPIC_SENTENCES_EN = {
    "talk_sport": (
        "Did you watch the football match last night",
        "The team scored two goals in the second half",
        "I think the tennis final was amazing",
        "Our striker missed a penalty again",
        "The basketball season starts next week",
        "He won the race on his bike",
        "The coach changed three players at half time",
        "That was the best soccer game of the league",
    ),
    "talk_tv": (
        "Did you see the last episode of that series",
        "The new season of the show comes out on television tomorrow",
        "I watched a movie on the channel last night",
        "Her favourite program is the cooking show",
        "They cancelled the sitcom after one season",
        "The news on channel five was boring",
        "I binge watched the whole series on the weekend",
        "The actor in that film was great",
    ),
    "talk_games": (
        "I played chess with my brother yesterday",
        "Have you tried the new video game",
        "We bought a new console for the kids",
        "He is very good at poker",
        "Let us play monopoly after dinner",
        "My favourite board game is scrabble",
        "She finished the puzzle in one hour",
        "The new version of minecraft is out",
    ),
}
NEUTRAL_SENTENCES_EN = (
    "Could you pass me the water please",
    "It is getting late and I am tired",
    "The weather was lovely this afternoon",
    "I need to buy some bread tomorrow morning",
    "Where did you park the car",
    "My sister is coming to visit next month",
)
GAME_TALK_EN = (
    "Coccode I have the chicken",
    "Caught you with the egg card",
    "It is your turn to draw a card",
    "I play two chickens and one egg",
    "Put your cards on the table",
    "Who has the rooster card",
    "Shuffle the deck and deal the cards",
    "I win this round with three eggs",
)
SPEECH_IT = (
    "Hai visto la partita di calcio ieri sera",
    "La Juventus ha segnato due gol nel secondo tempo",
    "Stasera in televisione c'è un bel film",
    "Ho comprato un nuovo videogioco per mio figlio",
    "Domani vado al mercato a comprare la frutta",
    "Il tempo oggi è stato bellissimo",
    "Passami l'acqua per favore",
    "Mia sorella arriva la settimana prossima",
)
SPEECH_EN = tuple(s for group in TOPIC_SENTENCES_EN.values() for s in group) + NEUTRAL_SENTENCES_EN


def have_tools() -> bool:
    return shutil.which("espeak-ng") is not None and shutil.which("sox") is not None


def _run(args: list[str]) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _read_wav(path: str) -> np.ndarray:
    return load(path).samples


def espeak(text: str, voice: str, speed: int = 160, pitch: int = 50) -> np.ndarray:
    """espeak-ng speech at 16 kHz, peak-normalised."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.wav")
        _run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", out, text])
        x = _read_wav(out)
    return _trim(x) / (np.max(np.abs(x)) + 1e-9)


def _trim(x: np.ndarray, thresh: float = 1e-3) -> np.ndarray:
    idx = np.flatnonzero(np.abs(x) > thresh)
    return x[idx[0] : idx[-1] + 1] if idx.size else x


def sox_filter(x: np.ndarray, *effects: str) -> np.ndarray:
    """Run samples through sox effects (e.g. "lowpass", "500")."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.wav"), os.path.join(tmp, "out.wav")
        peak = np.max(np.abs(x)) + 1e-9
        save_wav(AudioClip(x / peak * 0.5), src)
        _run(["sox", "-D", src, dst, *effects])  # -D: no dither, so a seed gives the same clip
        y = _read_wav(dst)
    return y / (np.max(np.abs(y)) + 1e-9)


def _glottal(f0: np.ndarray, rng: np.random.Generator, rolloff: float = 1.0) -> np.ndarray:
    """A voiced source following the f0 track (Hz per sample): harmonics with a roll-off."""
    phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
    out = np.zeros_like(f0)
    for k in range(1, 30):
        amp = 1.0 / k ** (1 + rolloff)
        alive = (k * f0) < 4000
        out += alive * amp * np.sin(k * phase + rng.uniform(0, 2 * np.pi))
    return out * (1 + 0.02 * rng.standard_normal(len(f0)))  # a little shimmer


def hum(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """A hummed tune: steady notes of a scale, slight vibrato, legato, closed mouth (low-passed)."""
    base = rng.uniform(95, 260)
    scale = np.array([0, 2, 4, 5, 7, 9, 11, 12])
    n = int(seconds * SAMPLE_RATE)
    f0 = np.empty(n)
    amp = np.ones(n)
    i, degree = 0, int(rng.integers(0, 5))
    while i < n:
        dur = int(rng.uniform(0.25, 0.9) * SAMPLE_RATE)
        degree = int(np.clip(degree + rng.integers(-2, 3), 0, len(scale) - 1))
        f0[i : i + dur] = base * 2 ** (scale[degree] / 12)
        if rng.random() < 0.2:  # a breath between phrases
            gap = int(rng.uniform(0.05, 0.15) * SAMPLE_RATE)
            amp[i + dur - gap : i + dur] = 0.0
        i += dur
    # legato glide between notes and a gentle vibrato
    k = int(0.03 * SAMPLE_RATE)
    f0 = np.convolve(np.pad(f0, (k, k), mode="edge"), np.ones(2 * k + 1) / (2 * k + 1), "valid")
    t = np.arange(n) / SAMPLE_RATE
    f0 = f0 * 2 ** (rng.uniform(0.05, 0.3) / 12 * np.sin(2 * np.pi * rng.uniform(4.5, 6.0) * t))
    k2 = int(0.02 * SAMPLE_RATE)
    amp = np.convolve(amp, np.ones(k2) / k2, "same")
    x = _glottal(f0, rng) * amp * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.2, 0.7) * t))
    return sox_filter(x, "lowpass", str(int(rng.uniform(500, 1100))), "lowpass", "1200")


def mumble(seconds: float, rng: np.random.Generator, voice: str | None = None, text: str | None = None) -> np.ndarray:
    """Mumbling: speech rhythm and intonation with the mouth nearly closed.

    Two recipes, picked at random: espeak-ng speech through a steep low-pass (sox), or a
    murmur of voiced syllables with gliding pitch at 3-6 syllables per second (numpy).
    """
    n = int(seconds * SAMPLE_RATE)
    if voice is not None and text is not None and rng.random() < 0.5:
        x = espeak(text, voice, speed=int(rng.uniform(120, 170)))
        x = sox_filter(x, "lowpass", str(int(rng.uniform(350, 600))), "lowpass", "800")
        reps = int(np.ceil(n / len(x)))
        return np.tile(x, reps)[:n]
    rate = rng.uniform(3.0, 6.0)
    level = rng.uniform(90, 180)
    f0 = np.full(n, level)
    env = np.zeros(n)
    i = 0
    while i < n:
        syl = int(SAMPLE_RATE / rate * rng.uniform(0.6, 1.4))
        voiced = int(syl * rng.uniform(0.45, 0.8))
        start_f, end_f = level * 2 ** (rng.uniform(-3, 3) / 12), level * 2 ** (rng.uniform(-4, 2) / 12)
        f0[i : i + syl] = np.linspace(start_f, end_f, syl)[: len(f0[i : i + syl])]
        w = np.hanning(voiced)
        env[i : i + voiced] = w[: len(env[i : i + voiced])]
        if rng.random() < 0.15:
            i += int(rng.uniform(0.15, 0.4) * SAMPLE_RATE)  # a pause
        i += syl
    x = _glottal(np.maximum(f0, 60), rng, rolloff=1.3) * env
    return sox_filter(x, "lowpass", str(int(rng.uniform(350, 650))), "lowpass", "800")


def room_noise(n: int, rng: np.random.Generator, kind: str | None = None) -> np.ndarray:
    """White, pink or brown noise (unit RMS)."""
    kind = kind or str(rng.choice(["white", "pink", "brown"]))
    w = rng.standard_normal(n)
    if kind != "white":
        spec = np.fft.rfft(w)
        f = np.fft.rfftfreq(n, 1 / SAMPLE_RATE)
        f[0] = f[1] if n > 1 else 1.0
        spec /= np.sqrt(f) if kind == "pink" else f
        w = np.fft.irfft(spec, n)
    return w / (np.std(w) + 1e-12)


def card_taps(n: int, rng: np.random.Generator, per_second: float = 0.7) -> np.ndarray:
    """Cards slapped on the table: short decaying broadband clicks (unit peak)."""
    out = np.zeros(n)
    count = rng.poisson(per_second * n / SAMPLE_RATE)
    for _ in range(count):
        at = int(rng.integers(0, max(1, n - 800)))
        m = min(800, n - at)
        out[at : at + m] += rng.standard_normal(m) * np.exp(-np.arange(m) / rng.uniform(60, 200))
    return out / (np.max(np.abs(out)) + 1e-9)


def babble(n: int, rng: np.random.Generator, voices: tuple[str, ...]) -> np.ndarray:
    """Several far-away talkers at once (unit RMS)."""
    out = np.zeros(n)
    for _ in range(4):
        text = str(rng.choice(SPEECH_EN + SPEECH_IT))
        v = str(rng.choice(voices))
        s = sox_filter(espeak(text, v, speed=int(rng.uniform(140, 190))), "reverb", "60")
        # each talker goes on all through the clip (from a random point of its sentence)
        seg = np.roll(np.tile(s, int(np.ceil(n / len(s))) + 1), -int(rng.integers(0, len(s))))
        out += seg[:n]
    return out / (np.std(out) + 1e-12)


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x**2)) + 1e-12)


@dataclasses.dataclass(frozen=True)
class LabelledClip:
    clip: AudioClip
    label: str  # the class of the content part
    content: tuple[float, float]  # seconds, where the content lies
    text: str = ""
    voice: str = ""
    lang: str = ""
    topic: str | None = None
    noise: str = ""
    snr_db: float = float("inf")

    def label_at(self, t0: float, t1: float) -> str | None:
        """The label of a window, or None when it straddles a boundary."""
        a, b = self.content
        if t0 >= a - 0.05 and t1 <= b + 0.05:
            return self.label
        if t1 <= a + 0.05 or t0 >= b - 0.05:
            return "silence"
        return None


def make_clip(
    label: str,
    rng: np.random.Generator,
    voices_en: tuple[str, ...],
    voices_it: tuple[str, ...],
    text: str | None = None,
    lang: str | None = None,
    topic: str | None = None,
    snr_db: float | None = None,
    noise: str | None = None,
    seconds: float | None = None,
    babble_min_db: float = 20.0,
) -> LabelledClip:
    """One labelled clip: LEAD s of room noise, the content, 0.5 s of room noise."""
    voice = ""
    if label == "speech":
        lang = lang or str(rng.choice(["en", "en", "it"]))
        voice = str(rng.choice(voices_en if lang == "en" else voices_it))
        text = text or str(rng.choice(SPEECH_EN if lang == "en" else SPEECH_IT))
        content = espeak(text, voice, speed=int(rng.uniform(140, 190)), pitch=int(rng.uniform(30, 70)))
    elif label == "mumble":
        voice = str(rng.choice(voices_en + voices_it))
        content = mumble(seconds or rng.uniform(2.0, 4.0), rng, voice, str(rng.choice(SPEECH_EN)))
    elif label == "hum":
        content = hum(seconds or rng.uniform(2.0, 4.0), rng)
    elif label == "silence":
        content = np.zeros(int((seconds or rng.uniform(2.0, 3.5)) * SAMPLE_RATE))
    else:
        raise ValueError(f"unknown class {label!r}; known: {CLASSES}")
    level = 10 ** (rng.uniform(-22, -12) / 20)  # content RMS, dBFS
    content = content / _rms(content) * level if label != "silence" else content
    n_lead, n_tail = int(LEAD * SAMPLE_RATE), int(0.5 * SAMPLE_RATE)
    n = n_lead + len(content) + n_tail
    snr_db = float(snr_db if snr_db is not None else rng.choice([30.0, 20.0, 12.0]))
    noise = noise or str(rng.choice(["white", "pink", "brown", "babble"]))
    if noise == "babble":
        bg = babble(n, rng, voices_en + voices_it)
        # babble is far away: at least `babble_min_db` under the talker
        snr_db = max(snr_db, babble_min_db)
        bg_level = level * 10 ** (-snr_db / 20)
        bg = bg * bg_level + room_noise(n, rng, "pink") * level * 10 ** (-40 / 20)
    else:
        bg = room_noise(n, rng, noise) * level * 10 ** (-snr_db / 20)
    x = bg.copy()
    x[n_lead : n_lead + len(content)] += content
    if label == "silence" and rng.random() < 0.5:
        x += card_taps(n, rng) * level * 1.5
    x = np.clip(x, -1, 1).astype(np.float32)
    span = (LEAD, LEAD + len(content) / SAMPLE_RATE)
    return LabelledClip(
        AudioClip(x, 0.0, f"synth:{label}"), label, span, text or "", voice, lang or "", topic, noise, snr_db
    )


def dataset(n_per_class: int, seed: int, heldout: bool, hard: float = 0.0) -> list[LabelledClip]:
    """A balanced set of labelled clips; `heldout` picks the voices kept out of fitting.

    hard: the share of clips with a harsh background (noise 6 dB under the content, or babble
    6-10 dB under it) instead of the usual 12-30 dB."""
    rng = np.random.default_rng(seed)
    ven = HELDOUT_VOICES_EN if heldout else TUNE_VOICES_EN
    vit = HELDOUT_VOICES_IT if heldout else TUNE_VOICES_IT
    out = []
    for _ in range(n_per_class):
        for label in CLASSES:
            if rng.random() < hard:
                out.append(make_clip(label, rng, ven, vit, snr_db=float(rng.choice([6.0, 10.0])), babble_min_db=0.0))
            else:
                out.append(make_clip(label, rng, ven, vit))
    return out
