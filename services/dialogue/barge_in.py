"""Barge-in on the dialogue's side: the interrupted turn is cancelled, and the history keeps
only the part of its answer the user heard, marked as cut off.

The speaker answers every ``BargeIn`` with ``Interrupted`` (the text played).
A turn still running (the LLM streaming, a tool running) is cancelled: a tool
may finish, its result is not used; the turn then remembers the question and
the heard part. A turn that had finished (its whole answer remembered while
the audio still played) has its last exchange replaced by the heard part.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from bus.messages import BargeIn, Interrupted
from services.dialogue.history import Sessions

log = logging.getLogger(__name__)

ANSWER_WAIT = 2.0
"""Seconds a cancelled turn waits for the speaker to say what was heard (it answers within
a fade when it runs); without it the history keeps none of the answer."""
REMEMBERED = 64
STOP_PHRASES = {
    "en": ("stop", "stop it", "stop talking", "be quiet", "quiet", "enough", "shut up"),
    "it": ("stop", "basta", "fermati", "silenzio", "zitto", "zitta", "smettila"),
    "ja": ("ストップ", "止めて", "とめて", "やめて", "止まって", "静かに", "もういい"),
}
"""Short phrases that only stop the assistant: they are no question."""


def cut_off(played: str) -> str:
    """The assistant message for an answer cut off after ``played`` (what the user heard)."""
    played = played.strip()
    if not played:
        return "[interrupted by the user before any of the answer was heard]"
    return f"{played}… [interrupted by the user: the rest of the answer was not heard]"


def is_stop(text: str) -> bool:
    """``text`` is a stop phrase in any of the languages (Whisper may take a one-word "stop"
    for another language, so every list is tried)."""
    bare = text.strip().strip(".!?。！？、,").strip().lower()
    return any(bare == phrase for phrases in STOP_PHRASES.values() for phrase in phrases)


class CutOffs:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.running: dict[str, asyncio.Task[object]] = {}
        """Voice turns running, by turn id (what a barge-in cancels)."""
        self.asked: OrderedDict[str, tuple[str, str]] = OrderedDict()
        """Recent voice turns: turn id → (session, question)."""
        self.answers: dict[str, asyncio.Future[Interrupted]] = {}

    def started(self, turn: str, session: str, text: str, task: asyncio.Task[object]) -> None:
        self.running[turn] = task
        self.asked[turn] = (session, text)
        while len(self.asked) > REMEMBERED:
            self.asked.popitem(last=False)

    def ended(self, turn: str) -> None:
        self.running.pop(turn, None)

    def barge_in(self, msg: BargeIn) -> None:
        turn = msg.interrupted
        if not turn or turn not in self.asked:
            return
        self.answers[turn] = asyncio.get_running_loop().create_future()
        task = self.running.get(turn)
        if task is not None and not task.done():
            log.info("turn %s: interrupted by the user (%s), cancelling it", turn, msg.reason)
            task.cancel()

    def cancel(self, turn: str) -> tuple[str, str] | None:
        """Cancel ``turn`` quietly, for a resumption: nothing of it is remembered, and what
        the speaker reports of it is not awaited. Returns its (session, question) if the
        turn had already finished (its exchange is in the history), else None."""
        session_question = self.asked.pop(turn, None)
        task = self.running.get(turn)
        if task is not None and not task.done():
            task.cancel()
            return None
        return session_question

    def interrupted(self, msg: Interrupted) -> None:
        turn = msg.turn or ""
        answer = self.answers.get(turn)
        if answer is not None and not answer.done():
            answer.set_result(msg)  # the cancelled turn takes it (see ``heard``)
        task = self.running.get(turn)
        if turn in self.asked and (task is None or (task.done() and not task.cancelled())):
            self.answers.pop(turn, None)
            session, question = self.asked[turn]
            if self.sessions.amend(session, question, cut_off(msg.played)):
                log.info("turn %s: the history keeps the heard part: %r", turn, msg.played[:80])

    async def heard(self, turn: str) -> str:
        """For a cancelled turn: the text the user heard of its answer."""
        answer = self.answers.get(turn)
        if answer is None:
            return ""
        try:
            return (await asyncio.wait_for(answer, ANSWER_WAIT)).played
        except TimeoutError:
            log.warning("turn %s: the speaker did not say what was heard", turn)
            return ""
        finally:
            self.answers.pop(turn, None)
