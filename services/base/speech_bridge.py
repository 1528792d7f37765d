"""What the Wyoming server and the satellites both ask of the assistant over the bus:
its speech to text and its voices, with answers back to whoever asked; which voice
speaks which language; and the mic's wake word.

Speech to text goes as an :class:`Utterance` of purpose ``transcribe`` with a
turn id of its own: the STT answers with a Transcript (or a TurnDropped when it
heard no words, or an Error), and the dialogue leaves that transcript alone.
Text to speech goes as a :class:`SynthesizeRequest`; the speaker answers with
:class:`TtsAudio` chunks instead of playing them.

Shared here, not in either service: a service never imports another. And here, in the
shared service base (``services/base/``), not in a core such as ``network/``: it is bus
code, a :class:`services.base.service.Service` that sends on the bus and subscribes to
the answers, and the cores hold no bus code.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import TYPE_CHECKING

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
from services.base.service import Service
from settings.schema import Config, WakeConfig

if TYPE_CHECKING:
    from hearing.wake import WakeDetector

log = logging.getLogger(__name__)

RATE = 16000
"""What the STT takes: 16 kHz mono PCM16."""


class BridgeError(Exception):
    """A service on the bus failed or did not answer; the text goes to the client."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.code = code


class SpeechBridge(Service):
    """Sends the requests onto the bus and hands each answer to its asker."""

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


def voice_languages(config: Config) -> dict[str, list[str]]:
    """Each ``[voice.*]`` key with the languages it speaks (``en`` and ``en-us``)."""
    return {
        key: list(dict.fromkeys([key, table.lang.lower()]))
        for key, table in config.voice.items()
    }


def wake_factory(config: WakeConfig) -> Callable[[], WakeDetector] | None:
    """A new wake word detector per stream (each keeps its stream's state), or None
    when the mic's wake word is not installed here (the model must load)."""
    try:
        from hearing.wake import open_wake

        open_wake(config)
    except Exception as exc:  # not installed, or the model cannot load: no wake word
        log.info("no wake word (%s)", exc)
        return None
    return functools.partial(open_wake, config)
