"""Audio sources: WAV, video track, microphone; one format; named errors for bad input."""

import os
import wave

import numpy as np
import pytest

from tests.audio.conftest import fixture_path
from vision.audio import errors, sources
from vision.audio.sources import SAMPLE_RATE, AudioClip


def _write_wav(path, data: np.ndarray, rate: int, channels: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.astype("<i2").tobytes())


def test_wav_is_resampled_to_16k_mono_float32(tmp_path):
    rate, secs = 44_100, 0.5
    t = np.arange(int(rate * secs)) / rate
    left = (np.sin(2 * np.pi * 440 * t) * 10_000).astype(np.int16)
    stereo = np.stack([left, left], axis=1).reshape(-1)
    _write_wav(tmp_path / "a.wav", stereo, rate, 2)
    clip = sources.load(tmp_path / "a.wav")
    assert clip.samples.dtype == np.float32
    assert clip.sample_rate == SAMPLE_RATE
    assert abs(clip.duration - secs) < 0.02
    # the tone survives resampling: its peak is at 440 Hz, its level about 10000/32768
    spec = np.abs(np.fft.rfft(clip.samples))
    assert abs(np.fft.rfftfreq(len(clip.samples), 1 / SAMPLE_RATE)[spec.argmax()] - 440) < 5
    assert 0.25 < np.max(np.abs(clip.samples[2000:-2000])) < 0.36


def test_start_puts_the_file_on_the_session_clock():
    clip = sources.load(fixture_path("hum.wav"), start=12.5)
    assert clip.start == 12.5
    assert clip.time_of(SAMPLE_RATE) == pytest.approx(13.5)
    part = clip.slice(13.0, 14.0)
    assert part.start == pytest.approx(13.0) and part.duration == pytest.approx(1.0)


def test_video_audio_track_matches_the_wav_it_was_made_from():
    video = sources.load(fixture_path("video_with_audio.mp4"))
    wav = sources.load(fixture_path("speech_en_sport.wav"))
    assert abs(video.duration - wav.duration) < 0.15

    # AAC is lossy and delays the start a little, but the loudness envelope matches once aligned
    def env(x):  # 10 ms RMS
        n = len(x) // 160
        return np.sqrt((x[: n * 160].reshape(n, 160) ** 2).mean(1))

    a, b = env(video.samples), env(wav.samples)
    n = min(len(a), len(b)) - 30
    best = max((np.corrcoef(a[k : k + n], b[:n])[0, 1], k) for k in range(0, 20))
    assert best[0] > 0.9, best
    assert best[1] * 0.01 < 0.2  # the encoder's priming delay, well under 0.2 s


@pytest.mark.parametrize(
    "content,error",
    [
        (b"", errors.EmptyAudio),
        (b"RIFF\x24\x00\x00\x00WAVEfmt " + os.urandom(200), errors.CorruptAudio),
        (os.urandom(4000), errors.CorruptAudio),
    ],
)
def test_bad_files_raise_named_errors(tmp_path, content, error):
    p = tmp_path / "bad.wav"
    p.write_bytes(content)
    with pytest.raises(error) as exc:
        sources.load(p)
    assert str(p) in exc.value.message


def test_wav_with_no_samples_is_empty(tmp_path):
    _write_wav(tmp_path / "none.wav", np.zeros(0, np.int16), 16_000, 1)
    with pytest.raises(errors.EmptyAudio):
        sources.load(tmp_path / "none.wav")


def test_video_without_audio_is_named():
    with pytest.raises(errors.NoAudioTrack) as exc:
        sources.load(fixture_path("video_no_audio.mp4"))
    assert "video" in exc.value.details["streams"]


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(errors.AudioFileNotFound):
        sources.load(tmp_path / "nope.wav")
    with pytest.raises(errors.AudioFileNotFound):
        sources.load(tmp_path)


def test_from_array_mixes_channels_and_resamples():
    x = np.ones((48_000, 2), np.int16) * 16384
    clip = sources.from_array(x, 48_000, start=3.0)
    assert clip.duration == pytest.approx(1.0, abs=1e-3)
    assert clip.start == 3.0
    assert np.median(clip.samples) == pytest.approx(0.5, abs=0.01)
    with pytest.raises(errors.EmptyAudio):
        sources.from_array(np.zeros(0), 16_000)


