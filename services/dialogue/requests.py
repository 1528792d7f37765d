"""Text questions answered once per (session, request id), whoever asks again.

The dialogue keeps this rule, not only the brain: the brain forgets its answers when it
restarts, and another session may then send the same request id. Keyed by the session as
well, two sessions never see each other's answers.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from bus.errors import ErrorCode
from bus.messages import QuestionRequest, Reply
from services.base.phrases import apology

MAX_QUESTION = 8000
"""The longest question a text turn may ask, in characters. Every text route ends here (the
brain's ``/ask`` and ``/v1/chat/completions``, ``desktop-assistant ask``, a satellite), so
this one check holds for all of them: a longer question is refused before anything reads it
(100,000 characters went to the LLM whole; 3.9 M froze the dialogue for 2.4 s)."""

Key = tuple[str, str]
"""(session, request id)."""
Question = tuple[str, str]
"""(text, client type): what a repeat must ask again to get the same answer."""


def key_of(msg: QuestionRequest) -> Key:
    return (msg.session, msg.request_id or msg.id)


def _question(msg: QuestionRequest) -> Question:
    return (msg.text, msg.client_type)


def too_long(msg: QuestionRequest, lang: str) -> Reply | None:
    """The refusal of a question longer than :data:`MAX_QUESTION`; None for one that is not.
    A text client reads what is wrong; a voice client (a satellite) hears the apology."""
    if len(msg.text) <= MAX_QUESTION:
        return None
    said = (
        apology(ErrorCode.QUESTION_TOO_LONG, msg.lang or lang)[0]
        if msg.client_type == "voice"
        else f"the question is {len(msg.text):,} characters long, more than the "
        f"{MAX_QUESTION:,} the assistant reads: ask it in fewer words"
    )
    refusal = Reply(
        reply_to="", session=msg.session, text=said, error=ErrorCode.QUESTION_TOO_LONG
    )
    return _addressed(refusal, msg)


def _addressed(reply: Reply, msg: QuestionRequest) -> Reply:
    """``reply`` as the answer to ``msg``: its waiter matches on ``reply_to``."""
    return Reply(
        reply_to=msg.id,
        session=reply.session,
        text=reply.text,
        control=reply.control,
        error=reply.error,
        turn=msg.turn or msg.id,
        confirmation=reply.confirmation,
    )


@dataclass
class _Running:
    question: Question
    askers: dict[str, QuestionRequest] = field(default_factory=dict)
    """By message id: a message resent as it was is one asker."""


class Requests:
    """The questions running and the last ``remembered`` successful answers."""

    def __init__(self, remembered: int) -> None:
        self.remembered = remembered
        self._done: OrderedDict[Key, tuple[Question, Reply]] = OrderedDict()
        self._running: dict[Key, _Running] = {}
        self._keys: dict[str, Key] = {}
        """Message id of the asker that started a question -> its key."""

    def running(self) -> int:
        """How many questions are being answered."""
        return len(self._running)

    def answer_now(self, msg: QuestionRequest) -> Reply | None:
        """The reply for a repeat (the kept answer) or a reuse (``request-reused``); None
        for a question to run or to join."""
        key = key_of(msg)
        done = self._done.get(key)
        running = self._running.get(key)
        asked = done[0] if done is not None else running.question if running else None
        if asked is not None and asked != _question(msg):
            refusal = Reply(
                reply_to="", session=msg.session, text="", error=ErrorCode.REQUEST_REUSED
            )
            return _addressed(refusal, msg)
        return _addressed(done[1], msg) if done is not None else None

    def join(self, msg: QuestionRequest) -> bool:
        """True when the same question is running already: ``msg`` gets its answer too."""
        running = self._running.get(key_of(msg))
        if running is None:
            return False
        running.askers[msg.id] = msg
        return True

    def begin(self, msg: QuestionRequest) -> None:
        key = key_of(msg)
        self._running[key] = _Running(_question(msg), {msg.id: msg})
        self._keys[msg.id] = key

    def finish(self, reply: Reply) -> list[Reply]:
        """The answer to everyone who asked the question ``reply`` answers; kept if it
        succeeded (a failed question may be asked again)."""
        key = self._keys.pop(reply.reply_to or "", None)
        running = self._running.pop(key, None) if key is not None else None
        if key is None or running is None:
            return [reply]
        if reply.error is None:
            self._done[key] = (running.question, reply)
            while len(self._done) > self.remembered:
                self._done.popitem(last=False)
        return [_addressed(reply, asker) for asker in running.askers.values()]

    def drop(self, request_id: str) -> None:
        """Forget a question that ended without an answer (a bug stopped its turn)."""
        key = self._keys.pop(request_id, None)
        if key is not None:
            self._running.pop(key, None)
