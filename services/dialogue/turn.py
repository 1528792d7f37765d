"""One turn: streaming rounds with the LLM, tool calls in between, speech as the text streams."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import Error, Speculation, TraceMark
from services.base.names import DIALOGUE
from services.dialogue.confirmation import Asked, question
from services.dialogue.history import Sessions
from services.dialogue.llm import LLMClient, LLMError
from services.dialogue.phrases import apology
from services.dialogue.settings import TurnSettings
from services.dialogue.speech import Speech
from services.dialogue.textcalls import may_be_call, parse_text_calls
from services.dialogue.timing import Waits
from services.dialogue.toolbox import Toolbox
from services.dialogue.toolcalls import ToolCallAssembler, ToolCallRequest
from speaking.sentences import SentenceSplitter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnRequest:
    """A question to answer, from a transcript (voice) or an ask (text)."""

    turn: str
    request_id: str
    """The id its Reply answers: the QuestionRequest's id, or the turn id of a voice turn."""
    session: str
    text: str
    lang: str
    local: bool
    """Spoken on this machine: publish ``SpeakRequest`` and ``ActionRequest``."""
    offer_volume: bool
    """Offer ``adjust_volume``."""
    preface: str = ""
    """Said before the answer (that a held action was cancelled by this new question)."""


@dataclass
class TurnResult:
    conversation: str
    control: list[dict[str, Any]]
    error: str | None
    waits: Waits
    asked_llm: bool = True
    """False for a local answer: it says nothing about the LLM server's health."""
    asked: Asked | None = None
    """Calls that modify, held until the session's next turn says yes or no."""


@dataclass(frozen=True)
class ServerDown:
    """What a turn does about a server that may be down: ``connect`` bounds the wait for
    a connection (set while the server is known to be down: it is still asked, since one
    just started answers), and ``instead`` follows an apology for an unreachable server
    with what the assistant can do without one."""

    connect: float | None = None
    instead: Callable[[str, str], str] | None = None
    """(apology, language) → what is said: the apology and the local capabilities."""


UNREACHABLE = (ErrorCode.LLM_UNAVAILABLE, ErrorCode.LLM_LOADING)


@dataclass
class Round:
    content: str
    calls: list[ToolCallRequest]


