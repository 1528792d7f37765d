"""Messages of the speech-to-text service."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class Transcript(Message):
    """What was said in an utterance, with the language detected."""

    TOPIC = "stt.transcript"
    text: str
    lang: str
    """ISO 639-1 code (``en``, ``it``, ``ja``)."""
    duration: float = 0.0
    """Seconds of audio transcribed."""
    compute: float = 0.0
    """Seconds spent transcribing."""
    speech_end: float = 0.0
    """Epoch time of the utterance's last voiced frame (0 when unknown)."""
    purpose: str = "turn"
    """The utterance's: ``transcribe`` for text only (no voice turn follows)."""


@register
@dataclass(frozen=True, kw_only=True)
class SpeculativeTranscript(Message):
    """A guess: the transcript of a partial utterance, made while the end-of-speech window
    still runs. The turn's :class:`Transcript` follows if the window closes; it has the same
    text when the user did not go on speaking. Not a turn to answer: only for work that is
    thrown away unless the Transcript confirms it (the dialogue's speculation)."""

    TOPIC = "stt.speculative"
    text: str
    lang: str
    duration: float = 0.0
    """Seconds of audio transcribed."""
    compute: float = 0.0
    """Seconds spent transcribing."""
    speech_end: float = 0.0
    """Epoch time of the partial utterance's last voiced frame."""
