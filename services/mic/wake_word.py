"""What the wake word does once the detector (``hearing/wake.py``) hears it: it
interrupts the assistant while it speaks, or opens the mic, and either way starts the
turn of the question that follows (``WakeWordHeard``, and the earcon).

The detector hears every block, even while the mic is deaf or closed: nothing it
hears leaves the process before the word.
"""

from __future__ import annotations

import logging

from bus.client import Bus
from bus.message import new_id
from bus.messages import WakeWordHeard
from hearing.wake import RATE, WakeDetector, after_word
from services.mic.barge_in import BargeIns
from services.mic.earcon import Earcon
from services.mic.gate import Gate
from services.mic.sources import Block
from services.mic.turns import Turns

log = logging.getLogger(__name__)


class WakeWord:
    def __init__(
        self, bus: Bus, detector: WakeDetector, earcon: Earcon | None, gate: Gate,
        barge_ins: BargeIns, turns: Turns,
    ) -> None:
        self.bus = bus
        self.detector = detector
        self.earcon = earcon
        self.gate = gate
        self.barge_ins = barge_ins
        self.turns = turns
        self.recent = bytearray()
        """The latest ``detector.after_search`` of audio: a question said in the same breath
        as the word has started in it before the word is detected."""

    def reset(self) -> None:
        """Forget what was heard: the detector heard nothing while the mode was not wake,
        and audio from before must not join the next block's."""
        self.detector.reset()
        self.recent.clear()

    def hear(self, block: Block) -> Block:
        """Hear ``block``; returns what of it the turns hear: after a detection, the audio
        since the end of the word (from before this block, too)."""
        if block.fresh:
            self.detector.reset()
            self.recent.clear()
        self.recent += block.pcm
        keep = 2 * round(self.detector.after_search * RATE)
        del self.recent[: max(0, len(self.recent) - keep)]
        if self.detector.hear(block.pcm) and self._heard(block.end):
            return Block(after_word(bytes(self.recent)), block.end, block.fresh)
        return block

    def _heard(self, heard: float) -> bool:
        turn = new_id()
        if self.gate.speaking:
            if not self.barge_ins.by_word(heard, turn):
                return False
        elif not self.gate.on_wake(heard):
            log.info("wake word heard while deaf or already listening: ignored")
            return False
        self.turns.woke(turn)
        log.info("turn %s: wake word heard", turn)
        self.bus.publish(WakeWordHeard(word=self.detector.word, heard=heard, turn=turn))
        if self.earcon is not None:
            self.earcon.play()
        return True
