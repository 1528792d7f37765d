"""The mic service: audio blocks through the gate, Silero and the segmenter onto the bus.

``serve`` loads the backends once and feeds the :class:`Listener` from the card, or from
replayed files (``--wav``): the listener follows the bus, and hands every block to its
audio path (``hearing.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from bus.client import Bus
from bus.messages import (
    Error,
    Heartbeat,
    Interrupted,
    ListenModeRequest,
    ListenRequest,
    Played,
    Reply,
    Speaking,
    SpeakRequest,
    SpeculativeTranscript,
    TurnDropped,
)
from hearing.convert import AudioFileError
from hearing.wake import wake_problems
from services.base.runner import ServiceMain, StartupError
from services.base.service import Service
from services.mic.backends import Backends, load_backends
from services.mic.barge_in import BargeIns
from services.mic.card import capture
from services.mic.gate import Gate
from services.mic.hearing import Hearing
from services.mic.listen_mode import ListenModes
from services.mic.monitor import MONITOR, report_monitor
from services.mic.outage import card_reporter
from services.mic.sources import Block, replay
from settings.schema import Config, ListenConfig, VadConfig

log = logging.getLogger(__name__)

VOICE_SESSION = "local"
"""The dialogue session of spoken turns (their replies steer push-to-talk)."""


class Listener(Service):
    def __init__(self, bus: Bus, listen: ListenConfig, vad: VadConfig, backends: Backends) -> None:
        super().__init__(bus)
        # The mic hears while the assistant speaks only where plain speech may interrupt
        # it; otherwise the canceller only cleans what the wake word detector hears.
        speech = backends.speech_barge_in
        self.gate = Gate(listen, vad, echo_cancelled=speech)
        word = "" if backends.wake is None else backends.wake.word
        self.barge_ins = BargeIns(bus, self.gate, backends.echo if speech else None, word)
        self.hearing = Hearing(bus, self.gate, self.barge_ins, vad, backends)
        self.modes = ListenModes(bus, listen.mode, backends.wake_loader, self.gate,
                                 self.hearing, self.barge_ins)

    async def hear_all(
        self, blocks: AsyncIterator[Block], monitor: AsyncIterator[Block] | None = None
    ) -> None:
        """Hear every block until the source ends, following the bus meanwhile, and the
        output's ``monitor`` (the echo reference) if given. The mic's run: its source, not
        its inbox, paces it, so it has no run() of the base."""
        self.subscribe(self.bus)
        tasks = [asyncio.ensure_future(self.serve())]
        if monitor is not None:
            tasks.append(asyncio.ensure_future(self.hearing.follow_monitor(monitor)))
        try:
            async for block in blocks:
                self.hearing.hear(block)
                if monitor is not None:
                    # The monitor's blocks of the same time first: a backlog of mic blocks
                    # (the loop was busy) must not run ahead of its reference.
                    await asyncio.sleep(0)
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    # -- bus --------------------------------------------------------------------------

    def _speaking(self, msg: Speaking) -> None:
        self.barge_ins.on_speaking(msg)
        self.gate.on_speaking(msg.speaking, msg.ts, msg.src, msg.turn)

    def _say(self, msg: SpeakRequest) -> None:
        self.barge_ins.on_say(msg)

    def _interrupted(self, msg: Interrupted) -> None:
        self.barge_ins.on_interrupted(msg)

    def _played(self, msg: Played) -> None:
        self.hearing.played(msg)

    def _heartbeat(self, msg: Heartbeat) -> None:
        self.gate.on_heartbeat(msg.service, msg.state, msg.ts, msg.interval)

    def _listen(self, msg: ListenRequest) -> None:
        self.gate.on_listen(msg.ts)

    def _mode(self, msg: ListenModeRequest) -> None:
        self.modes.request(msg)

    def _reply(self, msg: Reply) -> None:
        if msg.session == VOICE_SESSION:
            self.gate.on_reply(
                msg.reply_to or "", msg.text, bool(msg.control), msg.error is not None, msg.ts
            )

    def _guess(self, msg: SpeculativeTranscript) -> None:
        self.hearing.turns.guessed(msg)

    def _lost(self, msg: Error | TurnDropped) -> None:
        if msg.turn:
            self.gate.on_error(msg.turn)  # push-to-talk: no answer will come

    HANDLERS = {
        Speaking: _speaking,
        SpeakRequest: _say,
        Interrupted: _interrupted,
        Played: _played,
        ListenRequest: _listen,
        ListenModeRequest: _mode,
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
            await listener.hear_all(replay([Path(p) for p in args.wav], not args.fast, tail))
        except AudioFileError as exc:
            log.error("%s", exc)
            raise SystemExit(2) from None
        log.info("replay done")
        return

    echo = backends.echo
    monitor = capture("", report_monitor, MONITOR) if echo is not None and echo.monitor else None
    await listener.hear_all(capture(config.card, card_reporter(bus)), monitor)


def start(config: Config, args: argparse.Namespace) -> ServiceMain:
    """``[wake] engine`` names an engine there is, even in another mode (the mode can switch
    to wake at run time): a config error exits 2, not a restart loop."""
    for problem in wake_problems(config.wake):
        raise StartupError(f"mic: {problem}")
    return serve
