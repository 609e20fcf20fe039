"""Offline speech recognition with PocketSphinx 5 (its US English model ships inside the wheel).

For any other language (Italian) no model can ship: `SphinxRecognizer.from_folder(DIR)` takes a
PocketSphinx/CMU Sphinx model folder the user supplies (an acoustic model folder with `mdef`, a
language model `*.lm`, `*.lm.bin` or `*.dmp`, and a dictionary `*.dic` / `*.dict`, anywhere
below DIR) and raises `RecognitionModelMissing` naming what is absent.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re

import numpy as np

from vision.audio.errors import RecognitionModelMissing
from vision.audio.sources import SAMPLE_RATE, AudioClip

DITHER_DBFS = -60.0  # added before decoding: digital silence otherwise upsets the front end
# One forward pass, then the best path through its word lattice: PocketSphinx's second, flat
# forward pass (`fwdflat`) roughly doubled the decoding time and found no more topics on the
# held-out talk (scripts/eval_audio.py; docs/audio.md, "Numbers").
DECODER_OPTIONS = {"fwdflat": False, "bestpath": True}


@dataclasses.dataclass(frozen=True)
class Word:
    text: str
    start: float  # session clock
    end: float
    prob: float  # the decoder's posterior for the word, 0..1


_FILLER = re.compile(r"^(<.*>|\[.*\]|\+\+.*\+\+)$")


class SphinxRecognizer:
    """A PocketSphinx decoder; `words(clip)` returns the words heard with session times."""

    def __init__(
        self,
        lang: str = "en",
        hmm: str | None = None,
        lm: str | None = None,
        dict: str | None = None,
        source: str = "pocketsphinx en-us (in the wheel)",
    ) -> None:
        from pocketsphinx import Decoder  # deferred: loads PocketSphinx's C library; only a recognizer needs it

        kwargs = {"samprate": SAMPLE_RATE, "loglevel": "FATAL", **DECODER_OPTIONS}
        if hmm:
            kwargs.update(hmm=hmm, lm=lm, dict=dict)
        self.lang = lang
        self.source = source
        self._decoder = Decoder(**kwargs)
        self._frate = int(self._decoder.config["frate"])

    @classmethod
    def from_folder(cls, folder: str | os.PathLike, lang: str = "it") -> SphinxRecognizer:
        folder = os.fspath(folder)
        if not os.path.isdir(folder):
            raise RecognitionModelMissing(
                f"no recognition model folder at {folder!r}: download a CMU Sphinx model for "
                f"{lang!r} (e.g. cmusphinx-it) and pass its folder",
                folder=folder,
                lang=lang,
            )
        mdefs = sorted(glob.glob(os.path.join(folder, "**", "mdef"), recursive=True))
        # a phonetic language model (CMU Sphinx ships one beside the word model) comes last
        lms = sorted(
            (
                p
                for ext in ("*.lm", "*.lm.bin", "*.dmp", "*.DMP", "*.lm.DMP")
                for p in glob.glob(os.path.join(folder, "**", ext), recursive=True)
            ),
            key=lambda p: ("phone" in os.path.basename(p), p),
        )
        dicts = sorted(
            p for ext in ("*.dic", "*.dict") for p in glob.glob(os.path.join(folder, "**", ext), recursive=True)
        )
        missing = [
            name
            for name, found in (
                ("acoustic model (a folder with 'mdef')", mdefs),
                ("language model (*.lm, *.lm.bin or *.dmp)", lms),
                ("pronunciation dictionary (*.dic or *.dict)", dicts),
            )
            if not found
        ]
        if missing:
            raise RecognitionModelMissing(
                f"the model folder {folder!r} lacks: {'; '.join(missing)}", folder=folder, lang=lang, missing=missing
            )
        try:
            return cls(
                lang,
                hmm=os.path.dirname(mdefs[0]),
                lm=lms[0],
                dict=dicts[0],
                source=f"pocketsphinx model from {folder}",
            )
        except (RuntimeError, ValueError) as exc:
            raise RecognitionModelMissing(
                f"PocketSphinx cannot load the model in {folder!r}: {exc}", folder=folder, lang=lang
            ) from None

    def words(self, clip: AudioClip, seed: int = 0) -> list[Word]:
        if len(clip.samples) == 0:
            return []
        rng = np.random.default_rng(seed)
        x = clip.samples + rng.standard_normal(len(clip.samples)).astype(np.float32) * (10 ** (DITHER_DBFS / 20))
        pcm = (np.clip(x, -1, 1) * 32767).astype("<i2")
        d = self._decoder
        d.start_utt()
        d.process_raw(pcm.tobytes(), no_search=False, full_utt=True)
        d.end_utt()
        out = []
        for seg in d.seg() or []:  # None when nothing was recognised
            text = re.sub(r"\(\d+\)$", "", seg.word)
            if _FILLER.match(text):
                continue
            out.append(
                Word(
                    text.lower(),
                    clip.start + seg.start_frame / self._frate,
                    clip.start + (seg.end_frame + 1) / self._frate,
                    float(seg.prob),
                )
            )
        return out


_ENGLISH: SphinxRecognizer | None = None


def english() -> SphinxRecognizer:
    """The shared English recognizer (loading the model takes ~0.3 s)."""
    global _ENGLISH
    if _ENGLISH is None:
        _ENGLISH = SphinxRecognizer("en")
    return _ENGLISH
