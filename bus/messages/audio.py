"""Messages of the mic/VAD service."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class SpeechStarted(Message):
    """The VAD heard speech begin; ``turn`` is the id of the turn that starts here."""

    TOPIC = "audio.speech.started"


@register
@dataclass(frozen=True, kw_only=True)
class SpeechEnded(Message):
    """The end-of-speech window closed (or the maximum length was reached)."""

    TOPIC = "audio.speech.ended"
    speech_end: float
    """Epoch time of the last voiced frame: where voice-to-voice latency starts."""
    duration: float
    """Length of the utterance in seconds."""


@register
@dataclass(frozen=True, kw_only=True)
class SpeechResumed(Message):
    """Speech went on after a pause for which a partial ``Utterance`` was sent: that copy,
    its transcript and an answer started on it are stale (the turn goes on; its final
    utterance, or a later partial, follows)."""

    TOPIC = "audio.speech.resumed"
    resumed_at: float
    """Epoch time of the first voiced frame after the pause: a guess of the turn whose
    ``speech_end`` is earlier is stale."""


@register
@dataclass(frozen=True, kw_only=True)
class Utterance(Message):
    """One utterance of speech, PCM16 little-endian mono."""

    TOPIC = "audio.utterance"
    pcm: bytes
    """Raw PCM16 little-endian samples (msgpack bin)."""
    rate: int
    """Sample rate in Hz (16000)."""
    duration: float
    """Length in seconds."""
    speech_end: float
    """Epoch time of the last voiced frame."""
    partial: bool = False
    """True for a speculative copy sent while the end-of-speech window still
    runs; the final utterance of the same turn follows unless speech resumes."""
    purpose: str = "turn"
    """``turn``: a question to answer (the mic's). ``transcribe``: only its text is wanted
    (a Wyoming client's speech to text): the STT answers with a Transcript of the same
    purpose, which the dialogue does not answer, and speaks no apology if it fails."""


@register
@dataclass(frozen=True, kw_only=True)
class ListenRequest(Message):
    """Push-to-talk: open the mic for one utterance (``desktop-assistant listen``)."""

    TOPIC = "audio.listen"


LISTEN_MODES = ("wake", "always", "push")
"""The mic's listen modes (``[listen] mode``, ``docs/listening.md``)."""


@register
@dataclass(frozen=True, kw_only=True)
class ListenModeRequest(Message):
    """Change the mic's listen mode while it runs, or ask for it; answered by
    :class:`ListenModeState`. The change lasts until the mic restarts: ``[listen] mode`` in
    the config is what it starts with, and nothing here writes the config."""

    TOPIC = "audio.mode.command"
    mode: str = ""
    """``wake``, ``always`` or ``push``; empty asks for the mode without changing it."""


@register
@dataclass(frozen=True, kw_only=True)
class ListenModeState(Message):
    """The mic's listen mode, in answer to a :class:`ListenModeRequest` (``reply_to``)."""

    TOPIC = "audio.mode.state"
    mode: str
    """The mode the mic is in now: ``wake``, ``always`` or ``push``."""
    error: str = ""
    """Why the request was not carried out as asked: an unknown mode (the mode is then
    unchanged), or a wake word detector that cannot load (the mode is ``wake``, and the
    mic opens only for ``desktop-assistant listen`` until it can). Empty when it was."""


@register
@dataclass(frozen=True, kw_only=True)
class WakeWordHeard(Message):
    """The mic heard the wake word and opened; ``turn`` is the id of the turn it starts
    (its ``audio.speech.started`` follows with the same id, if speech comes)."""

    TOPIC = "audio.wake"
    word: str
    """The phrase, as its model names it ("Okay Nabu")."""
    heard: float
    """Epoch time of the end of the audio in which the word was heard."""


@register
@dataclass(frozen=True, kw_only=True)
class ListenClosed(Message):
    """The mic opened by the wake word or push-to-talk closed again: no speech came in
    time (``timeout``), or the conversation ended (``ended``)."""

    TOPIC = "audio.listen.closed"
    reason: str
    """``timeout`` (no speech, or no answer, in time) or ``ended`` (an empty answer or a
    failed turn ended the conversation)."""
    follow_up: bool = False
    """It was open for a follow-up question (after an answer)."""


@register
@dataclass(frozen=True, kw_only=True)
class BargeIn(Message):
    """The user interrupted the assistant while it spoke: the speaker fades out and drops
    what is queued (answering with :class:`Interrupted`), the dialogue cancels the turn.
    ``turn`` is the id of the turn the interrupting speech starts (empty for a stop
    phrase heard by itself, which starts none). With ``reason`` ``resumed`` the user
    went on with the question before any of its answer was heard: the dialogue asks
    the interrupted turn's words and ``turn``'s as one question."""

    TOPIC = "audio.barge_in"
    reason: str
    """``wake`` (the wake word), ``speech`` (speech onset, with echo cancellation on) or
    ``resumed`` (speech onset before the answer was heard)."""
    interrupted: str
    """The turn that was speaking (as ``tts.speaking`` named it); empty when unknown."""
    heard: float
    """Epoch time of the interrupting audio: the end of the word, or the speech onset."""
