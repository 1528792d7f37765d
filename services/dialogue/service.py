"""The dialogue service: takes turns from transcripts and asks, answers each with a Reply."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import random
from dataclasses import replace
from pathlib import Path

from bus.client import Bus
from bus.errors import ErrorCode
from bus.liveness import Liveness
from bus.message import new_id
from bus.messages import (
    BargeIn,
    ClearHistoryRequest,
    Error,
    Heartbeat,
    HistoryCleared,
    Interrupted,
    ListenClosed,
    QuestionRequest,
    ReminderRequest,
    Reply,
    SpeakRequest,
    SpeculativeTranscript,
    Spoken,
    ToolCatalog,
    ToolCatalogRequest,
    ToolResult,
    TraceMark,
    Transcript,
    TurnDropped,
    VolumeState,
)
from services.base import Service
from services.dialogue.barge_in import CutOffs, cut_off, is_stop
from services.dialogue.confirmation import Asked, Confirmations, said
from services.dialogue.history import Sessions
from services.dialogue.history_store import HistoryStore
from services.dialogue.intents.local import LocalTurns
from services.dialogue.intents.yes_no import is_short, yes_or_no
from services.dialogue.llm import LLMClient
from services.dialogue.phrases import guess_lang
from services.dialogue.reachability import Reachability
from services.dialogue.requests import Requests, too_long
from services.dialogue.resumption import Resumptions
from services.dialogue.settings import DialogueSettings, dialogue_settings
from services.dialogue.speculation import Later, Prepared, Speculator, discard, loop_later
from services.dialogue.timing import Waits
from services.dialogue.toolbox import Toolbox
from services.dialogue.turn import UNREACHABLE, ServerDown, Turn, TurnRequest, TurnResult
from services.names import DIALOGUE, LOCAL_SESSION, SPEAKER, STT
from services.runner import nothing_to_check
from settings import Config, config_dir
from settings.state import state_dir

log = logging.getLogger(__name__)

AUDIO_FRESH = 3.0
"""Seconds since the speaker's last heartbeat for voice turns to offer ``adjust_volume``."""
REMEMBERED_REPLIES = 512
DOWN_CONNECT = 1.5
"""Seconds a turn waits to connect while the LLM server is known to be down: a refused
connection fails at once, an address that drops packets must not hold the user long."""
SPECULATION_MARGIN = 5.0
"""Seconds a prepared answer waits beyond the longest utterance for its final transcript."""


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request is noise
    config_file = config_dir(args.config) / "config.toml"
    settings = dialogue_settings(config)
    await DialogueService(bus, settings, config_file=config_file, state=state_dir()).run()


