"""What the assistant hears in one satellite's stream: our wake word, then a question.

The same parts as the local mic (microWakeWord, Silero, its segmenter and the
end-of-turn model), fed from the satellite's audio instead of the sound card. Everything counts in
sample positions, so audio that arrives faster or slower than real time is
cut the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hearing.endpointing import TurnModel
from hearing.frames import SpeechFrames
from hearing.segmenter import Began, Ended, Segmenter
from hearing.vad import RATE, SpeechScorer
from hearing.wake import WakeDetector
from settings.schema import VadConfig


@dataclass(frozen=True)
class Woke:
    """Our wake word was heard; the question follows."""

    word: str


Heard = Woke | Began | Ended


class Ear:
    """Fed 16 kHz mono PCM16 with :meth:`hear`; says what it heard in it."""

    def __init__(self, vad: VadConfig, scorer: SpeechScorer,
                 wake: Callable[[], WakeDetector] | None, listen_window: float,
                 turn_model: TurnModel | None = None) -> None:
        self.segmenter = Segmenter(without_words(vad), turn_model)
        self.frames = SpeechFrames(self.segmenter, scorer)
        self.wake_factory = wake
        self.wake: WakeDetector | None = None
        self.listen_window = round(listen_window * RATE)
        """Samples after the wake word within which the question must start."""
        self.awake_until: int | None = None
        """While waiting for speech after the word: the sample position where it gives up."""

    def expect(self, wake_word: bool) -> None:
        """Start over: wait for the wake word first (``wake_word``), or for speech at once."""
        self.wake = self.wake_factory() if wake_word and self.wake_factory else None
        self.awake_until = None
        self.frames.reset()

    def expect_follow_up(self, seconds: float) -> None:
        """Start over after an answer: a question may start without the word for
        ``seconds`` of the stream (as the local mic's follow-up window), then the word
        is needed again. Without our wake word every speech is a question anyway."""
        self.expect(wake_word=True)
        if self.wake is not None and seconds > 0:
            self.awake_until = self.segmenter.position + round(seconds * RATE)

    @property
    def waits_for_word(self) -> bool:
        return self.wake is not None and self.awake_until is None

    def hear(self, pcm: bytes) -> list[Heard]:
        if self.waits_for_word:
            assert self.wake is not None
            if not self.wake.hear(pcm):
                return []
            self.awake_until = self.segmenter.position + self.listen_window
            return [Woke(self.wake.word)]  # the rest of this chunk is still the word
        heard: list[Heard] = []
        heard += [event for event in self.frames.push(pcm) if isinstance(event, Began | Ended)]
        if self._gave_up(heard):
            self.expect(wake_word=True)
        return heard

    def _gave_up(self, heard: list[Heard]) -> bool:
        """After the word, no speech began within the window: back to the word."""
        if self.awake_until is None:
            return False
        if any(isinstance(event, Began) for event in heard) or self.segmenter.audio is not None:
            self.awake_until = self.segmenter.position + self.listen_window  # speech goes on
            return False
        return self.segmenter.position >= self.awake_until


def without_words(vad: VadConfig) -> VadConfig:
    """``model+text`` as ``model``: a satellite's question is transcribed once, when it
    has ended, so no guess of its words comes while it pauses; waiting for one would make
    every turn wait out the long silence instead of ending at the short pause."""
    if vad.end_of_turn != "model+text":
        return vad
    return vad.model_copy(update={"end_of_turn": "model"})
