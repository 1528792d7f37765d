"""Messages of the TTS/audio output service."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class Speaking(Message):
    """The speaker started (True) or stopped (False) playing; the mic is deaf meanwhile."""

    TOPIC = "tts.speaking"
    speaking: bool


@register
@dataclass(frozen=True, kw_only=True)
class Spoken(Message):
    """A piece of text has been played in full."""

    TOPIC = "tts.spoken"
    text: str
    lang: str = "en"
    seq: int = 0
    duration: float = 0.0
    """Seconds of audio played."""


@register
@dataclass(frozen=True, kw_only=True)
class VolumeCommand(Message):
    """Change or query the playback volume; answered by :class:`VolumeState`."""

    TOPIC = "tts.volume.command"
    action: str
    """``up``, ``down``, ``set`` or ``get``."""
    value: float | None = None
    request_id: str = ""


@register
@dataclass(frozen=True, kw_only=True)
class VolumeState(Message):
    TOPIC = "tts.volume.state"
    volume: float
    request_id: str = ""
