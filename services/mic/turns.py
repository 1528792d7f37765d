"""Heard audio into turns on the bus: whole frames through Silero and the segmenter, then
``SpeechStarted``, partial and whole ``Utterance``s (``SpeechResumed`` when speech goes on
after a partial) and ``SpeechEnded``. A turn whose
audio stops (the mic deaf or closed, the stream reopened) is dropped (``TurnDropped``)."""

from __future__ import annotations

import logging

from bus.client import Bus
from bus.message import new_id
from bus.messages import (
    SpeculativeTranscript,
    SpeechEnded,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    Utterance,
)
from hearing.endpointing import TurnModel
from hearing.frames import SpeechFrames
from hearing.segmenter import Began, Ended, Event, Paused, Resumed, Segmenter
from hearing.vad import RATE, SpeechScorer
from services.mic.barge_in import BargeIns
from services.mic.gate import Gate
from services.mic.sources import Block
from settings.schema import VadConfig

log = logging.getLogger(__name__)


class Turns:
    def __init__(
        self, bus: Bus, gate: Gate, barge_ins: BargeIns, vad: VadConfig, scorer: SpeechScorer,
        turn_model: TurnModel | None,
    ) -> None:
        self.bus = bus
        self.gate = gate
        self.barge_ins = barge_ins
        self.segmenter = Segmenter(vad, turn_model)
        self.frames = SpeechFrames(self.segmenter, scorer)
        self.hearing = False
        self.turn: str | None = None
        self.woken: str | None = None
        """The turn the wake word started, until its speech starts or the mic closes."""
        self.partial = (0.0, 0)
        """The latest partial's speech end: as the bus has it, and as a sample position."""
        self._anchor = (0, 0.0)  # (sample position, epoch time) of the latest block's end

    def hear(self, block: Block) -> None:
        """Segment ``block`` if the gate lets the mic hear the time it was captured."""
        if block.fresh:
            self.forget("the audio stream was reopened", "reopened")
            self.gate.forget_question()
        captured = block.end - len(block.pcm) / 2 / RATE
        if not self.gate.hears(captured):
            if self.hearing:
                self.forget("the mic went deaf or closed", "deaf")
                self.hearing = False
            return
        if not self.hearing:
            self.forget("")  # nothing from before the mic opened may leak in
            self.hearing = True
        self._anchor = (self.frames.position + len(block.pcm) // 2, block.end)
        for event in self.frames.push(block.pcm):
            self._publish(event)

    def set_onset(self, seconds: float) -> None:
        """Seconds of voiced audio that make a speech onset from the next frame on (shorter
        while the assistant speaks through the canceller: ``barge_in.OVER_THE_ECHO``)."""
        self.segmenter.min_speech = round(seconds * RATE)

    def take_woken(self) -> str | None:
        """The turn the wake word started, if no speech started it (the opened mic closed:
        it ends there)."""
        woken, self.woken = self.woken, None
        return woken

    def woke(self, turn: str) -> None:
        """The wake word started ``turn``: the question starts after the word."""
        self.forget("")
        self.woken = turn

    def forget(self, why: str, reason: str = "") -> None:
        """Drop the audio so far, and the turn with ``reason`` if ``why`` says why."""
        if self.turn is not None and why:
            log.info("turn %s dropped: %s", self.turn, why)
            self.bus.publish(TurnDropped(reason=reason, turn=self.turn))
        self.turn = None
        self.frames.reset()

    def guessed(self, msg: SpeculativeTranscript) -> None:
        """The words of the latest partial: the end of turn may read them."""
        if msg.turn == self.turn and self.partial[0] == msg.speech_end:
            self.segmenter.endpointer.heard(self.partial[1], msg.text, msg.lang)

    def _epoch(self, position: int) -> float:
        anchor_position, anchor_time = self._anchor
        return anchor_time - (anchor_position - position) / RATE

    def _publish(self, event: Event) -> None:
        if isinstance(event, Began):
            self._began(event)
            return
        if self.turn is None:  # cannot happen: the other events only follow Began
            return
        if isinstance(event, Resumed):
            self.bus.publish(SpeechResumed(resumed_at=self._epoch(event.start), turn=self.turn))
            return
        duration = len(event.pcm) / 2 / RATE
        speech_end = self._epoch(event.end)
        if isinstance(event, Paused):
            self.bus.publish(
                Utterance(pcm=event.pcm, rate=RATE, duration=duration, speech_end=speech_end,
                          partial=True, turn=self.turn)
            )
            self.partial = (speech_end, event.end)
            return
        assert isinstance(event, Ended)
        log.info("turn %s: utterance of %.2f s%s", self.turn, duration,
                 " (cut at [vad] max_utterance)" if event.split else "")
        self.bus.publish(SpeechEnded(speech_end=speech_end, duration=duration, turn=self.turn))
        self.bus.publish(
            Utterance(pcm=event.pcm, rate=RATE, duration=duration, speech_end=speech_end,
                      turn=self.turn)
        )
        self.gate.on_utterance(self.turn, self._epoch(self.segmenter.position))
        self.turn = None

    def _began(self, event: Began) -> None:
        self.turn, self.woken = self.woken or new_id(), None
        onset = self._epoch(event.start)
        # Only with echo cancellation does the mic hear while the assistant speaks.
        if self.gate.speaking and not self.barge_ins.by_speech(onset, self.turn):
            self.forget("")
            return
        if not self.gate.speaking:
            self.barge_ins.resumed(onset, self.turn)
            if not self.gate.takes_speech():  # heard too late to go on with the question
                self.forget("")
                return
        log.debug("turn %s: speech started", self.turn)
        self.bus.publish(SpeechStarted(turn=self.turn))
        self.gate.on_speech_started(self.turn)
