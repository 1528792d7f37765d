"""Answering before the question is final: the first LLM round on the STT's guess.

While the end-of-speech window runs, the STT service publishes what it
heard so far (``SpeculativeTranscript``). The first LLM round starts on that
text at once; the sentences it streams go to the audio side as speculative
``SpeakRequest`` pieces, which the TTS synthesizes but does not play. When the turn's
final ``Transcript`` has the same text and language, and the session's
history has not changed meanwhile, the answer is confirmed
(``Speculation(confirmed=True)``): the TTS plays what it has ready and the
turn goes on as any other (tools, more rounds, history). Otherwise the work
is dropped (``Speculation(confirmed=False)``) and the turn runs from the
final text. A speculative round never runs a tool (its calls wait for the
confirmation), never writes history, and publishes its trace marks only once
confirmed. Voice turns come one at a time, so there is at most one
speculation: a guess or a transcript of another turn drops it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Protocol

from bus.client import Bus
from bus.messages import Speculation
from services.dialogue.history import Sessions
from services.dialogue.turn import Round, Turn, TurnRequest
from services.dialogue.wording import same_words

log = logging.getLogger(__name__)

RECENT = 32
"""Turns whose final transcript has come: a late guess for one of them is ignored."""


class Timer(Protocol):
    def cancel(self) -> None: ...


Later = Callable[[float, Callable[[], None]], Timer]
"""Calls back after so many seconds: the event loop's ``call_later``, or a test's clock
(a prepared answer's expiry is seconds away, too long for a test to wait)."""


def loop_later(delay: float, callback: Callable[[], None]) -> Timer:
    return asyncio.get_running_loop().call_later(delay, callback)


class Prepared:
    """One voice turn's first round, started on a guess."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.task: asyncio.Task[Round] = asyncio.ensure_future(turn.first_round())
        self.task.add_done_callback(_consume)
        self.expiry: Timer | None = None

    @property
    def request(self) -> TurnRequest:
        return self.turn.req

    def answers(self, request: TurnRequest, sessions: Sessions) -> bool:
        """Is this the answer to ``request`` (the final question), on today's history?"""
        failed = self.task.done() and (self.task.cancelled() or self.task.exception() is not None)
        return (
            same_question(self.request, request)
            and not failed
            and self.turn.version == sessions.version(request.session)
        )


def same_question(a: TurnRequest, b: TurnRequest) -> bool:
    """The same words of the same turn (but for case, punctuation or a trailing filler:
    ``services/dialogue/wording.py``), in the same language, with the same tools offered."""
    return (a.turn, a.lang, a.offer_volume) == (b.turn, b.lang, b.offer_volume) and same_words(
        a.text, b.text
    )


class Speculator:
    def __init__(
        self, bus: Bus, make_turn: Callable[[TurnRequest], Turn], expire_after: float,
        later: Later = loop_later,
    ) -> None:
        self.bus = bus
        self.make_turn = make_turn
        """A speculative Turn for a request (its history and tools as they are now)."""
        self.expire_after = expire_after
        self.later = later
        self.pending: Prepared | None = None
        self._finished: deque[str] = deque(maxlen=RECENT)

    def guess(self, request: TurnRequest, session_busy: bool) -> None:
        """The STT's guess for a voice turn: prepare its answer unless one is already under
        way for the same words. Not while another turn of the session runs (it may change
        the history the answer builds on)."""
        if request.turn in self._finished:
            return
        pending = self.pending
        if pending is not None:
            if same_question(pending.request, request):
                return
            self.drop("another guess")
        if session_busy:
            return
        prepared = self.pending = Prepared(self.make_turn(request))
        prepared.expiry = self.later(self.expire_after, lambda: self._expire(prepared))
        log.debug("turn %s: preparing the answer to %r", request.turn, request.text)

    def take(self, request: TurnRequest, sessions: Sessions) -> Prepared | None:
        """The final question: the prepared answer if it still answers it, else None (and
        whatever was prepared is dropped)."""
        self._finished.append(request.turn)
        pending = self.pending
        if pending is None:
            return None
        if not pending.answers(request, sessions):
            self.drop("the final question differs")
            return None
        self.pending = None
        if pending.expiry is not None:
            pending.expiry.cancel()
        return pending

    def drop(self, why: str, turn: str | None = None) -> None:
        """Drop the pending speculation (only if it is ``turn``'s, when given)."""
        pending = self.pending
        if pending is None or (turn is not None and pending.request.turn != turn):
            return
        self.pending = None
        discard(self.bus, pending, why)

    def _expire(self, prepared: Prepared) -> None:
        if self.pending is prepared:
            self.drop("no final transcript came")


def discard(bus: Bus, prepared: Prepared, why: str) -> None:
    """Stop the work and tell the audio side to forget what it holds for the turn."""
    if prepared.expiry is not None:
        prepared.expiry.cancel()
    prepared.task.cancel()
    turn = prepared.request.turn
    log.info("turn %s: prepared answer dropped (%s)", turn, why)
    if prepared.turn.speech.seq:
        bus.publish(Speculation(confirmed=False, turn=turn))


def _consume(task: asyncio.Task[Round]) -> None:
    """A dropped round nobody awaits must not log 'exception never retrieved'."""
    if not task.cancelled():
        task.exception()