def test_clip_must_be_mono():
    with pytest.raises(ValueError):
        AudioClip(np.zeros((10, 2), np.float32))


# ---- microphone: no machine running the tests is assumed to have one ------------------------


class FakeSoundDevice:
    class PortAudioError(Exception):
        pass

    def __init__(self, devices):
        self.devices = devices

    def query_devices(self, device=None, kind=None):
        if kind == "input":
            for i, d in enumerate(self.devices):
                if d["max_input_channels"]:
                    return {**d, "index": i}
            raise self.PortAudioError("Error querying device -1")
        if device is not None:
            return self.devices[device]
        return self.devices


def _dev(name, inputs):
    return {"name": name, "max_input_channels": inputs, "default_samplerate": 48_000.0}


def test_unknown_device_names_the_ones_that_exist(monkeypatch):
    fake = FakeSoundDevice([_dev("HDMI out", 0), _dev("USB table mic", 1), _dev("Webcam mic", 2)])
    monkeypatch.setattr(sources, "_sounddevice", lambda: fake)
    assert sources.resolve_device(None) == 1
    assert sources.resolve_device("usb") == 1
    assert sources.resolve_device("2") == 2
    with pytest.raises(errors.AudioDeviceNotFound) as exc:
        sources.resolve_device("studio")
    assert "USB table mic" in exc.value.message and "HDMI" not in exc.value.message
    with pytest.raises(errors.AudioDeviceNotFound):
        sources.resolve_device(0)  # an output, not an input
    with pytest.raises(errors.AudioDeviceNotFound) as exc:
        sources.resolve_device("mic")  # matches two
    assert "several" in exc.value.message


def test_no_input_device_at_all(monkeypatch):
    monkeypatch.setattr(sources, "_sounddevice", lambda: FakeSoundDevice([_dev("HDMI out", 0)]))
    with pytest.raises(errors.AudioDeviceNotFound) as exc:
        sources.Microphone()
    assert "no microphone" in exc.value.message


def test_real_portaudio_reports_a_named_error_for_an_unknown_device():
    """Against the real PortAudio of this machine: whatever devices it has, this one is not."""
    try:
        sources._sounddevice()
    except errors.AudioBackendMissing:
        pytest.skip("libportaudio2 is not installed (bash scripts/install-debian.sh)")
    with pytest.raises(errors.AudioDeviceNotFound):
        sources.Microphone(device="no such microphone 1f0c")


def test_missing_portaudio_library_is_named(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(errors.AudioBackendMissing) as exc:
        sources.input_devices()
    assert "libportaudio2" in exc.value.message


def test_microphone_blocks_are_resampled_and_stamped(monkeypatch):
    """The stream callback path, with a fake PortAudio stream feeding two 48 kHz blocks."""
    fake = FakeSoundDevice([_dev("USB table mic", 1)])

    class Stream:
        def __init__(self, callback, blocksize, samplerate, **kw):
            self.callback, self.blocksize = callback, blocksize

        def __enter__(self):
            for k in range(2):
                block = np.full((self.blocksize, 1), 0.1 * (k + 1), np.float32)
                self.callback(block, self.blocksize, None, None)
            return self

        def __exit__(self, *a):
            return False

    fake.InputStream = Stream
    monkeypatch.setattr(sources, "_sounddevice", lambda: fake)
    clock = iter([10.5, 11.0])
    mic = sources.Microphone(block_seconds=0.5, clock=lambda: next(clock))
    clip = mic.record(1.0)
    assert clip.duration == pytest.approx(1.0, abs=0.01)
    assert clip.start == pytest.approx(10.0)  # the first block ended at 10.5 and lasted 0.5 s
    assert np.median(clip.samples[:8000]) == pytest.approx(0.1, abs=1e-3)
    assert np.median(clip.samples[8000:]) == pytest.approx(0.2, abs=1e-3)
