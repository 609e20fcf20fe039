"""Make the small audio fixtures of tests/audio (needs Debian's espeak-ng and sox).

    .venv/bin/python scripts/make_audio_fixtures.py [--out tests/fixtures/audio]

Voices and seeds are from the held-out set (synth.HELDOUT_VOICES_*), not those the classifier
was fitted on. Writes 16 kHz mono 16-bit WAVs, two tiny MP4s (with and without an audio track)
and labels.json with what each file holds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.audio import synth  # noqa: E402
from vision.audio.sources import SAMPLE_RATE, AudioClip, save_wav  # noqa: E402

EN, IT = synth.HELDOUT_VOICES_EN, synth.HELDOUT_VOICES_IT


def write_video(path: str, clip: AudioClip | None, seconds: float, fps: int = 10) -> None:
    """A tiny MPEG-4 video (grey frames with a moving bar), with the clip as its AAC track."""
    import av  # deferred: PyAV loads FFmpeg; only the video fixture needs it

    with av.open(path, "w") as out:
        v = out.add_stream("mpeg4", rate=fps)
        v.width, v.height, v.pix_fmt = 64, 48, "yuv420p"
        a = None
        if clip is not None:
            a = out.add_stream("aac", rate=SAMPLE_RATE)
            a.layout = "mono"
        for i in range(int(seconds * fps)):
            img = np.full((48, 64, 3), 90, np.uint8)
            img[:, (i * 3) % 64] = 230
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            for p in v.encode(frame):
                out.mux(p)
        for p in v.encode():
            out.mux(p)
        if a is not None:
            pcm = np.clip(clip.samples, -1, 1).astype(np.float32)
            for k in range(0, len(pcm), 1024):
                chunk = pcm[k : k + 1024]
                frame = av.AudioFrame.from_ndarray(chunk[None, :], format="flt", layout="mono")
                frame.sample_rate = SAMPLE_RATE
                frame.pts = k
                for p in a.encode(frame):
                    out.mux(p)
            for p in a.encode():
                out.mux(p)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "audio"))
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args(argv)
    if not synth.have_tools():
        sys.exit("espeak-ng and sox are needed: bash scripts/install-debian.sh")
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    specs = {
        "speech_en_sport.wav": dict(
            label="speech", lang="en", topic="talk_sport", text="Did you watch the football match last night"
        ),
        "speech_en_tv.wav": dict(
            label="speech",
            lang="en",
            topic="talk_tv",
            text="The new season of the show comes out on television tomorrow",
        ),
        "speech_en_game.wav": dict(
            label="speech", lang="en", topic=None, text="Coccode I play two chickens and one egg"
        ),
        "speech_it.wav": dict(
            label="speech", lang="it", topic="talk_sport", text="Hai visto la partita di calcio ieri sera"
        ),
        "hum.wav": dict(label="hum", seconds=3.0),
        "mumble.wav": dict(label="mumble", seconds=3.0),
        "silence_taps.wav": dict(label="silence", seconds=2.5),
    }
    labels = {}
    clips = {}
    for name, spec in specs.items():
        for _ in range(20):  # silence gets card taps only half of the time: we want them
            c = synth.make_clip(
                spec["label"],
                rng,
                EN,
                IT,
                text=spec.get("text"),
                lang=spec.get("lang"),
                topic=spec.get("topic"),
                snr_db=20.0,
                noise="pink",
                seconds=spec.get("seconds"),
            )
            if spec["label"] != "silence" or np.max(np.abs(c.clip.samples[SAMPLE_RATE:])) > 0.05:
                break
        save_wav(c.clip, os.path.join(args.out, name))
        clips[name] = c
        labels[name] = {
            "label": c.label,
            "content": [round(v, 3) for v in c.content],
            "text": c.text,
            "voice": c.voice,
            "lang": c.lang,
            "topic": c.topic,
            "noise": c.noise,
            "snr_db": c.snr_db,
        }
    # a session: silence, hum, talk about sport, mumble (one calibration second at the start)
    parts = [clips["silence_taps.wav"], clips["hum.wav"], clips["speech_en_sport.wav"], clips["mumble.wav"]]
    t, segs, chunks = 0.0, [], []
    for c in parts:
        a, b = c.content
        segs.append({"label": c.label, "start": round(t + a, 3), "end": round(t + b, 3)})
        chunks.append(c.clip.samples)
        t += c.clip.duration
    session = AudioClip(np.concatenate(chunks))
    save_wav(session, os.path.join(args.out, "session.wav"))
    labels["session.wav"] = {"segments": segs}
    write_video(
        os.path.join(args.out, "video_with_audio.mp4"),
        clips["speech_en_sport.wav"].clip,
        clips["speech_en_sport.wav"].clip.duration,
    )
    write_video(os.path.join(args.out, "video_no_audio.mp4"), None, 1.0)
    labels["video_with_audio.mp4"] = {"audio": "speech_en_sport.wav"}
    labels["video_no_audio.mp4"] = {"audio": None}
    with open(os.path.join(args.out, "labels.json"), "w") as f:
        json.dump(labels, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(args.out, n)) for n in os.listdir(args.out))
    print(f"wrote {len(labels)} fixtures to {args.out} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
