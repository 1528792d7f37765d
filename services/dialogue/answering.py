"""One turn from its request to its Reply, top to bottom.

The session's queue, then the work a barge-in may cancel (a pending yes or no
decides first, then a prepared answer, a local intent, the LLM), then the
Reply and the trace mark. Voice and typed turns both end here
(``services/dialogue/voice.py`` and the service's text handler start them).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace

from bus.client import Bus
from bus.messages import Reply, TraceMark
from services.dialogue.barge_in import CutOffs, cut_off
from services.dialogue.confirmation import Asked, Confirmations, said
from services.dialogue.history import Sessions
from services.dialogue.intents.local import LocalTurns
from services.dialogue.intents.yes_no import is_short, yes_or_no
from services.dialogue.llm import LLMClient
from services.dialogue.reachability import Reachability
from services.dialogue.requests import Requests
from services.dialogue.resumption import Resumptions
from services.dialogue.settings import TurnSettings
from services.dialogue.speculation import Prepared, discard
from services.dialogue.timing import Waits
from services.dialogue.toolbox import Toolbox
from services.dialogue.turn import UNREACHABLE, ServerDown, Turn, TurnRequest, TurnResult

log = logging.getLogger(__name__)

DOWN_CONNECT = 1.5
"""Seconds a turn waits to connect while the LLM server is known to be down: a refused
connection fails at once, an address that drops packets must not hold the user long."""


@dataclass(frozen=True)
class Answerers:
    """What a turn is answered with: the LLM and its tools, or a local intent."""

    settings: TurnSettings
    llm: LLMClient
    toolbox: Toolbox
    local: LocalTurns
    reachability: Reachability


@dataclass(frozen=True)
class TurnState:
    """What outlives a turn: the history, a held yes-or-no question, the turns a barge-in
    may cut off or a resumption cancel, and the typed requests awaiting their Reply."""

    sessions: Sessions
    confirmations: Confirmations
    cut_offs: CutOffs
    resumptions: Resumptions
    requests: Requests


class Answering:
    def __init__(self, bus: Bus, answerers: Answerers, state: TurnState) -> None:
        self.bus = bus
        self.by = answerers
        self.state = state

    def new_turn(self, request: TurnRequest, waits: Waits, speculative: bool = False) -> Turn:
        down = DOWN_CONNECT if self.by.reachability.reachable is False else None
        return Turn(
            request,
            bus=self.bus,
            settings=self.by.settings,
            llm=self.by.llm,
            toolbox=self.by.toolbox,
            sessions=self.state.sessions,
            waits=waits,
            speculative=speculative,
            down=ServerDown(down, self.by.local.instead()),
        )

    def speculative_turn(self, request: TurnRequest) -> Turn:
        return self.new_turn(request, Waits(), speculative=True)

    async def run(self, request: TurnRequest, prepared: Prepared | None = None) -> None:
        """Answer ``request`` (with ``prepared``, its answer started on the STT's guess)."""
        waits = prepared.turn.waits if prepared is not None else Waits()
        sessions = self.state.sessions
        lock = sessions.lock(request.session)
        try:
            with waits.waiting("queue"):
                await lock.acquire()
            try:
                result = await self._cancellable(request, prepared, waits)
                await sessions.saved(request.session)
            finally:
                lock.release()
            self._reply(request, result)
        finally:
            self.state.requests.drop(request.request_id)  # no-op once answered

    async def _cancellable(
        self, request: TurnRequest, prepared: Prepared | None, waits: Waits
    ) -> TurnResult:
        """The turn, which a barge-in may cancel: the history then keeps the heard part."""
        work = asyncio.ensure_future(self._answer(request, prepared, waits))
        if not request.local:
            return await work
        cut_offs = self.state.cut_offs
        cut_offs.started(request.turn, request.session, request.text, work)
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not work.cancelled() or (task is not None and task.cancelling()):
                raise  # the service stops
            if self.state.resumptions.was_cancelled(request.turn):  # its question goes on
                return TurnResult("", [], None, waits, asked_llm=False)
            heard = await cut_offs.heard(request.turn)
            self.state.sessions.remember(request.session, request.text, cut_off(heard))
            return TurnResult(heard, [], None, waits, asked_llm=False)
        finally:
            cut_offs.ended(request.turn)

    async def _answer(
        self, request: TurnRequest, prepared: Prepared | None, waits: Waits
    ) -> TurnResult:
        asked = self.state.confirmations.take(request.session)
        if asked is not None:
            if prepared is not None:
                discard(self.bus, prepared, "an action waits for a yes or a no")
            return self._held(await self._answer_asked(asked, request, waits))
        if prepared is not None and not prepared.answers(request, self.state.sessions):
            discard(self.bus, prepared, "the history changed meanwhile")
            prepared = None
        if prepared is not None:
            prepared.turn.confirm()
            return self._held(await prepared.turn.run(prepared.task))
        return self._held(await self._fresh(request, waits))

    async def _fresh(self, request: TurnRequest, waits: Waits) -> TurnResult:
        return await self.by.local.run(request, waits) or await self.new_turn(request, waits).run()

    def _held(self, result: TurnResult) -> TurnResult:
        if result.asked is not None:
            self.state.confirmations.hold(result.asked)
        return result

    async def _answer_asked(self, asked: Asked, request: TurnRequest, waits: Waits) -> TurnResult:
        """The session's next turn after a question about an action: only its own words
        decide. Yes runs the held calls; no, or a second answer that is neither, cancels;
        a new question cancels and is answered."""
        verdict, lang = yes_or_no(request.text), asked.lang
        self.bus.publish(TraceMark(stage="confirm.answer", detail=verdict or "unclear",
                                   turn=request.turn))
        if verdict == "yes":
            log.info("turn %s: yes (%r) to %s", request.turn, request.text, asked.tools)
            return await self.new_turn(request, waits).resume(asked, request.text)
        if verdict == "no":
            return self.new_turn(request, waits).say_only(said("declined", lang))
        if is_short(request.text):
            if asked.times < 2:
                again = replace(asked, turn=request.turn, times=asked.times + 1)
                text = f"{said('again', lang)} {asked.question}"
                return self.new_turn(request, waits).say_only(text, asked=again)
            return self.new_turn(request, waits).say_only(said("gave_up", lang))
        log.info("turn %s: a new question; %s cancelled", request.turn, asked.tools)
        return await self._fresh(replace(request, preface=said("dropped", lang)), waits)

    def _reply(self, request: TurnRequest, result: TurnResult) -> None:
        reply = Reply(
            reply_to=request.request_id,
            session=request.session,
            text=result.conversation,
            control=result.control,
            error=result.error,
            turn=request.turn,
            confirmation=result.asked.question if result.asked is not None else "",
        )
        for addressed in self.state.requests.finish(reply):
            self.bus.publish(addressed)
        self.bus.publish(
            TraceMark(stage="turn.done", detail=result.waits.summary(), turn=request.turn)
        )
        if not result.asked_llm:
            return
        if result.error in UNREACHABLE:
            self.by.reachability.report(result.error)
        elif result.error is None or result.error.startswith("llm"):
            self.by.reachability.report("ok")  # the server answered
