"""Blocks of audio of any size in, the segmenter's events out: the one loop that cuts the
audio into the VAD's frames, scores each and segments it (the mic's and each satellite's)."""

from __future__ import annotations

from hearing.segmenter import Event, Segmenter
from hearing.vad import FRAME, SpeechScorer, to_float


class SpeechFrames:
    def __init__(self, segmenter: Segmenter, scorer: SpeechScorer) -> None:
        self.segmenter = segmenter
        self.scorer = scorer
        self.pending = bytearray()
        """Heard audio not yet a whole frame."""

    @property
    def position(self) -> int:
        """Samples heard so far, the part of a frame still pending included."""
        return self.segmenter.position + len(self.pending) // 2

    def push(self, pcm: bytes) -> list[Event]:
        """Hear 16 kHz mono PCM16; the events of every whole frame it completes."""
        self.pending += pcm
        events: list[Event] = []
        while len(self.pending) >= 2 * FRAME:
            frame = bytes(self.pending[: 2 * FRAME])
            del self.pending[: 2 * FRAME]
            events += self.segmenter.push(frame, self.scorer(to_float(frame)))
        return events

    def reset(self) -> None:
        """Forget the audio so far: the part of a frame, the utterance, the VAD's state."""
        self.pending.clear()
        self.segmenter.reset()
        self.scorer.reset()
