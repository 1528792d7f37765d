"""What a turn sends to the audio side: ``SpeakRequest`` pieces in order, ``ActionRequest``s.

Only turns spoken on this machine (voice turns from the mic) publish them;
for text turns and remote clients the same calls only collect nothing.
"""

from __future__ import annotations

from typing import Any

from bus.client import Bus
from bus.messages import ActionRequest, SpeakRequest


class Speech:
    def __init__(self, bus: Bus, turn: str, lang: str, local: bool, speculative: bool = False):
        self._bus = bus
        self.turn = turn
        self.lang = lang
        self.local = local
        self.speculative = speculative
        """Pieces are sent as speculative (held by the audio side) until this turns False."""
        self.seq = 0
        self.finished = False

    def say(self, text: str, kind: str = "answer") -> None:
        self._send(text, kind, final=False)

    def finish(self, text: str = "", kind: str = "answer") -> None:
        """The last piece of the turn (possibly empty): the audio side knows the turn is over."""
        if not self.finished:
            self._send(text, kind, final=True)
            self.finished = True

    def control(self, actions: list[dict[str, Any]]) -> None:
        if self.local and actions:
            self._bus.publish(ActionRequest(actions=actions, lang=self.lang, turn=self.turn))

    def _send(self, text: str, kind: str, final: bool) -> None:
        if not self.local:
            return
        self._bus.publish(
            SpeakRequest(text=text, lang=self.lang, kind=kind, seq=self.seq, final=final,
                         turn=self.turn, speculative=self.speculative)
        )
        self.seq += 1
