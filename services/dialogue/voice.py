"""A voice turn from the mic's words to :class:`Answering`: the STT's guess starts the
answer early, a question the user went on with waits for the rest, a stop phrase or an
empty transcript asks nothing, a barge-in cancels what it interrupts.

Everything that decides what a transcript asks is here, in the order a turn meets it;
the service only routes the messages (``services/dialogue/service.py``).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any

from bus.client import Bus
from bus.liveness import Liveness
from bus.message import new_id
from bus.messages import (
    BargeIn,
    ListenClosed,
    Reply,
    SpeakRequest,
    SpeculativeTranscript,
    SpeechResumed,
    Transcript,
)
from services.base.names import LOCAL_SESSION, SPEAKER
from services.dialogue.answering import Answering
from services.dialogue.barge_in import is_stop
from services.dialogue.confirmation import said
from services.dialogue.phrases import guess_lang
from services.dialogue.settings import DialogueSettings
from services.dialogue.speculation import Later, Speculator, loop_later
from services.dialogue.turn import TurnRequest

log = logging.getLogger(__name__)

AUDIO_FRESH = 3.0
"""Seconds since the speaker's last heartbeat for voice turns to offer ``adjust_volume``."""
SPECULATION_MARGIN = 5.0
"""Seconds a prepared answer waits beyond the longest utterance for its final transcript."""
REMEMBERED = 16
"""Turns whose latest resumption is kept (voice turns come one at a time)."""

Spawn = Callable[[Coroutine[Any, Any, None]], object]


class VoiceTurns:
    def __init__(
        self,
        bus: Bus,
        settings: DialogueSettings,
        answering: Answering,
        liveness: Liveness,
        spawn: Spawn,
        later: Later = loop_later,
    ) -> None:
        self.bus, self.settings, self.answering = bus, settings, answering
        self.liveness, self.spawn = liveness, spawn
        self.state = answering.state
        self.resumptions = self.state.resumptions
        # A guess can only be confirmed by its final transcript, which comes at most an
        # utterance's length and a window after it.
        expire = settings.longest_utterance + SPECULATION_MARGIN
        self.speculator = Speculator(bus, answering.speculative_turn, expire, later)
        self.resumed: OrderedDict[str, float] = OrderedDict()
        """Turn → when its speech last went on after a pause: an earlier guess is stale."""

    def guess(self, msg: SpeculativeTranscript) -> None:
        """The STT's guess while the user may still speak: start the answer's first round."""
        if not self.settings.speculative or msg.turn is None:
            return
        resumed = self.resumed.get(msg.turn)
        if resumed is not None and msg.speech_end <= resumed:  # the user went on since
            return
        if self.state.confirmations.waiting(LOCAL_SESSION):  # the answer is a yes or a no
            return
        request = self._request(msg)
        if request is None or is_stop(request.text):  # a stop phrase gets no answer at all
            return
        if not self.answering.by.local.answers(request):  # no LLM round for it
            busy = self.state.sessions.lock(request.session).locked()
            self.speculator.guess(request, busy)

    def speech_resumed(self, msg: SpeechResumed) -> None:
        """The user went on speaking after the pause the pending guess was made at: its
        answer will not be the one (the final question has more words), and synthesizing
        it would hold the CPU that the transcription of the whole question needs."""
        if msg.turn is None:
            return
        self.resumed[msg.turn] = msg.resumed_at
        self.resumed.move_to_end(msg.turn)
        while len(self.resumed) > REMEMBERED:
            self.resumed.popitem(last=False)
        self.speculator.drop("the user went on speaking", msg.turn)

    def transcript(self, msg: Transcript) -> None:
        """The final words of a voice turn: answer them, or say why there is nothing to."""
        if msg.purpose != "turn":
            log.info("turn %s: a %s-only transcript, not a question", msg.turn, msg.purpose)
            return
        if is_stop(msg.text):
            self.resumptions.finish(msg.turn)  # "stop" after a question: no answer at all
        request = self._request(msg)
        self.resumptions.finish(msg.turn)
        if self.resumptions.absorbs(msg.turn, request):
            assert request is not None
            self.speculator.drop("the user went on with it", msg.turn)
            self._no_answer(request)
            return
        if request is None:
            self.speculator.drop("an empty transcript", msg.turn)
            return
        if is_stop(request.text):  # the barge-in stopped the speech; this is no question
            log.info("turn %s: a stop phrase (%r), no answer", request.turn, request.text)
            self.speculator.drop("a stop phrase", msg.turn)
            self._no_answer(request)
            return
        prepared = self.speculator.take(request, self.state.sessions)
        self.spawn(self.answering.run(request, prepared))

    def no_words(self, turn: str | None, why: str | None = None) -> None:
        """The speech of ``turn`` brought no transcript (the STT dropped it, or failed): a
        question it went on with is asked alone."""
        if why is not None:
            self.speculator.drop(why, turn)  # no final transcript will come
        first = self.resumptions.orphan(turn)
        if first is None or turn is None:
            return
        session, question = first
        log.info("turn %s: no words after all; asking %r alone", turn, question)
        lang = guess_lang(question, self.settings.lang)
        request = TurnRequest(turn, turn, session, question, lang, local=True,
                              offer_volume=self._volume())
        self.spawn(self.answering.run(request))

    def barge_in(self, msg: BargeIn) -> None:
        confirmations, cut_offs = self.state.confirmations, self.state.cut_offs
        if msg.reason == "wake":  # a new request; an answer said over the question counts
            confirmations.cancel(LOCAL_SESSION, "the wake word", turn=msg.interrupted)
        if not self.resumptions.resumed(msg, cut_offs.asked):
            cut_offs.barge_in(msg)
            return
        finished = cut_offs.cancel(msg.interrupted)
        if finished is not None:  # answered already, not yet heard: forget the exchange
            self.resumptions.cancelled.discard(msg.interrupted)  # no cancellation to come
            self.state.sessions.withdraw(*finished)

    def listen_closed(self, msg: ListenClosed) -> None:
        """The mic opened after a question about an action heard nothing: cancel it."""
        if msg.reason != "timeout" or not msg.follow_up:
            return
        asked = self.state.confirmations.cancel(LOCAL_SESSION, "no answer while the mic was open")
        if asked is not None:
            self.bus.publish(SpeakRequest(text=said("expired", asked.lang), lang=asked.lang,
                                          kind="announce", final=True, turn=new_id()))

    def _request(self, msg: Transcript | SpeculativeTranscript) -> TurnRequest | None:
        text = self.resumptions.text(msg.turn, msg.text.strip())
        if not text:
            log.info("ignored an empty transcript")
            return None
        turn = msg.turn or new_id()
        lang = msg.lang or self.settings.lang
        return TurnRequest(turn, turn, LOCAL_SESSION, text, lang, local=True,
                           offer_volume=self._volume())

    def _volume(self) -> bool:
        """Offer ``adjust_volume`` only while the speaker is alive to act on it."""
        return self.liveness.alive(SPEAKER, within=AUDIO_FRESH)

    def _no_answer(self, request: TurnRequest) -> None:
        self.bus.publish(Reply(reply_to=request.request_id, session=request.session,
                               text="", turn=request.turn))
