"""Audible signals: hum, mumble and table talk about TV shows, games and sport.

Sources (`sources`) give 16 kHz mono clips on the session clock; `features` and `classify` turn
them into silence / speech / mumble / hum windows; `recognize` and `topics` find what the talk is
about; `pipeline.AudioListener` puts it together into `SignalEvent`s; `attribute` gives each
event to the seat whose mouth moved. Heavy libraries are imported on use.
"""

from vision.audio.errors import (  # noqa: F401
    AudioBackendMissing,
    AudioDeviceNotFound,
    AudioError,
    AudioFileNotFound,
    CorruptAudio,
    EmptyAudio,
    NoAudioTrack,
    RecognitionModelMissing,
)
from vision.audio.sources import SAMPLE_RATE, AudioClip, load  # noqa: F401
