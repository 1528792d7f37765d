"""The satellites' side of the bus: speech to text and voices as the Wyoming server asks
for them (the shared ``services.speech_bridge``), and questions to the dialogue in each
satellite's own session.

A satellite's question is a text turn of client type ``voice`` (so the model may
change the volume) in the session named after the satellite: its history stays
its own. The dialogue streams the answer's text as :class:`TextPiece`\\ s and ends
with a :class:`Reply`; nothing of it goes to this machine's speaker.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from bus.messages import QuestionRequest, Reply, TextPiece
from services.speech_bridge import BridgeError, SpeechBridge

__all__ = ["BridgeError", "SatelliteBridge"]


class SatelliteBridge(SpeechBridge):
    """Asks for every satellite; each answer goes to the link that asked."""

    async def ask(self, site: str, text: str, lang: str | None,
                  turn: str) -> AsyncGenerator[TextPiece | Reply, None]:
        """The answer's text as it streams, then its :class:`Reply`; the turn id is the
        question's id, so both pieces and reply carry it."""
        question = QuestionRequest(id=turn, turn=turn, site=site, session=site, text=text,
                                   client_type="voice", lang=lang)
        with self._asking(turn, question) as answers:
            while True:
                answer = await self._next(answers, "dialogue")
                if not isinstance(answer, TextPiece | Reply):
                    continue  # another service's error for this turn: the Reply still comes
                yield answer
                if isinstance(answer, Reply):
                    return

    def _text(self, msg: TextPiece) -> None:
        self._answer(msg.turn, msg)

    def _reply(self, msg: Reply) -> None:
        self._answer(msg.reply_to, msg)

    HANDLERS = {**SpeechBridge.HANDLERS, TextPiece: _text, Reply: _reply}