class DialogueService(Service):
    """Runs every turn as its own task; turns of one session wait for each other."""

    def __init__(
        self,
        bus: Bus,
        settings: DialogueSettings,
        llm: LLMClient | None = None,
        rng: random.Random | None = None,
        config_file: Path | None = None,
        state: Path | None = None,
        later: Later = loop_later,
    ) -> None:
        super().__init__(bus)
        self.settings = settings
        self.llm = llm or LLMClient(
            settings.llm, settings.model, settings.timeout, settings.api_key
        )
        self.reachability = Reachability(bus, self.llm.probe, self.llm.shown, config_file)
        self.liveness = Liveness()
        self.toolbox = Toolbox(bus, rng=rng, liveness=self.liveness)
        store = None
        if state is not None:  # the conversation survives a restart of the service
            store = HistoryStore(state / "history", on_corrupt=self._corrupt_history)
        self.sessions = Sessions(settings.history, store=store)
        self.cut_offs = CutOffs(self.sessions)
        self.resumptions = Resumptions()
        self.local = LocalTurns(
            bus, settings, self.toolbox, self.sessions, self.liveness, state
        )
        self.requests = Requests(REMEMBERED_REPLIES)
        self.confirmations = Confirmations()
        # A guess can only be confirmed by its final transcript, which comes at most an
        # utterance's length and a window after it.
        expire = settings.longest_utterance + SPECULATION_MARGIN
        self.speculator = Speculator(bus, self._speculative_turn, expire, later)

    async def on_start(self) -> None:
        self.bus.publish(ToolCatalogRequest())
        gc.freeze()  # start-up objects out of the collector's way: shorter pauses mid-turn
        log.info("dialogue: ready, LLM at %s", self.llm.shown)
        self.tasks.spawn(self.reachability.run())
        self.tasks.spawn(self.local.timers.run())

    async def on_stop(self) -> None:
        self.speculator.drop("shutting down")
        await self.tasks.close()  # the turns first: they use the LLM client and the store
        await self.llm.aclose()
        if self.sessions.store is not None:
            await asyncio.to_thread(self.sessions.store.close)

    def _heartbeat(self, msg: Heartbeat) -> None:
        self.liveness.saw(msg)

    def _catalog(self, msg: ToolCatalog) -> None:
        self.toolbox.update(msg)

    def _error(self, msg: Error) -> None:
        if msg.service == STT and msg.turn:
            self.speculator.drop("the STT failed", msg.turn)  # no final transcript will come
            self._ask_first_part(msg.turn)

    def _dropped(self, msg: TurnDropped) -> None:
        self._ask_first_part(msg.turn)

    def _ask_first_part(self, turn: str | None) -> None:
        """The speech that went on with a question brought no words: ask its first part."""
        first = self.resumptions.orphan(turn)
        if first is None or turn is None:
            return
        session, question = first
        log.info("turn %s: no words after all; asking %r alone", turn, question)
        lang = guess_lang(question, self.settings.lang)
        volume = self.liveness.alive(SPEAKER, within=AUDIO_FRESH)
        request = TurnRequest(turn, turn, session, question, lang, local=True, offer_volume=volume)
        self.tasks.spawn(self._turn(request))

    def _clear_request(self, msg: ClearHistoryRequest) -> None:
        self.tasks.spawn(self._clear(msg))

    def _remind(self, msg: ReminderRequest) -> None:
        self.bus.publish(self.local.remind(msg))

    def _voice_request(self, msg: Transcript | SpeculativeTranscript) -> TurnRequest | None:
        text = self.resumptions.text(msg.turn, msg.text.strip())
        if not text:
            log.info("ignored an empty transcript")
            return None
        turn = msg.turn or new_id()
        volume = self.liveness.alive(SPEAKER, within=AUDIO_FRESH)
        lang = msg.lang or self.settings.lang
        return TurnRequest(turn, turn, LOCAL_SESSION, text, lang, local=True, offer_volume=volume)

    def _voice_turn(self, msg: Transcript) -> None:
        if msg.purpose != "turn":
            log.info("turn %s: a %s-only transcript, not a question", msg.turn, msg.purpose)
            return
        if is_stop(msg.text):
            self.resumptions.finish(msg.turn)  # "stop" after a question: no answer at all
        request = self._voice_request(msg)
        self.resumptions.finish(msg.turn)
        if self.resumptions.absorbs(msg.turn, request):
            assert request is not None
            self.speculator.drop("the user went on with it", msg.turn)
            self.bus.publish(Reply(reply_to=request.request_id, session=request.session,
                                   text="", turn=request.turn))
            return
        if request is None:
            self.speculator.drop("an empty transcript", msg.turn)
            return
        if is_stop(request.text):  # the barge-in stopped the speech; this is no question
            log.info("turn %s: a stop phrase (%r), no answer", request.turn, request.text)
            self.speculator.drop("a stop phrase", msg.turn)
            self.bus.publish(Reply(reply_to=request.request_id, session=request.session,
                                   text="", turn=request.turn))
            return
        self.tasks.spawn(self._turn(request, self.speculator.take(request, self.sessions)))

    def _guess(self, msg: SpeculativeTranscript) -> None:
        if not self.settings.speculative or msg.turn is None:
            return
        if self.confirmations.waiting(LOCAL_SESSION):  # the answer is a yes or a no
            return
        request = self._voice_request(msg)
        if request is None or is_stop(request.text):  # a stop phrase gets no answer at all
            return
        if not self.local.answers(request):  # no LLM round for it
            busy = self.sessions.lock(request.session).locked()
            self.speculator.guess(request, busy)

    def _speculative_turn(self, request: TurnRequest) -> Turn:
        return self._new_turn(request, Waits(), speculative=True)

    def _new_turn(self, request: TurnRequest, waits: Waits, speculative: bool = False) -> Turn:
        return Turn(
            request,
            bus=self.bus,
            settings=self.settings.turn,
            llm=self.llm,
            toolbox=self.toolbox,
            sessions=self.sessions,
            waits=waits,
            speculative=speculative,
            down=ServerDown(
                DOWN_CONNECT if self.reachability.reachable is False else None,
                self.local.instead(),
            ),
        )

    def _text_turn(self, msg: QuestionRequest) -> None:
        refused = too_long(msg, self.settings.lang)  # before anything reads the text
        if refused is not None:
            log.warning(
                "request %s of %s refused: %d characters", msg.request_id or msg.id,
                msg.session, len(msg.text),
            )
            self.bus.publish(refused)
            return
        now = self.requests.answer_now(msg)
        if now is not None:
            log.info(
                "request %s of %s asked again: %s",
                msg.request_id or msg.id,
                msg.session,
                now.error or "same reply again",
            )
            self.bus.publish(now)
            return
        if self.requests.join(msg):
            return  # its Reply is on the way
        text = msg.text.strip()
        if not text:
            self.bus.publish(
                Reply(
                    reply_to=msg.id,
                    session=msg.session,
                    text="",
                    error=ErrorCode.EMPTY_QUESTION,
                    turn=msg.turn,
                )
            )
            return
        lang = msg.lang or guess_lang(text, self.settings.lang)
        request = TurnRequest(
            msg.turn or msg.id,
            msg.id,
            msg.session,
            text,
            lang,
            local=False,
            offer_volume=msg.client_type == "voice",
        )
        self.requests.begin(msg)
        self.tasks.spawn(self._turn(request))

    async def _turn(self, request: TurnRequest, prepared: Prepared | None = None) -> None:
        waits = prepared.turn.waits if prepared is not None else Waits()
        lock = self.sessions.lock(request.session)
        try:
            with waits.waiting("queue"):
                await lock.acquire()
            try:
                result = await self._cancellable(request, prepared, waits)
                await self.sessions.saved(request.session)
            finally:
                lock.release()
            self._answer(request, result)
        finally:
            self.requests.drop(request.request_id)  # no-op once answered

    async def _cancellable(
        self, request: TurnRequest, prepared: Prepared | None, waits: Waits
    ) -> TurnResult:
        """The turn, which a barge-in may cancel: the history then keeps the heard part."""
        work = asyncio.ensure_future(self._answering(request, prepared, waits))
        if not request.local:
            return await work
        self.cut_offs.started(request.turn, request.session, request.text, work)
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not work.cancelled() or (task is not None and task.cancelling()):
                raise  # the service stops
            if self.resumptions.was_cancelled(request.turn):  # its question goes on
                return TurnResult("", [], None, waits, asked_llm=False)
            heard = await self.cut_offs.heard(request.turn)
            self.sessions.remember(request.session, request.text, cut_off(heard))
            return TurnResult(heard, [], None, waits, asked_llm=False)
        finally:
            self.cut_offs.ended(request.turn)

    async def _answering(
        self, request: TurnRequest, prepared: Prepared | None, waits: Waits
    ) -> TurnResult:
        asked = self.confirmations.take(request.session)
        if asked is not None:
            if prepared is not None:
                discard(self.bus, prepared, "an action waits for a yes or a no")
            return self._held(await self._answer_asked(asked, request, waits))
        if prepared is not None and not prepared.answers(request, self.sessions):
            discard(self.bus, prepared, "the history changed meanwhile")
            prepared = None
        if prepared is not None:
            prepared.turn.confirm()
            return self._held(await prepared.turn.run(prepared.task))
        return self._held(
            await self.local.run(request, waits) or await self._new_turn(request, waits).run()
        )

    def _held(self, result: TurnResult) -> TurnResult:
        if result.asked is not None:
            self.confirmations.hold(result.asked)
        return result

    async def _answer_asked(
        self, asked: Asked, request: TurnRequest, waits: Waits
    ) -> TurnResult:
        """The session's next turn after a question about an action: only its own words
        decide. Yes runs the held calls; no, or a second answer that is neither, cancels;
        a new question cancels and is answered."""
        verdict, lang = yes_or_no(request.text), asked.lang
        self.bus.publish(TraceMark(stage="confirm.answer", detail=verdict or "unclear",
                                   turn=request.turn))
        if verdict == "yes":
            log.info("turn %s: yes (%r) to %s", request.turn, request.text, asked.tools)
            return await self._new_turn(request, waits).resume(asked, request.text)
        if verdict == "no":
            return self._new_turn(request, waits).say_only(said("declined", lang))
        if is_short(request.text):
            if asked.times < 2:
                again = replace(asked, turn=request.turn, times=asked.times + 1)
                text = f"{said('again', lang)} {asked.question}"
                return self._new_turn(request, waits).say_only(text, asked=again)
            return self._new_turn(request, waits).say_only(said("gave_up", lang))
        log.info("turn %s: a new question; %s cancelled", request.turn, asked.tools)
        request = replace(request, preface=said("dropped", lang))
        return await self.local.run(request, waits) or await self._new_turn(request, waits).run()

    def _barge_in(self, msg: BargeIn) -> None:
        if msg.reason == "wake":  # a new request; an answer said over the question counts
            self.confirmations.cancel(LOCAL_SESSION, "the wake word", turn=msg.interrupted)
        if not self.resumptions.resumed(msg, self.cut_offs.asked):
            self.cut_offs.barge_in(msg)
            return
        finished = self.cut_offs.cancel(msg.interrupted)
        if finished is not None:  # answered already, not yet heard: forget the exchange
            self.resumptions.cancelled.discard(msg.interrupted)  # no cancellation to come
            self.sessions.withdraw(*finished)

    def _listen_closed(self, msg: ListenClosed) -> None:
        """The mic opened after a question about an action heard nothing: cancel it."""
        if msg.reason != "timeout" or not msg.follow_up:
            return
        asked = self.confirmations.cancel(LOCAL_SESSION, "no answer while the mic was open")
        if asked is not None:
            self.bus.publish(SpeakRequest(text=said("expired", asked.lang), lang=asked.lang,
                                          kind="announce", final=True, turn=new_id()))

    def _interrupted(self, msg: Interrupted) -> None:
        self.cut_offs.interrupted(msg)

    def _answer(self, request: TurnRequest, result: TurnResult) -> None:
        reply = Reply(
            reply_to=request.request_id,
            session=request.session,
            text=result.conversation,
            control=result.control,
            error=result.error,
            turn=request.turn,
            confirmation=result.asked.question if result.asked is not None else "",
        )
        for addressed in self.requests.finish(reply):
            self.bus.publish(addressed)
        self.bus.publish(
            TraceMark(stage="turn.done", detail=result.waits.summary(), turn=request.turn)
        )
        if not result.asked_llm:
            return
        if result.error in UNREACHABLE:
            self.reachability.report(result.error)
        elif result.error is None or result.error.startswith("llm"):
            self.reachability.report("ok")  # the server answered

    def _corrupt_history(self, path: Path, problem: str, aside: Path) -> None:
        message = f"{path} is unreadable ({problem}); set aside as {aside.name}, starting afresh"
        self.bus.publish(Error(service=DIALOGUE, code=ErrorCode.HISTORY_CORRUPT, message=message))

    async def _clear(self, msg: ClearHistoryRequest) -> None:
        async with self.sessions.lock(msg.session):
            self.confirmations.cancel(msg.session, "the history was cleared")
            self.sessions.clear(msg.session)
            await self.sessions.saved(msg.session)
        log.info("history of session %s cleared", msg.session)
        self.bus.publish(HistoryCleared(reply_to=msg.id, session=msg.session, turn=msg.turn))

    HANDLERS = {
        Heartbeat: _heartbeat,
        ToolCatalog: _catalog,
        Transcript: _voice_turn,
        SpeculativeTranscript: _guess,
        Error: _error,
        TurnDropped: _dropped,
        QuestionRequest: _text_turn,
        ClearHistoryRequest: _clear_request,
        ReminderRequest: _remind,
        BargeIn: _barge_in,
        Interrupted: _interrupted,
        ListenClosed: _listen_closed,
    }
    AWAITED = frozenset({ToolResult, VolumeState, Spoken})
    """A tool's result (its call waits), the speaker's answer to a turn's volume controls
    (its turn waits) and a played piece (a timer's or reminder's announcement waits)."""


start = nothing_to_check(serve)
"""Nothing to check before the bus: every check is in :func:`serve`."""
