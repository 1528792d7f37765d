"""The mic's audio path, one block at a time: the assistant's voice taken out (with the
echo canceller, ``echo.py``), then the wake word (``wake_word.py``) and the turns
(``turns.py``) hear it; when the gate closes the opened mic, ``ListenClosed`` says so."""

from __future__ import annotations

from collections.abc import AsyncIterator

from bus.client import Bus
from bus.messages import ListenClosed, Played
from services.mic.backends import Backends
from services.mic.barge_in import BargeIns
from services.mic.gate import Gate
from services.mic.sources import Block
from services.mic.turns import Turns
from services.mic.wake_word import WakeWord
from settings.schema import VadConfig


class Hearing:
    def __init__(
        self, bus: Bus, gate: Gate, barge_ins: BargeIns, vad: VadConfig, backends: Backends
    ) -> None:
        self.bus = bus
        self.gate = gate
        self.echo = backends.echo
        """Takes the assistant's voice out of every block before anything hears it."""
        self.barge_ins = barge_ins
        self.min_speech = vad.min_speech
        self.turns = Turns(bus, gate, barge_ins, vad, backends.scorer, backends.turn_model)
        wake = backends.wake
        self.wake_word = None if wake is None else WakeWord(
            bus, wake, backends.earcon, gate, barge_ins, self.turns
        )

    def listen_for(self, wake_word: WakeWord | None) -> None:
        """From the next block on, ``wake_word`` hears every block first (None: no wake
        word; the listen mode changed, ``listen_mode.py``)."""
        self.wake_word = wake_word

    def hear(self, block: Block) -> None:
        if self.echo is not None:
            pcm, end = self.echo.clean(block.pcm, block.end, block.fresh)
            if not pcm and not block.fresh:
                return  # every frame waits for its reference
            block = Block(pcm, end, block.fresh)
            # A short word over the answer is voiced only briefly through what is left of
            # the echo: a shorter onset while the assistant speaks (barge_in.OVER_THE_ECHO).
            self.turns.set_onset(self.barge_ins.min_speech(self.min_speech))
        if self.wake_word is not None:
            block = self.wake_word.hear(block)
        self.turns.hear(block)
        closed = self.gate.push.take_closed()
        if closed is not None:
            reason, follow_up = closed
            self.bus.publish(
                ListenClosed(reason=reason, follow_up=follow_up, turn=self.turns.take_woken())
            )

    async def follow_monitor(self, blocks: AsyncIterator[Block]) -> None:
        """The output's monitor recorded beside the mic: the canceller's reference."""
        assert self.echo is not None
        async for block in blocks:
            self.echo.monitored(block.pcm, block.end, block.fresh)

    def played(self, msg: Played) -> None:
        """The speaker's audio as it played: the reference when no monitor is recorded."""
        if self.echo is not None and not self.echo.monitor:
            self.echo.played(msg.pcm, msg.start)
