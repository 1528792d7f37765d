"""The Wyoming server's side of the bus: an utterance to the STT, text to the TTS, and
their answers back to the client that asked.

Speech to text goes as an :class:`Utterance` of purpose ``transcribe`` with a
turn id of its own: the STT answers with a Transcript (or a TurnDropped when it
heard no words, or an Error), and the dialogue leaves that transcript alone.
Text to speech goes as a :class:`SynthesizeRequest`; the speaker answers with
:class:`TtsAudio` chunks instead of playing them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Iterator

from bus.client import Bus
from bus.errors import ErrorCode
from bus.message import Message, new_id
from bus.messages import (
    Error,
    SynthesizeRequest,
    Transcript,
    TtsAudio,
    TurnDropped,
    Utterance,
)
from services.base import Service

RATE = 16000
"""What the STT takes: 16 kHz mono PCM16."""


class BridgeError(Exception):
    """A service on the bus failed or did not answer; the text goes to the client."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.code = code


class WyomingBridge(Service):
    """Sends the clients' requests onto the bus and hands each answer to its asker."""

    def __init__(self, bus: Bus, timeout: float) -> None:
        super().__init__(bus)
        self.timeout = timeout
        self.waiting: dict[str, asyncio.Queue[Message]] = {}
        """Answers by what they answer: the turn of an utterance, the id of a request."""

    async def transcribe(self, pcm: bytes, turn: str | None = None,
                         site: str | None = None) -> Transcript | None:
        """The text of ``pcm`` (16 kHz mono PCM16), or None when the STT heard no words."""
        turn = turn or new_id()
        utterance = Utterance(pcm=pcm, rate=RATE, duration=len(pcm) / 2 / RATE,
                              speech_end=time.time(), purpose="transcribe", turn=turn, site=site)
        with self._asking(turn, utterance) as answers:
            answer = await self._next(answers, "speech to text")
        if isinstance(answer, Error):
            raise BridgeError(f"speech to text failed: {answer.message}", answer.code)
        return answer if isinstance(answer, Transcript) else None

    async def synthesize(self, text: str, lang: str, turn: str | None = None,
                         site: str | None = None) -> AsyncGenerator[TtsAudio, None]:
        """The audio of ``text`` in the voice of ``lang``, chunk by chunk, until the last."""
        request = SynthesizeRequest(text=text, lang=lang, turn=turn, site=site)
        with self._asking(request.id, request) as answers:
            while True:
                answer = await self._next(answers, "text to speech")
                assert isinstance(answer, TtsAudio)
                if answer.final and answer.error:
                    raise BridgeError(f"text to speech failed: {answer.error}",
                                      ErrorCode.TTS_SYNTHESIS_FAILED)
                yield answer
                if answer.final:
                    return

    @contextlib.contextmanager
    def _asking(self, key: str, request: Message) -> Iterator[asyncio.Queue[Message]]:
        """Publish ``request``; its answers come to the queue while this lasts."""
        queue: asyncio.Queue[Message] = asyncio.Queue()
        self.waiting[key] = queue
        try:
            self.bus.publish(request)
            yield queue
        finally:
            del self.waiting[key]

    async def _next(self, answers: asyncio.Queue[Message], what: str) -> Message:
        try:
            async with asyncio.timeout(self.timeout):
                return await answers.get()
        except TimeoutError:
            raise BridgeError(f"the {what} service did not answer within {self.timeout:g} s",
                              "timeout") from None

    def _answer(self, key: str | None, msg: Message) -> None:
        queue = self.waiting.get(key or "")
        if queue is not None:
            queue.put_nowait(msg)

    def _transcribed(self, msg: Transcript | TurnDropped | Error) -> None:
        self._answer(msg.turn, msg)

    def _audio(self, msg: TtsAudio) -> None:
        self._answer(msg.reply_to, msg)

    HANDLERS = {
        Transcript: _transcribed,
        TurnDropped: _transcribed,
        Error: _transcribed,
        TtsAudio: _audio,
    }
