"""Turns answered without the LLM: a recognized request, or any request when none may be asked.

``[intents] mode``: ``prefer`` answers what the templates recognize here and the rest
with the LLM, unless no LLM is configured (``llm = ""``: then as ``only``); a server
that is configured but down is still asked (one just started answers; a refused
connection costs nothing), and its apology is followed by what the assistant can do
instead, as ``only`` says it; ``only`` never asks the LLM and says what it can do
instead; ``off`` leaves every turn to the LLM. A local answer is spoken, and
remembered in the history like any other, so a later LLM turn sees it; a trace mark
``intent`` names what answered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from bus.client import Bus
from bus.liveness import Liveness
from bus.messages import ReminderRequest, ReminderSet, TraceMark, VolumeRequest
from services.base.phrases import language
from services.dialogue.history import Sessions
from services.dialogue.intents.announcer import Announcer
from services.dialogue.intents.handlers import BUILT_IN, Handlers, LocalAnswer
from services.dialogue.intents.phrases import phrase, with_instead
from services.dialogue.intents.recognizer import Match, Recognizer
from services.dialogue.intents.timers import MAX_TIMERS, Timers, TimersFull, reminder_problem
from services.dialogue.settings import DialogueSettings
from services.dialogue.speech import Speech
from services.dialogue.timing import Waits
from services.dialogue.toolbox import Toolbox
from services.dialogue.turn import TurnRequest, TurnResult

log = logging.getLogger(__name__)

NO_MATCH = "none"
"""The trace mark's detail for a turn nothing recognized and no LLM may answer."""


class LocalTurns:
    def __init__(
        self,
        bus: Bus,
        settings: DialogueSettings,
        toolbox: Toolbox,
        sessions: Sessions,
        liveness: Liveness,
        state: Path | None,
    ) -> None:
        self.bus, self.sessions, self.liveness = bus, sessions, liveness
        self.mode = settings.intents
        self.lang = settings.lang
        self.has_llm = bool(settings.llm.strip())
        langs = [settings.lang, *settings.langs]
        self.recognizer = Recognizer(langs, set(BUILT_IN)) if self.mode != "off" else None
        announcer = Announcer(bus, liveness)
        self.timers = Timers(state / "timers.json" if state else None, announcer.ring)
        self.handlers = Handlers(self.timers, toolbox)

    def llm_allowed(self) -> bool:
        """A configured server is asked even when the last check found none: that check
        is up to a few seconds old (a server just started would be refused), and failing
        costs one refused connection, with an apology that says where to start one."""
        if self.mode == "off":
            return True
        return self.mode == "prefer" and self.has_llm

    def instead(self) -> Callable[[str, str], str] | None:
        """What follows an apology for an unreachable LLM: in ``prefer`` mode, what the
        assistant can still do (as ``only`` says); with intents off, nothing."""
        return with_instead if self.mode == "prefer" else None

    def match(self, request: TurnRequest) -> Match | None:
        """The question's own language first, then the others loaded (a typed question
        carries no language)."""
        if self.recognizer is None:
            return None
        langs = dict.fromkeys([request.lang.split("-")[0], *self.recognizer.langs])
        return next(
            (m for lang in langs if (m := self.recognizer.recognize(request.text, lang))), None
        )

    def answers(self, request: TurnRequest) -> bool:
        """Whether :meth:`run` answers ``request`` (then no LLM round may start on it)."""
        return not self.llm_allowed() or self.match(request) is not None

    async def run(self, request: TurnRequest, waits: Waits) -> TurnResult | None:
        """The turn answered locally, or None: it is the LLM's."""
        found = self.match(request)
        if found is None and self.llm_allowed():
            return None
        self.bus.publish(
            TraceMark(stage="intent", detail=found.intent if found else NO_MATCH, turn=request.turn)
        )
        lang = found.lang if found else request.lang
        if found is None:
            answer = LocalAnswer(with_instead(phrase("only_these", lang), lang))
        else:
            answer = await self.handlers.answer(found, request.turn)
        speech = Speech(self.bus, request.turn, lang, request.local)
        if answer.volume is not None and request.local:
            self.bus.publish(VolumeRequest(action="set", value=answer.volume, turn=request.turn))
        speech.control(answer.control)
        if request.preface:
            speech.say(request.preface, kind="announce")
        speech.finish(answer.text)
        said = await speech.said_instead() or answer.text
        self.sessions.remember(request.session, request.text, said)
        return TurnResult(said, answer.control, None, waits, asked_llm=False)

    def remind(self, msg: ReminderRequest) -> ReminderSet:
        """Keep a reminder with the timers (``desktop-assistant remind``, a tool that calls it);
        the answer names it, or says why not."""
        problem = reminder_problem(msg.at, msg.text, time.time())
        if problem is None:
            try:
                reminder = self.timers.remind(msg.at, msg.text.strip(),
                                              language(msg.lang or self.lang))
            except TimersFull:
                problem = f"{MAX_TIMERS} timers and reminders are kept already"
        if problem is not None:
            log.info("reminder refused: %s", problem)
            return ReminderSet(reply_to=msg.id, problem=problem, turn=msg.turn)
        when = datetime.fromtimestamp(reminder.ends).isoformat(" ", "seconds")
        log.info("reminder %s set for %s", reminder.id, when)
        return ReminderSet(reply_to=msg.id, reminder=reminder.id, turn=msg.turn)
