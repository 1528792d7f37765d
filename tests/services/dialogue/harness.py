"""The dialogue service in this process, on a real broker, with a scripted LLM and executor."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.message import Message, new_id
from bus.messages import (
    ActionRequest,
    Heartbeat,
    QuestionRequest,
    Reply,
    SpeakRequest,
    SpeculativeTranscript,
    TraceMark,
    Transcript,
    VolumeState,
)
from services.base.names import DIALOGUE, SPEAKER, TOOLS
from services.dialogue.service import DialogueService
from services.dialogue.settings import dialogue_settings
from services.dialogue.speculation import Later, loop_later
from settings import Config
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.helpers.tool_executor import Result, ScriptedExecutor, tool

M = TypeVar("M", bound=Message)


@dataclass
class TurnRecord:
    """Everything the service published for one turn, in order."""

    reply: Reply
    messages: list[Message] = field(default_factory=list)

    def of(self, kind: type[M]) -> list[M]:
        return [m for m in self.messages if isinstance(m, kind)]

    @property
    def says(self) -> list[SpeakRequest]:
        return self.of(SpeakRequest)

    @property
    def spoken(self) -> list[str]:
        """Texts of the answer pieces, without the empty final marker."""
        return [s.text for s in self.says if s.kind == "answer" and s.text]

    def stages(self) -> list[str]:
        return [m.stage for m in self.of(TraceMark)]


class Harness:
    def __init__(
        self,
        endpoints: Endpoints,
        llm_url: str,
        *,
        tools: list[dict[str, Any]] | None = None,
        results: dict[str, Result] | None = None,
        tool_rounds: int = 3,
        history: int = 20,
        timeout: float = 10.0,
        model: str = "test-model",
        barrier: int = 1,
        speculative: bool = True,
        intents: str = "off",
        later: Later = loop_later,
        state: Path | None = None,
    ) -> None:
        self.endpoints = endpoints
        self.state = state
        """The state folder (timers, history); None: nothing is kept on disk."""
        self.later = later
        self.barrier = barrier
        self.tools = tools
        self.results = results or {}
        self.settings = dialogue_settings(
            Config.model_validate(
                {
                    "llm": llm_url,
                    "system": "You are a test.",
                    "tool_rounds": tool_rounds,
                    "dialogue": {
                        "model": model, "history": history, "timeout": timeout,
                        "speculative": speculative,
                    },
                    # The LLM's path by default: most questions here would match a template.
                    "intents": {"mode": intents},
                }
            )
        )
        self.seen: list[Message] = []
        self.said_instead: str | None = None
        """What the speaker says instead of a voice turn's answer after its controls ("":
        the answer); None: no speaker answers them."""
        self._buses: list[Bus] = []
        self._tasks: list[asyncio.Task[None]] = []

    def _bus(self, name: str) -> Bus:
        bus = Bus(self.endpoints, name)
        self._buses.append(bus)
        return bus

    async def __aenter__(self) -> Harness:
        self.client = self._bus("test")
        self.client.subscribe(
            "tts.say",
            "control.action",
            "dialogue.reply",
            "dialogue.cleared",
            "dialogue.reminded",
            "dialogue.speculation",
            "trace.mark",
            "sys.error",
        )
        await self.client.wait_connected()
        speaker = self._bus(SPEAKER)
        speaker.subscribe(ActionRequest.TOPIC)
        await speaker.wait_connected()
        self._tasks.append(asyncio.ensure_future(self._answer_controls(speaker)))
        if self.tools is not None:
            self.executor = ScriptedExecutor(
                self._bus(TOOLS), self.tools, self.results, self.barrier
            )
            await self.executor.start()
            self._tasks.append(asyncio.ensure_future(self.executor.serve()))
        dialogue_bus = self._bus(DIALOGUE)
        self.service = DialogueService(
            dialogue_bus, self.settings, rng=random.Random(7), later=self.later, state=self.state
        )
        self._tasks.append(asyncio.ensure_future(self.service.run()))
        # degraded: the start-up check found no LLM server (some tests have none)
        await until(lambda: dialogue_bus.state in ("ready", "degraded"), what="dialogue ready")
        await self.client.wait_path(dialogue_bus)
        if self.tools:
            names = {t["name"] for t in self.tools}
            await until(lambda: self.service.toolbox.names(False) == names, what="catalog")
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for bus in self._buses:
            await bus.close()

    async def next(self, kind: type[M], match: Callable[[M], bool] = lambda m: True) -> M:
        """The next message of ``kind`` that matches, reading (and keeping) all before it."""
        deadline = time.monotonic() + 15
        while True:
            msg = await self.client.recv(timeout=max(0.0, deadline - time.monotonic()))
            if msg is None:
                raise TimeoutError(f"no {kind.__name__} arrived")
            self.seen.append(msg)
            if isinstance(msg, kind) and match(msg):
                return msg

    def record(self, turn: str, reply: Reply) -> TurnRecord:
        return TurnRecord(reply, [m for m in self.seen if m.turn == turn and m is not reply])

    async def reply(self, turn: str) -> TurnRecord:
        reply = await self.next(Reply, lambda r: r.turn == turn)
        return self.record(turn, reply)

    def say(self, text: str, lang: str = "en", turn: str | None = None) -> str:
        """Publish a transcript (a voice turn); returns its turn id."""
        turn = turn or new_id()
        self.client.publish(Transcript(text=text, lang=lang, turn=turn))
        return turn

    def guess(
        self, text: str, turn: str | None = None, lang: str = "en", speech_end: float = 0.0
    ) -> str:
        """Publish the STT's guess of a voice turn (before its transcript); returns the turn."""
        turn = turn or new_id()
        self.client.publish(
            SpeculativeTranscript(text=text, lang=lang, speech_end=speech_end, turn=turn)
        )
        return turn

    async def voice(self, text: str, lang: str = "en") -> TurnRecord:
        return await self.reply(self.say(text, lang))

    async def ask(
        self, text: str, session: str = "s1", client_type: str = "text", lang: str | None = None
    ) -> TurnRecord:
        request = QuestionRequest(session=session, text=text, client_type=client_type, lang=lang)
        self.client.publish(request)
        return await self.reply(request.id)  # a text turn's turn id is its request's id

    def audio_output_alive(self, said_instead: str = "") -> None:
        """A speaker's heartbeat (either TTS service beats under this one name); from now on
        it answers each voice turn's controls as the speaker does, saying ``said_instead``
        instead of the answer where not empty (a step past a limit)."""
        self.said_instead = said_instead
        self.client.publish(Heartbeat(service=SPEAKER, pid=1, state="ready", version="test"))

    async def _answer_controls(self, speaker: Bus) -> None:
        async for msg in speaker:
            if isinstance(msg, ActionRequest) and self.said_instead is not None:
                speaker.publish(VolumeState(volume=1.0, turn=msg.turn, reply_to=msg.id,
                                            said_instead=self.said_instead))


WEATHER = tool("weather", "Current weather.", {"place": "string"})
NOW = tool("now", "Date and time.")


def run(
    endpoints: Endpoints, llm: ScriptedLLM, body: Callable[[Harness], Awaitable[None]], **kw: Any
) -> None:
    async def main() -> None:
        async with Harness(endpoints, llm.url, **kw) as harness:
            await body(harness)

    asyncio.run(main())


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def assistant_calls(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [tc for m in request["messages"] if m.get("tool_calls") for tc in m["tool_calls"]]
