"""The mic opened on demand: the wake word (``[listen] mode = "wake"``) or push-to-talk
(``desktop-assistant listen``) opens it for one question; after the answer it stays open
for a follow-up question, unless the answer was empty and carried no control, which ends
the conversation.

Its deadlines are capture times of the audio; the times it opens from come after the
assistant's voice (the gate passes them in).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from settings.schema import ListenConfig

log = logging.getLogger(__name__)

CLOSED, OPEN, CAPTURING, AWAITING_REPLY = "closed", "open", "capturing", "awaiting reply"


@dataclass
class PushState:
    phase: str = CLOSED
    deadline: float = math.inf
    """OPEN: speech must start before this capture time; AWAITING_REPLY: the answer must come."""
    window: float = 0.0
    """OPEN: how long the mic waits for speech once the assistant is quiet."""
    turn: str | None = None
    follow_up: bool = False
    """OPEN: for a follow-up question (after an answer), not after the word or the key."""


class PushToTalk:
    def __init__(self, listen: ListenConfig) -> None:
        self.on_demand = listen.mode != "always"
        """The mic opens on demand (the wake word or push-to-talk) and closes again."""
        self.listen = listen
        self.state = PushState()
        self.closed: tuple[str, bool] | None = None
        """Why the opened mic closed, and whether it was open for a follow-up, until the
        listener takes it (:meth:`take_closed`) to report it on the bus."""

    def set_mode(self, mode: str) -> None:
        """The listen mode changed while the mic runs (``listen_mode.py``; ``listen.mode``
        keeps the one it started with). From ``always`` the mic is closed until the word or
        the key; to ``always`` what an opened mic waited for no longer matters. Between
        ``wake`` and ``push`` an open conversation goes on: only the way in differs."""
        self.on_demand = mode != "always"
        if not self.on_demand:
            self.state = PushState()

    def is_open(self) -> bool:
        """Whether the mic is open for a question or hears one."""
        return self.state.phase in (OPEN, CAPTURING)

    def awaits_reply(self) -> bool:
        """Whether the mic only waits for the answer (and the rest of the question)."""
        return self.on_demand and self.state.phase == AWAITING_REPLY

    def expire(self, now: float) -> None:
        """Close the mic when a deadline has passed. The gate asks only while the assistant
        is quiet: no deadline passes while it speaks."""
        phase = self.state.phase
        if phase in (OPEN, AWAITING_REPLY) and now > self.state.deadline:
            log.info("%s timed out; the mic is closed", phase)
            self.close("timeout")

    def open(self, window: float, start: float, follow_up: bool = False) -> None:
        """Open for speech that starts within ``window`` of ``start``."""
        self.state = PushState(OPEN, start + window, window, follow_up=follow_up)

    def close(self, reason: str) -> None:
        self.closed = (reason, self.state.follow_up)
        self.state = PushState()

    def take_closed(self) -> tuple[str, bool] | None:
        """Why the opened mic closed since the last call, and whether it was open for a
        follow-up; None if it did not."""
        closed, self.closed = self.closed, None
        return closed

    def on_listen(self, start: float) -> None:
        """``desktop-assistant listen``: open for one question."""
        if not self.on_demand:
            log.info("listen request ignored: [listen] mode is always")
            return
        log.info("push-to-talk: listening")
        self.open(self.listen.timeout, start)

    def on_wake(self, start: float) -> bool:
        """The wake word: open for one question, unless the mic already hears one. Returns
        whether it opened."""
        if self.state.phase in (OPEN, CAPTURING) and not self.state.follow_up:
            return False
        log.info("wake word: listening")
        self.open(self.listen.timeout, start)
        return True

    def wait_from(self, quiet: float) -> None:
        """The assistant is quiet from ``quiet`` on: the wait for speech starts then."""
        if self.state.phase == OPEN:
            self.state.deadline = max(self.state.deadline, quiet + self.state.window)

    def restart_wait(self, quiet: float) -> None:
        """The interrupted assistant is quiet from ``quiet`` on: the wait starts again then."""
        if self.state.phase == OPEN:
            self.state.deadline = quiet + self.state.window

    def lose_capture(self, start: float) -> None:
        """The assistant speaks: the utterance being captured is lost (the mic goes deaf);
        listen again later."""
        if self.state.phase == CAPTURING:
            self.open(self.state.window, start)

    def reopen_for_rest(self) -> None:
        """Speech goes on with the question: open for the rest of it."""
        if self.awaits_reply():
            self.state = PushState(OPEN, math.inf, self.listen.timeout)

    def on_speech_started(self, turn: str) -> None:
        if self.on_demand and self.state.phase == OPEN:
            self.state = PushState(CAPTURING, math.inf, self.state.window, turn)

    def on_utterance(self, turn: str, now: float) -> None:
        """The final utterance of ``turn`` went out: the mic waits for its answer."""
        if self.on_demand and self.state.phase == CAPTURING and self.state.turn == turn:
            self.state = PushState(AWAITING_REPLY, now + self.listen.reply_timeout, 0.0, turn)

    def on_reply(
        self, turn: str, conversation: str, control: bool, failed: bool, start: float
    ) -> None:
        """The answer to ``turn``: empty and without control ends the conversation; so
        does a failed turn. The control rule comes first: an empty answer with a
        control (a volume change) is a silent success, and the talk goes on."""
        if not self.awaits_reply() or self.state.turn != turn:
            return
        if failed or (not conversation.strip() and not control):
            why = "the turn failed" if failed else "empty answer"
            log.info("%s, the conversation ends", why)
            self.close("ended")
            return
        log.info("open %.1f s for a follow-up question", self.listen.follow_up)
        self.open(self.listen.follow_up, start, follow_up=True)

    def on_error(self, turn: str) -> None:
        """The turn failed (the user heard why): the conversation ends."""
        if self.awaits_reply() and self.state.turn == turn:
            self.close("ended")
