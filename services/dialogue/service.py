"""The dialogue service: takes turns from transcripts and asks, answers each with a Reply."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import random
from pathlib import Path

from bus.client import Bus
from bus.errors import ErrorCode
from bus.liveness import Liveness
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
    SpeculativeTranscript,
    SpeechResumed,
    Spoken,
    ToolCatalog,
    ToolCatalogRequest,
    ToolResult,
    Transcript,
    TurnDropped,
    VolumeState,
)
from services.base.names import DIALOGUE, STT
from services.base.runner import nothing_to_check
from services.base.service import Service
from services.dialogue.answering import Answerers, Answering, TurnState
from services.dialogue.barge_in import CutOffs
from services.dialogue.confirmation import Confirmations
from services.dialogue.history import Sessions
from services.dialogue.history_store import HistoryStore
from services.dialogue.intents.local import LocalTurns
from services.dialogue.llm import LLMClient
from services.dialogue.phrases import guess_lang
from services.dialogue.reachability import Reachability
from services.dialogue.requests import Requests, too_long
from services.dialogue.resumption import Resumptions
from services.dialogue.settings import DialogueSettings, dialogue_settings
from services.dialogue.speculation import Later, loop_later
from services.dialogue.toolbox import Toolbox
from services.dialogue.turn import TurnRequest
from services.dialogue.voice import VoiceTurns
from settings import Config, config_dir
from settings.state import state_dir

log = logging.getLogger(__name__)

REMEMBERED_REPLIES = 512


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request is noise
    config_file = config_dir(args.config) / "config.toml"
    settings = dialogue_settings(config)
    await DialogueService(bus, settings, config_file=config_file, state=state_dir()).run()


class DialogueService(Service):
    """Routes the messages: a voice turn's to :class:`VoiceTurns`, a typed question's to
    :meth:`_text_turn`; both are answered by :class:`Answering`, each turn its own task
    (turns of one session wait for each other)."""

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
        self.local = LocalTurns(
            bus, settings, self.toolbox, self.sessions, self.liveness, state
        )
        self.requests = Requests(REMEMBERED_REPLIES)
        self.answering = Answering(
            bus,
            Answerers(settings.turn, self.llm, self.toolbox, self.local, self.reachability),
            TurnState(self.sessions, Confirmations(), CutOffs(self.sessions), Resumptions(),
                      self.requests),
        )
        self.voice = VoiceTurns(bus, settings, self.answering, self.liveness,
                                self.tasks.spawn, later)

    async def on_start(self) -> None:
        self.bus.publish(ToolCatalogRequest())
        gc.freeze()  # start-up objects out of the collector's way: shorter pauses mid-turn
        log.info("dialogue: ready, LLM at %s", self.llm.shown)
        self.tasks.spawn(self.reachability.run())
        self.tasks.spawn(self.local.timers.run())

    async def on_stop(self) -> None:
        self.voice.speculator.drop("shutting down")
        await self.tasks.close()  # the turns first: they use the LLM client and the store
        await self.llm.aclose()
        if self.sessions.store is not None:
            await asyncio.to_thread(self.sessions.store.close)

    def _heartbeat(self, msg: Heartbeat) -> None:
        self.liveness.saw(msg)

    def _catalog(self, msg: ToolCatalog) -> None:
        self.toolbox.update(msg)

    def _voice_turn(self, msg: Transcript) -> None:
        self.voice.transcript(msg)

    def _guess(self, msg: SpeculativeTranscript) -> None:
        self.voice.guess(msg)

    def _speech_resumed(self, msg: SpeechResumed) -> None:
        self.voice.speech_resumed(msg)

    def _error(self, msg: Error) -> None:
        if msg.service == STT and msg.turn:
            self.voice.no_words(msg.turn, "the STT failed")

    def _dropped(self, msg: TurnDropped) -> None:
        self.voice.no_words(msg.turn)

    def _barge_in(self, msg: BargeIn) -> None:
        self.voice.barge_in(msg)

    def _interrupted(self, msg: Interrupted) -> None:
        self.answering.state.cut_offs.interrupted(msg)

    def _listen_closed(self, msg: ListenClosed) -> None:
        self.voice.listen_closed(msg)

    def _clear_request(self, msg: ClearHistoryRequest) -> None:
        self.tasks.spawn(self._clear(msg))

    def _remind(self, msg: ReminderRequest) -> None:
        self.bus.publish(self.local.remind(msg))

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
        self.tasks.spawn(self.answering.run(request))

    def _corrupt_history(self, path: Path, problem: str, aside: Path) -> None:
        message = f"{path} is unreadable ({problem}); set aside as {aside.name}, starting afresh"
        self.bus.publish(Error(service=DIALOGUE, code=ErrorCode.HISTORY_CORRUPT, message=message))

    async def _clear(self, msg: ClearHistoryRequest) -> None:
        async with self.sessions.lock(msg.session):
            self.answering.state.confirmations.cancel(msg.session, "the history was cleared")
            self.sessions.clear(msg.session)
            await self.sessions.saved(msg.session)
        log.info("history of session %s cleared", msg.session)
        self.bus.publish(HistoryCleared(reply_to=msg.id, session=msg.session, turn=msg.turn))

    HANDLERS = {
        Heartbeat: _heartbeat,
        ToolCatalog: _catalog,
        Transcript: _voice_turn,
        SpeculativeTranscript: _guess,
        SpeechResumed: _speech_resumed,
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
