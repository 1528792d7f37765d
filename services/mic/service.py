"""The mic service: audio blocks through the gate, Silero and the segmenter onto the bus.

``serve`` loads the backends once and feeds the :class:`Listener` from the card, or from
replayed files (``--wav``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from bus.client import Bus
from bus.message import new_id
from bus.messages import (
    BargeIn,
    Error,
    Heartbeat,
    Interrupted,
    ListenClosed,
    ListenRequest,
    Played,
    Reply,
    Speaking,
    SpeakRequest,
    SpeculativeTranscript,
    SpeechEnded,
    SpeechStarted,
    TurnDropped,
    Utterance,
    WakeWordHeard,
)
from services.base import Service
from services.mic.backends import Backends, load_backends
from services.mic.card import capture
from services.mic.convert import AudioFileError
from services.mic.gate import Gate
from services.mic.monitor import MONITOR, report_monitor
from services.mic.outage import card_reporter
from services.mic.own_voice import OwnVoice
from services.mic.segmenter import Began, Ended, Event, Paused, Segmenter
from services.mic.sources import Block, replay
from services.mic.vad import FRAME, RATE, to_float
from settings.schema import Config, ListenConfig, VadConfig

log = logging.getLogger(__name__)

VOICE_SESSION = "local"
"""The dialogue session of spoken turns (their replies steer push-to-talk)."""


class Listener(Service):
    def __init__(self, bus: Bus, listen: ListenConfig, vad: VadConfig, backends: Backends) -> None:
        super().__init__(bus)
        echo, wake, scorer = backends.echo, backends.wake, backends.scorer
        self.echo = echo
        """Takes the assistant's voice out of every block before anything hears it."""
        self.wake = wake
        """Runs on every block, even while the mic is deaf or closed (nothing it hears
        leaves the process before the word)."""
        self.own_voice = OwnVoice(wake.word if wake is not None and echo is None else "")
        """Without the canceller the detector hears the assistant: not its own word."""
        self.earcon = backends.earcon
        self.woken: str | None = None
        """The turn the wake word started, until its speech starts or the mic closes."""
        self.gate = Gate(listen, vad, echo_cancelled=echo is not None)
        self.segmenter = Segmenter(vad, backends.turn_model)
        self.partial = (0.0, 0)
        """The latest partial's speech end: as the bus has it, and as a sample position."""
        self.scorer = scorer
        self.pending = bytearray()
        """Heard audio not yet a whole frame."""
        self.hearing = False
        self.turn: str | None = None
        self.barge_in = ""
        """The id of the latest ``BargeIn``: the speaker's ``Interrupted`` answers it."""
        self._anchor = (0, 0.0)  # (sample position, epoch time) of the latest block's end

    async def run(
        self, blocks: AsyncIterator[Block], monitor: AsyncIterator[Block] | None = None
    ) -> None:
        """Hear every block until the source ends, following the bus meanwhile, and the
        output's ``monitor`` (the echo reference) if given."""
        self.subscribe(self.bus)
        tasks = [asyncio.ensure_future(self.serve())]
        if monitor is not None:
            tasks.append(asyncio.ensure_future(self._monitor(monitor)))
        try:
            async for block in blocks:
                self.hear(block)
                if monitor is not None:
                    # The monitor's blocks of the same time first: a backlog of mic blocks
                    # (the loop was busy) must not run ahead of its reference.
                    await asyncio.sleep(0)
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _monitor(self, blocks: AsyncIterator[Block]) -> None:
        assert self.echo is not None
        async for block in blocks:
            self.echo.monitored(block.pcm, block.end, block.fresh)

    # -- audio ------------------------------------------------------------------------

    def hear(self, block: Block) -> None:
        if self.echo is not None:
            pcm, end = self.echo.clean(block.pcm, block.end, block.fresh)
            if not pcm and not block.fresh:
                return  # every frame waits for its reference
            block = Block(pcm, end, block.fresh)
        if block.fresh and self.wake is not None:
            self.wake.reset()
        if self.wake is not None and self.wake.hear(block.pcm):
            self._woke(block.end)
        self._hear(block)
        if self.gate.closed is not None:
            reason, follow_up = self.gate.closed
            self.gate.closed = None
            self.bus.publish(ListenClosed(reason=reason, follow_up=follow_up, turn=self.woken))
            self.woken = None

    def _woke(self, heard: float) -> None:
        assert self.wake is not None
        turn = new_id()
        if self.gate.speaking:  # the word interrupts the assistant, unless it says it
            if self.own_voice.says_word(self.gate.speaking_turn):
                return
            self._barge_in("wake", heard, turn)
        elif not self.gate.on_wake(heard):
            log.info("wake word heard while deaf or already listening: ignored")
            return
        self._forget("")  # the question starts after the word
        self.woken = turn
        log.info("turn %s: wake word heard", self.woken)
        self.bus.publish(WakeWordHeard(word=self.wake.word, heard=heard, turn=self.woken))
        if self.earcon is not None:
            self.earcon.play()

    def _barge_in(self, reason: str, heard: float, turn: str) -> None:
        barge_in = BargeIn(reason=reason, interrupted=self.gate.speaking_turn or "",
                           heard=heard, turn=turn)
        log.info("turn %s: barge-in by %s", turn, reason)
        self.barge_in = barge_in.id
        self.bus.publish(barge_in)
        if self.echo is not None:
            self.echo.distrust()
        self.gate.on_barge_in(heard)

    def _hear(self, block: Block) -> None:
        if block.fresh:
            self._forget("the audio stream was reopened", "reopened")
        captured = block.end - len(block.pcm) / 2 / RATE
        if not self.gate.hears(captured):
            if self.hearing:
                self._forget("the mic went deaf or closed", "deaf")
                self.hearing = False
            return
        if not self.hearing:
            self._forget("")  # nothing from before the mic opened may leak in
            self.hearing = True
        self.pending += block.pcm
        self._anchor = (self.segmenter.position + len(self.pending) // 2, block.end)
        while len(self.pending) >= 2 * FRAME:
            frame = bytes(self.pending[: 2 * FRAME])
            del self.pending[: 2 * FRAME]
            for event in self.segmenter.push(frame, self.scorer(to_float(frame))):
                self._publish(event)

    def _forget(self, why: str, reason: str = "") -> None:
        if self.turn is not None and why:
            log.info("turn %s dropped: %s", self.turn, why)
            self.bus.publish(TurnDropped(reason=reason, turn=self.turn))
        self.turn = None
        self.pending.clear()
        self.segmenter.reset()
        self.scorer.reset()

    def _epoch(self, position: int) -> float:
        anchor_position, anchor_time = self._anchor
        return anchor_time - (anchor_position - position) / RATE

    def _publish(self, event: Event) -> None:
        if isinstance(event, Began):
            self.turn, self.woken = self.woken or new_id(), None
            if self.gate.speaking:  # only with echo cancellation: speech interrupts
                if self.echo is not None and not self.echo.converged:
                    log.info("speech onset while the echo canceller adapts: not a barge-in")
                    self._forget("")
                    return
                if self.echo is not None:
                    log.info("echo delay %.0f ms, %.0f dB taken off", 1000 * self.echo.delay / RATE,
                             self.echo.reduction)
                self._barge_in("speech", self._epoch(event.start), self.turn)
            log.debug("turn %s: speech started", self.turn)
            self.bus.publish(SpeechStarted(turn=self.turn))
            self.gate.on_speech_started(self.turn)
            return
        if self.turn is None:  # cannot happen: Paused/Ended only follow Began
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

    # -- bus --------------------------------------------------------------------------

    def _speaking(self, msg: Speaking) -> None:
        self.own_voice.on_speaking(msg.speaking)
        self.gate.on_speaking(msg.speaking, msg.ts, msg.src, msg.turn)

    def _say(self, msg: SpeakRequest) -> None:
        self.own_voice.said(msg.turn, msg.text)

    def _interrupted(self, msg: Interrupted) -> None:
        if msg.reply_to == self.barge_in:
            self.gate.on_interrupted(msg.silent)

    def _played(self, msg: Played) -> None:
        if self.echo is not None and not self.echo.monitor:
            self.echo.played(msg.pcm, msg.start)

    def _heartbeat(self, msg: Heartbeat) -> None:
        self.gate.on_heartbeat(msg.service, msg.state, msg.ts, msg.interval)

    def _listen(self, msg: ListenRequest) -> None:
        self.gate.on_listen(msg.ts)

    def _reply(self, msg: Reply) -> None:
        if msg.session == VOICE_SESSION:
            self.gate.on_reply(
                msg.reply_to or "", msg.text, bool(msg.control), msg.error is not None, msg.ts
            )

    def _guess(self, msg: SpeculativeTranscript) -> None:
        """The words of the latest partial: the end of turn may read them."""
        if msg.turn == self.turn and self.partial[0] == msg.speech_end:
            self.segmenter.endpointer.heard(self.partial[1], msg.text, msg.lang)

    def _lost(self, msg: Error | TurnDropped) -> None:
        if msg.turn:
            self.gate.on_error(msg.turn)  # push-to-talk: no answer will come

    HANDLERS = {
        Speaking: _speaking,
        SpeakRequest: _say,
        Interrupted: _interrupted,
        Played: _played,
        ListenRequest: _listen,
        Reply: _reply,
        Error: _lost,
        Heartbeat: _heartbeat,
        TurnDropped: _lost,
        SpeculativeTranscript: _guess,
    }


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    """Load the backends, then hear the card (or the replayed files) until stopped."""
    backends = load_backends(config, replaying=bool(args.wav))
    listener = Listener(bus, config.listen, config.vad, backends)
    if args.wav:
        bus.set_state("ready", "replaying files")
        tail = config.vad.silence + 0.2
        try:
            await listener.run(replay([Path(p) for p in args.wav], not args.fast, tail))
        except AudioFileError as exc:
            log.error("%s", exc)
            raise SystemExit(2) from None
        log.info("replay done")
        return

    echo = backends.echo
    monitor = capture("", report_monitor, MONITOR) if echo is not None and echo.monitor else None
    await listener.run(capture(config.card, card_reporter(bus)), monitor)
