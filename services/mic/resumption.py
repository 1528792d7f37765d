"""The question that new speech may still go on with: a turn that ended at a pause
mid-sentence is not answered in two when the user speaks on moments later, before any of
its answer is heard (``docs/listening.md``; the dialogue asks the two parts as one)."""

from __future__ import annotations

import math

RESUME_WINDOW = 1.5
"""Seconds after a turn ended within which new speech may still go on with its question
(a pause mid-sentence); later speech is a question of its own."""


class UnansweredQuestion:
    """The turn of the latest question until any of its answer is heard: speech that starts
    meanwhile goes on with that question (``resumed``)."""

    def __init__(self, min_speech: float) -> None:
        self.turn: str | None = None
        self.ended = -math.inf
        """When that turn ended (epoch time of the end of its pause)."""
        self.heard_for = RESUME_WINDOW + min_speech + 0.1
        """How long after that the mic hears, waiting for a reply: speech that starts in
        the window is announced (``min_speech`` of it) a little later."""

    def asked(self, turn: str, ended: float) -> None:
        """The final utterance of ``turn`` went out; the turn ended at ``ended``."""
        self.turn, self.ended = turn, ended

    def forget(self) -> None:
        """New speech is a new question: the answer is being heard, a word or a reopened
        audio stream starts afresh."""
        self.turn = None

    def unanswered(self, turn: str) -> None:
        """No answer to ``turn`` will be heard (it failed, or its answer is silent): new
        speech is a new question."""
        if turn == self.turn:
            self.turn = None

    def may_go_on(self, turn: str | None, captured: float) -> bool:
        """Whether audio captured at ``captured`` may still be the rest of ``turn``."""
        return self.turn == turn and captured <= self.ended + self.heard_for

    def resumed(self, started: float) -> str | None:
        """For speech that started at ``started``: the question it goes on with, if that
        question ended moments before. Asked once: later speech goes on with nothing."""
        turn, self.turn = self.turn, None
        if turn is None or started - self.ended > RESUME_WINDOW:
            return None
        return turn
