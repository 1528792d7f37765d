"""Cut a stream of scored 32 ms frames into utterances.

Pure bookkeeping in sample positions, no clocks and no bus, so it is the
same for a live card and for a replayed file. An utterance starts at the
first voiced frame (with ``pre_roll`` of audio from before it), is announced
once it holds ``min_speech`` of voiced audio, and ends when the endpointer
says the pause ends the turn (``hearing/endpointing.py``: a short pause the
end-of-turn model finds complete, else ``silence``) or at ``max_utterance``.
When the silence starts, a speculative copy of the utterance is offered
(``Paused``); when the turn ends without speech resuming, the final utterance
has exactly that audio, so a transcript of the copy is a transcript of the
utterance. When speech resumes instead, ``Resumed`` says that the copy is stale: its
transcript, and an answer started on it, are wasted work on a busy CPU. Speech after
the end starts the next utterance: nothing is lost.

The end-of-turn model hears an utterance that went on after a pause as if it had been
said without it (:meth:`Segmenter.judged`): Smart Turn takes a pause inside the
utterance for a sign that the speaker is still looking for words, and heard "Set a
timer for ... ten minutes" finished at 0.54 with a 0.5 s pause, 0.05 with 0.7 s, and at
0.97 with the pause cut to 0.2 s, as said fluently (``jm_kumo``; "Call my ... mother"
0.04 and 0.87). So the resumed question waited the long silence where the same words
said fluently end at the short pause (issue 29).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

from hearing.endpointing import Endpointer, TurnModel
from hearing.vad import FRAME, RATE
from settings.schema import VadConfig

HYSTERESIS = 0.15
"""Once speaking, a frame stays voiced down to ``threshold - HYSTERESIS`` (Silero's own rule)."""


@dataclass(frozen=True)
class Began:
    """Speech started at sample ``start`` and has lasted ``min_speech``."""

    start: int


@dataclass(frozen=True)
class Paused:
    """Silence started: the utterance so far, speculatively (not the final cut)."""

    pcm: bytes
    start: int
    end: int
    """Sample position just after the last voiced frame."""


@dataclass(frozen=True)
class Resumed:
    """Speech went on after a ``Paused``: that copy is not the utterance."""

    start: int
    """Sample position of the first voiced frame after the pause."""


@dataclass(frozen=True)
class Ended:
    """The utterance is complete: the silence window closed, or it reached its maximum."""

    pcm: bytes
    start: int
    end: int
    """Sample position just after the last voiced frame."""
    split: bool = False
    """Cut at ``max_utterance`` while speech went on."""


Event = Began | Paused | Resumed | Ended


class Segmenter:
    def __init__(self, vad: VadConfig, turn_model: TurnModel | None = None) -> None:
        self.threshold = vad.threshold
        self.low = max(0.01, vad.threshold - HYSTERESIS)
        self.endpointer = Endpointer(vad, turn_model)
        self.kept_pause = round(vad.short_silence * RATE)
        """The longest pause inside an utterance the end-of-turn model hears: any shorter one
        is never judged, so a question with pauses this short is one said fluently."""
        self.min_speech = round(vad.min_speech * RATE)
        self.max_bytes = 2 * max(FRAME, round(vad.max_utterance * RATE))
        self.pre_roll: collections.deque[bytes] = collections.deque(
            maxlen=round(vad.pre_roll * RATE / FRAME)
        )
        self.position = 0
        """Samples pushed so far (positions are counted from the first frame ever)."""
        self._reset_utterance()

    def reset(self) -> None:
        """Drop the utterance in progress and the pre-roll (the audio before was not heard)."""
        self.pre_roll.clear()
        self._reset_utterance()

    def _reset_utterance(self) -> None:
        self.audio: bytearray | None = None
        self.audio_start = 0  # sample position of audio[0]
        self.start = 0
        self.voiced = 0
        self.end = 0
        self.silent = 0
        self.announced = False
        self.offered = False
        """A ``Paused`` copy was offered for the silence under way."""
        self.pauses: list[tuple[int, int]] = []
        """(first, end) sample positions of each pause longer than ``kept_pause`` that the
        speech went on after."""

    def push(self, frame: bytes, probability: float) -> list[Event]:
        """Add one frame (PCM16, ``FRAME`` samples) with its speech probability."""
        first = self.position
        self.position += len(frame) // 2
        if self.audio is None:
            if probability < self.threshold:
                self.pre_roll.append(frame)
                return []
            return self._begin(frame, first)
        self.audio += frame
        events: list[Event] = []
        voiced = probability >= self.threshold or (probability >= self.low and self.silent == 0)
        if voiced:
            if self.silent > self.kept_pause:
                self.pauses.append((first - self.silent, first))
            self.voiced += self.position - first
            self.end = self.position
            self.silent = 0
            if self.offered:
                self.offered = False
                events.append(Resumed(first))
            if not self.announced and self.voiced >= self.min_speech:
                self.announced = True
                events.append(Began(self.start))
        else:
            self.silent += self.position - first
            if self.announced and self.silent == self.position - first:
                events.append(Paused(self._cut(), self.start, self.end))
                self.offered = True
            step = self.position - first
            # (the shortened copy only for the frame the model hears: it judges once a pause)
            heard = ((self.judged() if self.endpointer.judges(self.silent, step) else self.audio)
                     if self.announced else None)  # a click is not judged
            if self.endpointer.ends(heard, self.silent, step, self.end):
                if self.announced:
                    events.append(Ended(self._cut(), self.start, self.end))
                self._reset_utterance()
                return events
        if len(self.audio) >= self.max_bytes:
            if self.announced:
                events.append(Ended(bytes(self.audio), self.start, self.end, split=True))
            self._reset_utterance()
        return events

    def _begin(self, frame: bytes, first: int) -> list[Event]:
        before = b"".join(self.pre_roll)
        self.pre_roll.clear()
        self.audio = bytearray(before + frame)
        self.audio_start = first - len(before) // 2
        self.start = first
        self.voiced = self.position - first
        self.end = self.position
        self.silent = 0
        if self.voiced >= self.min_speech:
            self.announced = True
            return [Began(first)]
        return []

    def judged(self) -> bytes | bytearray:
        """The utterance as the end-of-turn model hears it: each pause the speech went on
        after cut to ``kept_pause`` (its start kept), as if said without it. The audio itself
        (no copy) when there was none, as for most questions."""
        assert self.audio is not None
        if not self.pauses:
            return self.audio
        heard = bytearray()
        at = self.audio_start
        for first, end in self.pauses:
            heard += self.audio[2 * (at - self.audio_start) : 2 * (first + self.kept_pause
                                                                    - self.audio_start)]
            at = end
        heard += self.audio[2 * (at - self.audio_start) :]
        return heard

    def _cut(self) -> bytes:
        """The utterance through the first unvoiced frame after its last voiced one."""
        assert self.audio is not None
        stop = min(len(self.audio), 2 * (self.end - self.audio_start + FRAME))
        return bytes(self.audio[:stop])