class Turn:
    def __init__(
        self,
        req: TurnRequest,
        *,
        bus: Bus,
        settings: TurnSettings,
        llm: LLMClient,
        toolbox: Toolbox,
        sessions: Sessions,
        waits: Waits,
        speculative: bool = False,
        down: ServerDown = ServerDown(),
    ) -> None:
        self.req = req
        self.down = down
        self.bus, self.settings, self.llm, self.toolbox, self.sessions = (
            bus,
            settings,
            llm,
            toolbox,
            sessions,
        )
        self.speech = Speech(bus, req.turn, req.lang, req.local, speculative)
        self.held_marks: list[TraceMark] | None = [] if speculative else None
        """Trace marks of a speculative turn, published (with their times) if it is confirmed."""
        self.version = sessions.version(req.session)
        """The history this turn's answer is built on."""
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": settings.system},
            *sessions.messages(req.session),
            {"role": "user", "content": req.text},
        ]
        self.tools = toolbox.offered(req.offer_volume)
        self.splitter = SentenceSplitter()
        self.waits = waits
        self.answer: list[str] = []
        self.controls: list[dict[str, Any]] = []
        self.error: str | None = None
        self.announced = False
        self.ids: set[str] = set()
        if req.preface:
            self.speech.say(req.preface, kind="announce")

    async def first_round(self) -> Round:
        """The first LLM round: all of a turn that may run before its question is final. It
        speaks as the text streams and returns the tool calls without running any."""
        return await self._round(0)

    async def run(self, first: Awaitable[Round] | None = None) -> TurnResult:
        """The whole turn; ``first``: its first round, already started (a speculation)."""

        async def begin() -> tuple[Round, int]:
            return await (first if first is not None else self.first_round()), 0

        return await self._carry(begin())

    async def resume(self, asked: Asked, words: str) -> TurnResult:
        """Run the calls ``asked`` held, confirmed by the user's ``words``, and go on with
        the model from where it asked."""
        self.messages = asked.messages

        async def begin() -> tuple[Round, int]:
            await self._use_tools(self.messages, Round(asked.content, asked.calls), words)
            return await self._round(asked.round + 1), asked.round + 1

        return await self._carry(begin())

    def say_only(self, text: str, asked: Asked | None = None) -> TurnResult:
        """A turn that only says ``text`` (an answer to a held action), with no model."""
        self.speech.finish(text)
        self.sessions.remember(self.req.session, self.req.text, text)
        return TurnResult(text, [], None, self.waits, asked_llm=False, asked=asked)

    async def _carry(self, begin: Coroutine[Any, Any, tuple[Round, int]]) -> TurnResult:
        req = self.req
        try:
            result, number = await begin
            while result.calls and number < self.settings.tool_rounds:
                if self.toolbox.modifying(result.calls):
                    return await self._ask(result, number)
                await self._use_tools(self.messages, result)
                number += 1
                result = await self._round(number)
        except LLMError as exc:
            return self._failed(exc.code, exc.detail)
        except Exception as exc:  # a bug must cost one answer, not the service
            log.exception("turn %s failed", req.turn)
            return self._failed(ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        # The history keeps what was said: the speaker's phrase where it replaced the words,
        # and nothing for a turn that said nothing (an empty reply is no assistant message).
        conversation = await self.speech.said_instead() or " ".join(self.answer)
        if conversation:
            self.sessions.remember(req.session, req.text, conversation)
        return TurnResult(conversation, self.controls, self.error, self.waits)

    def confirm(self) -> None:
        """The question is final and the same: the audio side may play what it holds, and
        the pieces from now on are for real; the held trace marks go out (with their times)."""
        self.speech.speculative = False
        for mark in self.held_marks or []:
            self.bus.publish(mark)
        self.held_marks = None
        self.bus.publish(Speculation(confirmed=True, turn=self.req.turn))

    async def _round(self, number: int) -> Round:
        messages = self.messages
        tools = self.tools
        offer = tools if tools and number < self.settings.tool_rounds else None
        self._mark("llm.request", f"round {number}")
        assembler = ToolCallAssembler(self.ids)
        parts: list[str] = []
        held: bool | None = None  # None until the first visible character tells
        spoke = first = False
        finish = None
        async for delta in self.llm.stream(messages, offer, self.waits, self.down.connect):
            if not first:
                first = True
                self._mark("llm.first_token", f"round {number}")
            assembler.add(delta.tool_calls)
            finish = delta.finish_reason or finish
            if not delta.content:
                continue
            parts.append(delta.content)
            if held is None and "".join(parts).strip():
                held = bool(offer) and may_be_call("".join(parts))
            if not held:
                spoke = self._speak(delta.content, number) or spoke
        self._mark("llm.done", f"round {number} {finish or ''}".rstrip())
        content = "".join(parts).strip()
        calls = assembler.calls()
        if offer is None and calls:
            log.warning("turn %s: tool calls in the round without tools, ignored", self.req.turn)
            calls = []
        if offer and not calls and not spoke:
            calls = self._text_calls(content)
            if calls:
                self.splitter.discard()
                content = ""
        if held and calls:
            content = ""  # call-shaped text beside real calls is not for the user
        elif held:
            self._speak(content, number)
        rest = self.splitter.flush()
        if calls:
            if rest:
                self.speech.say(rest)
        else:
            self.speech.finish(rest)
        if content:
            self.answer.append(content)
        return Round(content, calls)

    async def _ask(self, result: Round, number: int) -> TurnResult:
        """Run none of the round's calls: ask the user, and hold the round for their yes."""
        asked_text = question(result.calls, self.toolbox.specs, self.req.lang)
        self.speech.finish(asked_text)
        self._mark("confirm.ask", ", ".join(self.toolbox.modifying(result.calls)))
        conversation = " ".join([*self.answer, asked_text])
        self.sessions.remember(self.req.session, self.req.text, conversation)
        asked = Asked(
            self.req.session, self.req.turn, list(self.messages), result.content, result.calls,
            number, asked_text, self.req.lang, self.toolbox.modifying(result.calls),
        )
        return TurnResult(conversation, self.controls, self.error, self.waits, asked=asked)

    def _speak(self, text: str, number: int) -> bool:
        self.speech.show(text, number)
        sentences = self.splitter.feed(text)
        for sentence in sentences:
            self.speech.say(sentence)
        return bool(sentences)

    def _text_calls(self, content: str) -> list[ToolCallRequest]:
        """A reply that is only a tool call written as text becomes that call."""
        found = parse_text_calls(content, self.toolbox.names(self.req.offer_volume))
        if not found:
            return []
        log.info("turn %s: the model wrote %d tool call(s) as text", self.req.turn, len(found))
        assembler = ToolCallAssembler(self.ids)
        assembler.add(
            [
                {"index": i, "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(found)
            ]
        )
        return assembler.calls()

    async def _use_tools(
        self, messages: list[dict[str, Any]], result: Round, confirmed_by: str = ""
    ) -> None:
        if not self.announced:
            phrase = self.toolbox.announcement(result.calls, self.req.lang)
            if phrase:
                self.speech.say(phrase, kind="announce")
                self.announced = True
        messages.append(
            {
                "role": "assistant",
                "content": result.content,
                "tool_calls": [call.message() for call in result.calls],
            }
        )
        with self.waits.waiting("tools"):
            outcomes = await asyncio.gather(
                *(
                    self.toolbox.run(call, self.req.turn, self.req.offer_volume,
                                     confirmed_by, self.req.session)
                    for call in result.calls
                )
            )
        controls = []
        for call, outcome in zip(result.calls, outcomes, strict=True):
            messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
            if outcome.control is not None:
                controls.append(outcome.control)
            if outcome.unavailable:
                self.error = ErrorCode.TOOLS_UNAVAILABLE
        self.controls.extend(controls)
        self.speech.control(controls)

    def _failed(self, code: str, detail: str) -> TurnResult:
        log.warning("turn %s: %s: %s", self.req.turn, code, detail)
        self._mark("llm.error" if code.startswith("llm") else "turn.error", detail[:200])
        self.bus.publish(Error(service=DIALOGUE, code=code, message=detail, turn=self.req.turn))
        self.splitter.discard()  # half a sentence is worse than none
        text = apology(code, self.req.lang, self.llm.base_url)
        if code in UNREACHABLE and self.down.instead is not None:
            text = self.down.instead(text, self.req.lang)
        self.speech.finish(text, kind="error")
        return TurnResult(text, self.controls, code, self.waits)

    def _mark(self, stage: str, detail: str = "") -> None:
        mark = TraceMark(stage=stage, detail=detail, turn=self.req.turn)
        if self.held_marks is not None:
            self.held_marks.append(mark)
        else:
            self.bus.publish(mark)
