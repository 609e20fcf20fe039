"""Named errors of the audio path: each bad input says what is wrong with it."""

from __future__ import annotations

from referee.core import RefereeError


class AudioError(RefereeError):
    """Base of every audio error."""


class AudioFileNotFound(AudioError):
    """The path names no file."""


class EmptyAudio(AudioError):
    """The file (or the stream) holds no samples at all."""


class CorruptAudio(AudioError):
    """The file cannot be decoded as audio or video."""


class NoAudioTrack(AudioError):
    """A video (or other container) that carries no audio stream."""


class AudioDeviceNotFound(AudioError):
    """No input device matches the one asked for (or the machine has no microphone)."""


class AudioBackendMissing(AudioError):
    """The PortAudio library (Debian's libportaudio2) is not installed."""


class RecognitionModelMissing(AudioError):
    """A speech-recognition model folder that is absent or lacks a file it needs."""
