"""Accuracy of the audio path on held-out generated clips (needs espeak-ng and sox).

    .venv/bin/python scripts/eval_audio.py [--per-class 30] [--seed 101] [--topic-voices 3]

Prints:
* window class accuracy per class (silence / speech / mumble / hum), raw and HMM-smoothed, with
  the confusion matrix, on clips of voices and seeds the classifier was not fitted on
  (synth.HELDOUT_VOICES_*; fitting uses synth.TUNE_VOICES_* and seed 1);
* topic accuracy on English sentences about TV shows, games and sport (held-out voices), and how
  often neutral sentences are left without a topic;
* false topics per minute on hum, mumble and game talk (Coccodé, chickens, eggs, cards), and on
  Italian talk decoded by the English recognizer (a table that forgot `--lang it`).

The clips are synthetic: espeak-ng speech is cleaner and more regular than people talking over
each other at a real table, and the hums and mumbles follow our own recipe. Expect lower numbers
on real recordings.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.audio import synth  # noqa: E402
from vision.audio.classify import CLASSES  # noqa: E402
from vision.audio.pipeline import AudioListener  # noqa: E402
from vision.audio.topics import TOPICS  # noqa: E402


def class_accuracy(listener: AudioListener, clips) -> None:
    k = len(CLASSES)
    conf_raw, conf_smooth = np.zeros((k, k), int), np.zeros((k, k), int)
    by_noise: dict[str, list[int]] = {}
    for c in clips:
        key = f"{c.noise} {c.snr_db:.0f} dB"
        for w in listener.classify(c.clip):
            truth = c.label_at(w.start, w.end)
            if truth is None:
                continue
            t = CLASSES.index(truth)
            conf_raw[t, CLASSES.index(w.raw_label)] += 1
            conf_smooth[t, CLASSES.index(w.label)] += 1
            if truth != "silence":
                by_noise.setdefault(key, [0, 0])
                by_noise[key][0] += w.label == truth
                by_noise[key][1] += 1
    print(
        f"\nwindow class accuracy, held-out clips ({len(clips)} clips, voices "
        f"{', '.join(synth.HELDOUT_VOICES_EN + synth.HELDOUT_VOICES_IT)})"
    )
    print(f"{'class':9s} {'windows':>7s} {'raw':>6s} {'smoothed':>8s}")
    for i, name in enumerate(CLASSES):
        n = conf_raw[i].sum()
        print(f"{name:9s} {n:7d} {conf_raw[i, i] / max(n, 1):6.3f} {conf_smooth[i, i] / max(n, 1):8.3f}")
    print("confusion (smoothed; rows truth, columns predicted):", " ".join(c[:4] for c in CLASSES))
    for i, name in enumerate(CLASSES):
        print(f"  {name:9s}", " ".join(f"{v:4d}" for v in conf_smooth[i]))
    print("smoothed accuracy on speech/mumble/hum windows by background (babble: at least 20 dB under):")
    for key in sorted(by_noise):
        ok, n = by_noise[key]
        print(f"  {key:14s} {ok}/{n} = {ok / n:.3f}")


def stress(listener: AudioListener, seed: int, per_class: int) -> None:
    """Harder than the fitting data: louder noise, and babble only 6-10 dB under the talker."""
    rng = np.random.default_rng(seed)
    print(
        f"\nstress: smoothed window accuracy per class under harder backgrounds ({per_class} clips "
        "per class and background)"
    )
    for noise, snr in (("white", 6.0), ("pink", 6.0), ("babble", 10.0), ("babble", 6.0)):
        clips = [
            synth.make_clip(
                label, rng, synth.HELDOUT_VOICES_EN, synth.HELDOUT_VOICES_IT, noise=noise, snr_db=snr, babble_min_db=0.0
            )
            for _ in range(per_class)
            for label in CLASSES
        ]
        ok = {c: [0, 0] for c in CLASSES}
        for c in clips:
            for w in listener.classify(c.clip):
                truth = c.label_at(w.start, w.end)
                if truth is not None:
                    ok[truth][0] += w.label == truth
                    ok[truth][1] += 1
        print(f"  {noise:6s} {snr:4.0f} dB  " + "  ".join(f"{c} {a / max(n, 1):.2f}" for c, (a, n) in ok.items()))


def topics_of(listener: AudioListener, clip) -> list[str]:
    return [e.signal for e in listener.analyse(clip).events if e.signal in TOPICS]


def topic_accuracy(listener: AudioListener, rng, voices) -> None:
    print(f"\ntopic accuracy, English sentences (held-out voices: {', '.join(voices)})")
    total_ok = total = 0
    per_voice = {v: [0, 0] for v in voices}
    for topic, sentences in synth.TOPIC_SENTENCES_EN.items():
        ok = n = wrong = 0
        for text in sentences:
            for voice in voices:
                c = synth.make_clip(
                    "speech", rng, (voice,), synth.HELDOUT_VOICES_IT, text=text, lang="en", noise="pink", snr_db=20.0
                )
                found = topics_of(listener, c.clip)
                n += 1
                ok += found == [topic]
                per_voice[voice][0] += found == [topic]
                per_voice[voice][1] += 1
                wrong += any(t != topic for t in found)
        total_ok += ok
        total += n
        print(f"  {topic:11s} {ok}/{n} = {ok / n:.3f} right, {wrong} with a wrong topic")
    print(f"  all topics  {total_ok}/{total} = {total_ok / total:.3f}")
    for v, (ok, n) in per_voice.items():
        print(f"    voice {v:20s} {ok}/{n} = {ok / n:.3f}")
    n = none = 0
    for text in synth.NEUTRAL_SENTENCES_EN:
        for voice in voices:
            c = synth.make_clip(
                "speech", rng, (voice,), synth.HELDOUT_VOICES_IT, text=text, lang="en", noise="pink", snr_db=20.0
            )
            n += 1
            none += not topics_of(listener, c.clip)
    print(f"  neutral sentences with no topic: {none}/{n} = {none / n:.3f}")


def false_topics(listener: AudioListener, rng, voices, per_kind: int) -> None:
    print("\nfalse topics per minute (held-out voices and seeds)")
    kinds = {
        "hum": lambda: synth.make_clip("hum", rng, voices, synth.HELDOUT_VOICES_IT),
        "mumble": lambda: synth.make_clip("mumble", rng, voices, synth.HELDOUT_VOICES_IT),
    }
    game = iter([(t, v) for t in synth.GAME_TALK_EN for v in voices])
    kinds["game talk"] = lambda: synth.make_clip(
        "speech",
        rng,
        (next(game)[1],),
        synth.HELDOUT_VOICES_IT,
        text=synth.GAME_TALK_EN[rng.integers(len(synth.GAME_TALK_EN))],
        lang="en",
    )
    kinds["Italian talk, decoded as English"] = lambda: synth.make_clip(
        "speech", rng, voices, synth.HELDOUT_VOICES_IT, lang="it"
    )
    for name, make in kinds.items():
        secs = found = unsure = 0.0
        n = per_kind if name != "game talk" else min(per_kind, len(synth.GAME_TALK_EN) * len(voices))
        for _ in range(n):
            c = make()
            evs = [e for e in listener.analyse(c.clip).events if e.signal in TOPICS]
            secs += c.clip.duration
            found += len(evs)
            unsure += sum(e.unsure for e in evs)
        print(
            f"  {name:32s} {found / (secs / 60):5.2f} per minute ({int(found)} in {secs / 60:.1f} min; "
            f"{int(found - unsure)} of them sure)"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-class", type=int, default=30)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--topic-voices", type=int, default=3)
    ap.add_argument("--classes-only", action="store_true", help="skip recognition (about 2 min)")
    args = ap.parse_args(argv)
    if not synth.have_tools():
        sys.exit("espeak-ng and sox are needed: bash scripts/install-debian.sh")
    t0 = time.time()
    listener = AudioListener()
    clips = synth.dataset(args.per_class, args.seed, heldout=True)
    class_accuracy(listener, clips)
    stress(listener, args.seed + 7, per_class=max(4, args.per_class // 3))
    if args.classes_only:
        return
    rng = np.random.default_rng(args.seed + 1)
    voices = synth.HELDOUT_VOICES_EN[: args.topic_voices]
    topic_accuracy(listener, rng, voices)
    false_topics(listener, rng, voices, per_kind=20)
    print(f"\n(synthetic speech from espeak-ng is easier than a real table; {time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
