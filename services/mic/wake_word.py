"""What the wake word does once the detector (``services/mic/wake.py``) hears it: it
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
from services.mic.barge_in import BargeIns
from services.mic.earcon import Earcon
from services.mic.gate import Gate
from services.mic.sources import Block
from services.mic.turns import Turns
from services.mic.wake import WakeDetector

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

    def hear(self, block: Block) -> None:
        if block.fresh:
            self.detector.reset()
        if self.detector.hear(block.pcm):
            self._heard(block.end)

    def _heard(self, heard: float) -> None:
        turn = new_id()
        if self.gate.speaking:
            if not self.barge_ins.by_word(heard, turn):
                return
        elif not self.gate.on_wake(heard):
            log.info("wake word heard while deaf or already listening: ignored")
            return
        self.turns.woke(turn)
        log.info("turn %s: wake word heard", turn)
        self.bus.publish(WakeWordHeard(word=self.detector.word, heard=heard, turn=turn))
        if self.earcon is not None:
            self.earcon.play()
