"""The watchdog's loop: follow the turns on the bus, judge them, apologize for the lost ones.

The apology is a final ``tts.say`` of kind ``error``, published once a speaker
works (a new process, when the speaker itself was lost) and repeated every few
seconds until the speaker reports it spoken: after a broker restart the first
copy may not reach it. Repeats are harmless, the speaker ignores pieces of a
turn after its final one. A ``sys.error`` (``turn-lost``) goes with the first.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable

from bus.client import Bus
from bus.errors import ErrorCode
from bus.liveness import Liveness
from bus.message import Message
from bus.messages import (
    Error,
    Heartbeat,
    Speaking,
    SpeakRequest,
    SpeechEnded,
    SpeechStarted,
    Spoken,
    ToolRequest,
    ToolResult,
    TraceMark,
    Transcript,
    TurnDropped,
)
from services.base.names import BROKER, SPEAKER, WATCHDOG
from services.base.phrases import apology
from services.base.runner import nothing_to_check
from services.base.service import Service
from services.watchdog.turns import TurnBook, VoiceTurn
from settings.schema import Config, WatchdogConfig

log = logging.getLogger(__name__)

RESAY = 5.0
"""Seconds between two copies of an apology the speaker has not confirmed."""


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    lang = config.audio.default_lang
    await Watchdog(bus, config.watchdog, heartbeat=config.bus.heartbeat, lang=lang).run()


class Watchdog(Service):
    """Follows every message that moves a voice turn on (never ``audio.utterance``: audio
    is heavy), judges silences, apologizes for the turns a stage lost."""

    def __init__(
        self,
        bus: Bus,
        settings: WatchdogConfig,
        *,
        heartbeat: float,
        lang: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(bus)
        self.clock = clock
        self.liveness = Liveness(clock)
        self.heartbeat = heartbeat
        self.speaker_wait = settings.speaker_wait
        self.book = TurnBook(self.liveness, settings.stall, heartbeat, lang, clock())

    async def serve(self) -> None:
        """The inbox, and the silences judged at least every ``tick`` (a silent bus is when
        they matter most)."""
        tick = min(0.25, self.heartbeat / 2)
        next_check = self.clock()
        while True:
            msg = await self.bus.recv(timeout=tick)
            if msg is not None:
                self.handle(msg)
                if self.clock() < next_check:
                    continue
                # Judge silences only on an empty inbox: a loop that was starved of CPU
                # holds heartbeats that prove everyone alive.
                while (msg := await self.bus.recv(timeout=0)) is not None:
                    self.handle(msg)
            now = self.clock()
            self.judge(now)
            next_check = now + tick

    def _heartbeat(self, msg: Heartbeat) -> None:
        if msg.service == BROKER:
            self.book.saw_broker(self.liveness.silent_for(BROKER), self.clock())
        self.liveness.saw(msg)

    def _feed(self, msg: Message) -> None:
        self.book.feed(msg, self.clock())

    def judge(self, now: float) -> None:
        for turn in self.book.check(now):
            assert turn.lost is not None
            log.warning("turn %s lost: %s", turn.turn, turn.lost.why)
        for turn in list(self.book.turns.values()):
            if turn.lost is not None:
                self._apologize(turn, now)

    def _apologize(self, turn: VoiceTurn, now: float) -> None:
        lost = turn.lost
        assert lost is not None
        if now - lost.at > self.speaker_wait:
            if not lost.said:
                self._error(turn)
            log.error(
                "turn %s: no speaker confirmed the apology within %g s; giving up",
                turn.turn, self.speaker_wait,
            )
            del self.book.turns[turn.turn]
            return
        speaker = self.liveness.working_pid(SPEAKER)
        if now < lost.next_say or speaker is None or speaker == lost.needs_new:
            return
        if not lost.said:
            self._error(turn)
        text, lang = apology(ErrorCode.TURN_LOST, turn.lang, stage=lost.stage)
        self.bus.publish(
            SpeakRequest(
                text=text, lang=lang, kind="error", seq=lost.seq, final=True, turn=turn.turn
            )
        )
        lost.said += 1
        lost.next_say = now + RESAY
        log.info("turn %s: apology published (%d)", turn.turn, lost.said)

    def _error(self, turn: VoiceTurn) -> None:
        assert turn.lost is not None
        self.bus.publish(
            Error(service=WATCHDOG, code=ErrorCode.TURN_LOST, message=turn.lost.why, turn=turn.turn)
        )

    HANDLERS = {
        Heartbeat: _heartbeat,
        SpeechStarted: _feed,
        SpeechEnded: _feed,
        TurnDropped: _feed,
        Transcript: _feed,
        SpeakRequest: _feed,
        Speaking: _feed,
        Spoken: _feed,
        Error: _feed,
        TraceMark: _feed,
        ToolRequest: _feed,
        ToolResult: _feed,
    }


start = nothing_to_check(serve)
"""Nothing to check before the bus: every check is in :func:`serve`."""
