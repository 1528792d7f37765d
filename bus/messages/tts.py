"""What the speaker is asked to say and what it reports (``tts.*``)."""

from __future__ import annotations

from dataclasses import dataclass

from bus.message import Message
from bus.registry import register


@register
@dataclass(frozen=True, kw_only=True)
class SpeakRequest(Message):
    """A piece of text to speak now, in order of ``seq`` within the turn."""

    TOPIC = "tts.say"
    text: str
    lang: str = "en"
    kind: str = "answer"
    """``answer``, ``announce``, ``error`` or ``notice``."""
    seq: int = 0
    final: bool = False
    """The last piece of this turn's reply (its text may be empty)."""
    speculative: bool = False
    """Prepared before the question was final: synthesize it, but play it only once a
    :class:`Speculation` for the turn confirms it; drop it if that says no."""


@register
@dataclass(frozen=True, kw_only=True)
class Speaking(Message):
    """The speaker started (True) or stopped (False) playing.

    Meanwhile, and for ``[vad] deaf_tail`` after, the mic takes no question from its audio,
    so that it does not answer itself: it hears only the wake word, which interrupts the
    answer (barge-in). With ``[audio] echo_cancel`` it hears plain speech too, once the
    canceller has taken the speaker's own audio out."""

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
class VolumeRequest(Message):
    """Change or query the playback volume; answered by :class:`VolumeState`."""

    TOPIC = "tts.volume.command"
    action: str
    """``up``, ``down``, ``set`` or ``get``."""
    value: float | None = None


@register
@dataclass(frozen=True, kw_only=True)
class VolumeState(Message):
    """The playback volume, after each change and in answer to a :class:`VolumeRequest`."""

    TOPIC = "tts.volume.state"
    volume: float
    said_instead: str = ""
    """On the state a voice turn's controls led to: the phrase spoken instead of the turn's
    answer, because a step went past a limit ("これ以上大きくできません"); the dialogue keeps
    it in the history, as what the assistant said."""


@register
@dataclass(frozen=True, kw_only=True)
class SynthesizeRequest(Message):
    """Speak ``text`` into audio for the sender instead of the sound card (the Wyoming
    server's text to speech); answered by :class:`TtsAudio` chunks with its id as
    ``reply_to``, the last one ``final``."""

    TOPIC = "tts.synthesize"
    text: str
    lang: str = "en"
    """The voice of this language's ``[voice.*]`` table speaks it."""


@register
@dataclass(frozen=True, kw_only=True)
class TtsAudio(Message):
    """A piece of a :class:`SynthesizeRequest`'s audio (about half a second: far below the
    bus's message limit), in order of ``seq``."""

    TOPIC = "tts.audio"
    pcm: bytes
    """PCM16 little-endian mono samples (msgpack bin); empty on a ``final`` chunk that only
    ends the answer."""
    rate: int
    """Sample rate in Hz (24000 for Kokoro, 22050 for espeak-ng)."""
    seq: int = 0
    final: bool = False
    """The last chunk of the answer."""
    error: str = ""
    """On the final chunk of an answer that failed: why."""


@register
@dataclass(frozen=True, kw_only=True)
class Interrupted(Message):
    """The speaker's answer to a :class:`BargeIn` (``reply_to``): playback faded out and
    what was queued is dropped; ``turn`` is the turn that was cut off."""

    TOPIC = "tts.interrupted"
    played: str
    """The text the user heard of that turn: the pieces played whole, then the part of the
    cut piece in proportion to its audio played, to the last whole word."""
    cut: bool
    """A piece was cut in the middle (False: the cut fell between pieces)."""
    silent: float
    """Epoch time the fade ended at the sound card, as the audio device reports it."""


@register
@dataclass(frozen=True, kw_only=True)
class Played(Message):
    """What the speaker sent to the sound card, as 16 kHz mono PCM16 in frames of about
    40 ms, while it plays: the reference the mic's echo canceller removes from what it
    hears (``[audio] echo_cancel`` with ``echo_reference = "bus"``). Silence is not sent: no
    frame means nothing played."""

    TOPIC = "tts.played"
    pcm: bytes
    """16 kHz mono PCM16 little-endian, at the volume it was played."""
    start: float
    """Epoch time its first sample reaches the sound card, as the audio device reports it."""
