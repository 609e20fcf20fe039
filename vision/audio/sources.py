"""Audio sources: a WAV file, the audio track of a recorded video, a live microphone.

Every source yields the same thing: an `AudioClip` of 16 kHz mono float32 samples in -1..1 whose
`start` is the session-clock time (seconds) of its first sample. Files and videos are decoded
and resampled by PyAV (FFmpeg); the microphone is read through sounddevice (PortAudio).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import time
import wave
from collections.abc import Callable, Iterator

import numpy as np

from vision.audio.errors import (
    AudioBackendMissing,
    AudioDeviceNotFound,
    AudioFileNotFound,
    CorruptAudio,
    EmptyAudio,
    NoAudioTrack,
)

SAMPLE_RATE = 16_000


@dataclasses.dataclass(frozen=True)
class AudioClip:
    """Mono float32 samples at `SAMPLE_RATE`; `start` is the session time of sample 0."""

    samples: np.ndarray
    start: float = 0.0
    source: str = ""

    def __post_init__(self) -> None:
        s = np.asarray(self.samples, dtype=np.float32)
        if s.ndim != 1:
            raise ValueError(f"an AudioClip is mono: got shape {s.shape}")
        object.__setattr__(self, "samples", s)

    @property
    def sample_rate(self) -> int:
        return SAMPLE_RATE

    @property
    def duration(self) -> float:
        return len(self.samples) / SAMPLE_RATE

    @property
    def end(self) -> float:
        return self.start + self.duration

    def time_of(self, sample_index: int | float) -> float:
        """Session time of a sample index."""
        return self.start + float(sample_index) / SAMPLE_RATE

    def slice(self, t0: float, t1: float) -> AudioClip:
        """The part between two session times (clipped to the clip)."""
        i0 = max(0, int(round((t0 - self.start) * SAMPLE_RATE)))
        i1 = min(len(self.samples), int(round((t1 - self.start) * SAMPLE_RATE)))
        return AudioClip(self.samples[i0 : max(i0, i1)], self.time_of(i0), self.source)


def load(path: str | os.PathLike, start: float | None = None) -> AudioClip:
    """Read a WAV (or any audio file FFmpeg knows) or the audio track of a video.

    start: session time of the file's first sample. For a video the default is the audio
    stream's start relative to the first video frame (so sound lines up with frame times counted
    from 0 at the first frame); for a plain audio file it is 0.
    Raises AudioFileNotFound, EmptyAudio, CorruptAudio or NoAudioTrack.
    """
    import av  # deferred: PyAV loads FFmpeg; a live microphone or an array needs neither

    path = os.fspath(path)
    if not os.path.exists(path):
        raise AudioFileNotFound(f"no such file: {path}", path=path)
    if os.path.isdir(path):
        raise AudioFileNotFound(f"{path} is a folder, not an audio or video file", path=path)
    if os.path.getsize(path) == 0:
        raise EmptyAudio(f"{path} is an empty file (0 bytes)", path=path)
    try:
        container = av.open(path)
    except (av.error.InvalidDataError, av.error.FFmpegError, UnicodeDecodeError) as exc:
        raise CorruptAudio(f"{path} cannot be decoded: {exc}", path=path) from None
    with container:
        if not container.streams.audio:
            kinds = sorted({s.type for s in container.streams}) or ["nothing"]
            raise NoAudioTrack(f"{path} has no audio track (it holds: {', '.join(kinds)})", path=path, streams=kinds)
        stream = container.streams.audio[0]
        # keep the channels through resampling and average them here: FFmpeg's own downmix
        # adds them at -3 dB each, which makes a mono recording in stereo 3 dB louder
        resampler = av.AudioResampler(format="fltp", rate=SAMPLE_RATE)
        chunks: list[np.ndarray] = []
        first_pts_time: float | None = None
        try:
            for frame in container.decode(stream):
                if first_pts_time is None and frame.pts is not None and frame.time_base:
                    first_pts_time = float(frame.pts * frame.time_base)
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().mean(axis=0))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().mean(axis=0))
        except (av.error.InvalidDataError, av.error.FFmpegError) as exc:
            if not chunks:
                raise CorruptAudio(f"{path}: the audio track cannot be decoded: {exc}", path=path) from None
            # a truncated tail: keep what decoded (a recording cut short is still evidence)
        is_video = bool(container.streams.video)
        video_zero = 0.0
        if is_video:
            v = container.streams.video[0]
            if v.start_time is not None and v.time_base:
                video_zero = float(v.start_time * v.time_base)
    samples = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
    if samples.size == 0:
        raise EmptyAudio(f"{path} holds no audio samples", path=path)
    if not np.all(np.isfinite(samples)):
        raise CorruptAudio(f"{path} decodes to non-finite samples", path=path)
    if start is None:
        # on the video's clock: 0 at its first frame, as vision.video counts frame times
        start = ((first_pts_time or 0.0) - video_zero) if is_video else 0.0
    return AudioClip(np.clip(samples, -1.0, 1.0), float(start), path)


def from_array(samples: np.ndarray, rate: int, start: float = 0.0, source: str = "array") -> AudioClip:
    """Any numpy signal (mono, or channels last) resampled to the common format."""
    from scipy.signal import resample_poly  # deferred: scipy.signal takes over a second to load

    x = np.asarray(samples)
    if x.size == 0:
        raise EmptyAudio(f"{source} holds no samples")
    if np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float32) / float(np.iinfo(x.dtype).max)
    x = x.astype(np.float32)
    if x.ndim == 2:
        x = x.mean(axis=1)
    if rate != SAMPLE_RATE:
        g = np.gcd(int(rate), SAMPLE_RATE)
        x = resample_poly(x, SAMPLE_RATE // g, int(rate) // g).astype(np.float32)
    return AudioClip(x, start, source)


def save_wav(clip: AudioClip, path: str | os.PathLike) -> None:
    """Write a clip as 16-bit PCM WAV (stdlib `wave`)."""
    pcm = (np.clip(clip.samples, -1, 1) * 32767).astype("<i2")
    with wave.open(os.fspath(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())


# ---- live microphone -------------------------------------------------------------------------


def _sounddevice():
    try:
        import sounddevice  # deferred: loads PortAudio, absent on machines that only read files
    except OSError as exc:  # PortAudio library not found
        raise AudioBackendMissing(
            f"cannot load PortAudio ({exc}); install Debian's libportaudio2 (bash scripts/install-debian.sh)"
        ) from None
    return sounddevice


def input_devices() -> list[dict]:
    """The input devices PortAudio sees: index, name, channels, default rate."""
    sd = _sounddevice()
    try:
        devices = sd.query_devices()
    except sd.PortAudioError as exc:
        raise AudioDeviceNotFound(f"PortAudio cannot list devices: {exc}") from None
    return [
        {"index": i, "name": d["name"], "channels": d["max_input_channels"], "rate": d["default_samplerate"]}
        for i, d in enumerate(devices)
        if d["max_input_channels"] > 0
    ]


def resolve_device(device: int | str | None) -> int:
    """The PortAudio index of an input device (None: the default one).

    Raises AudioDeviceNotFound naming the devices that do exist.
    """
    sd = _sounddevice()
    available = input_devices()
    names = ", ".join(f"{d['index']}: {d['name']}" for d in available) or "none"
    if not available:
        raise AudioDeviceNotFound(
            f"no microphone: this machine has no audio input device (asked for {device!r})", device=device, available=[]
        )
    if device is None:
        try:
            info = sd.query_devices(kind="input")
            return int(info["index"])
        except (sd.PortAudioError, ValueError, KeyError):
            return int(available[0]["index"])
    if isinstance(device, str) and device.isdigit():
        device = int(device)
    if isinstance(device, int):
        if any(d["index"] == device for d in available):
            return device
    else:
        matches = [d for d in available if device.lower() in d["name"].lower()]
        if len(matches) == 1:
            return int(matches[0]["index"])
        if len(matches) > 1:
            raise AudioDeviceNotFound(
                f"{device!r} matches several input devices: {names}", device=device, available=available
            )
    raise AudioDeviceNotFound(f"no input device {device!r}; available: {names}", device=device, available=available)


class Microphone:
    """A live microphone, read in blocks stamped on the session clock.

    clock: a function returning session time in seconds (default: time.monotonic, offset so that
    the session starts at 0 when the microphone opens). Each block's `start` is the clock time
    of its first sample, computed from PortAudio's ADC time when it gives one.
    """

    def __init__(
        self, device: int | str | None = None, block_seconds: float = 0.5, clock: Callable[[], float] | None = None
    ) -> None:
        self._sd = _sounddevice()
        self.device = resolve_device(device)
        info = self._sd.query_devices(self.device)
        self.native_rate = int(info["default_samplerate"]) or SAMPLE_RATE
        self.block_seconds = block_seconds
        t0 = time.monotonic()
        self.clock = clock or (lambda: time.monotonic() - t0)
        self._queue: queue.Queue[tuple[float, np.ndarray]] = queue.Queue()

    def blocks(self, seconds: float | None = None) -> Iterator[AudioClip]:
        """Yield `AudioClip`s of about `block_seconds` until `seconds` of audio have been read."""
        sd = self._sd
        rate = self.native_rate
        blocksize = int(rate * self.block_seconds)

        def callback(indata, frames, time_info, status):  # runs on PortAudio's thread
            self._queue.put((self.clock() - frames / rate, indata[:, 0].copy()))

        try:
            stream = sd.InputStream(
                device=self.device, channels=1, samplerate=rate, blocksize=blocksize, dtype="float32", callback=callback
            )
        except (sd.PortAudioError, ValueError) as exc:
            raise AudioDeviceNotFound(f"cannot open input device {self.device}: {exc}", device=self.device) from None
        read = 0.0
        with stream:
            while seconds is None or read < seconds:
                try:
                    t, block = self._queue.get(timeout=max(5.0, 4 * self.block_seconds))
                except queue.Empty:
                    raise AudioDeviceNotFound(
                        f"input device {self.device} opened but delivered no audio", device=self.device
                    ) from None
                clip = from_array(block, rate, start=t, source=f"mic:{self.device}")
                read += clip.duration
                yield clip

    def record(self, seconds: float) -> AudioClip:
        """Read `seconds` of audio as one clip."""
        parts = list(self.blocks(seconds))
        return AudioClip(np.concatenate([p.samples for p in parts]), parts[0].start, f"mic:{self.device}")
