"""When the mic hears: never while the assistant speaks, and with the wake word or push-to-talk
only when opened.

Pure state, driven by bus events and by the capture times of the audio, so
audio that was captured before an event is judged by what held then.
The wake word (``[listen] mode = "wake"``) or push-to-talk
(``desktop-assistant listen``) opens the mic for one question; after the
answer it stays open for a follow-up question, unless the answer was empty
and carried no control, which ends the conversation.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from settings.schema import ListenConfig, VadConfig

log = logging.getLogger(__name__)

CLOSED, OPEN, CAPTURING, AWAITING_REPLY = "closed", "open", "capturing", "awaiting reply"
BARGE_WAIT = 1.0
"""Seconds after a barge-in the mic waits for the speaker to say its audio fell silent
(``tts.interrupted``) before hearing again anyway: until then it hears the assistant."""
BARGE_MARGIN = 0.05
"""Seconds after the reported silence still deaf: the last faded samples in the air."""
RESUME_WINDOW = 1.5
"""Seconds after a turn ended within which new speech may still go on with its question
(a pause mid-sentence); later speech is a question of its own."""


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


class Gate:
    def __init__(self, listen: ListenConfig, vad: VadConfig, echo_cancelled: bool = False) -> None:
        self.push = listen.mode != "always"
        """The mic opens on demand (the wake word or push-to-talk) and closes again."""
        self.listen = listen
        self.echo_cancelled = echo_cancelled
        """The assistant's voice is taken out of the audio: the mic hears while it speaks
        (speech then interrupts it), and needs no deaf time after it."""
        self.deaf_tail = 0.0 if echo_cancelled else vad.deaf_tail
        self.speaking = False
        self.deaf_until = -math.inf
        self.state = PushState()
        self.speaker = ""
        """The service that said it is speaking; if it dies meanwhile, the mic hears again."""
        self.speaker_alive_until = math.inf
        self.speaking_turn: str | None = None
        """The turn the speaker said it is speaking (what a barge-in interrupts)."""
        self.cut_turn: str | None = None
        """The turn the latest barge-in interrupted: its speaking news is stale."""
        self.barging_until = -math.inf
        """Deaf until then: the interrupted audio is still fading out."""
        self.unanswered: str | None = None
        """The turn of the latest question until any of its answer is heard: speech that
        starts meanwhile goes on with that question (``resumes``)."""
        self.unanswered_at = -math.inf
        """When that turn ended (epoch time of the end of its pause)."""
        self.resume_heard = RESUME_WINDOW + vad.min_speech + 0.1
        """How long after that the mic hears, waiting for a reply: speech that starts in
        the window is announced (``min_speech`` of it) a little later."""
        self.closed: tuple[str, bool] | None = None
        """Why the opened mic closed, and whether it was open for a follow-up; the listener
        reports it on the bus and clears it."""

    # -- what the mic may hear --------------------------------------------------------

    def hears(self, captured: float) -> bool:
        """Whether audio captured at epoch time ``captured`` goes to the VAD."""
        if self.speaking and captured > self.speaker_alive_until:
            log.warning("%s stopped sending heartbeats while speaking: hearing again", self.speaker)
            self.on_speaking(False, self.speaker_alive_until)
        if self.speaking and self.echo_cancelled:
            return True
        if self.speaking or captured < max(self.deaf_until, self.barging_until):
            return False
        if not self.push:
            return True
        self.expire(captured)
        if self.state.phase == AWAITING_REPLY:  # the user may not have finished after all
            return (self.unanswered == self.state.turn
                    and captured <= self.unanswered_at + self.resume_heard)
        return self.state.phase in (OPEN, CAPTURING)

    def expire(self, now: float) -> None:
        """Close the mic when a push-to-talk deadline has passed."""
        phase = self.state.phase
        if phase in (OPEN, AWAITING_REPLY) and not self.speaking and now > self.state.deadline:
            log.info("%s timed out; the mic is closed", phase)
            self._close("timeout")

    # -- events -----------------------------------------------------------------------

    def on_speaking(
        self, speaking: bool, when: float, speaker: str = "", turn: str | None = None
    ) -> None:
        """The speaker started or stopped (``when``: the message's time)."""
        if turn is not None and turn == self.cut_turn:
            return  # the barge-in already ended it; no deaf tail in the user's question
        self.speaking = speaking
        self.speaking_turn = turn if speaking else None
        if speaking:
            self.unanswered = None
            self.speaker, self.speaker_alive_until = speaker, math.inf
            if self.state.phase == CAPTURING and not self.echo_cancelled:  # the utterance is
                # lost (the mic goes deaf); listen again later
                self._open(self.state.window, when)
            return
        self.deaf_until = when + self.deaf_tail
        if self.state.phase == OPEN:  # the wait for speech starts once the speaker is quiet
            self.state.deadline = max(self.state.deadline, self.deaf_until + self.state.window)

    def on_heartbeat(self, service: str, state: str, when: float, interval: float) -> None:
        """A speaker that restarts or stops is no longer speaking; one whose heartbeats stop
        (a crash) is taken as silent after three missed beats."""
        if not self.speaking or service != self.speaker:
            return
        if state in ("starting", "stopping"):
            self.on_speaking(False, when)
        else:
            self.speaker_alive_until = when + 3 * interval

    def on_listen(self, when: float) -> None:
        """``desktop-assistant listen``: open for one question."""
        if not self.push:
            log.info("listen request ignored: [listen] mode is always")
            return
        log.info("push-to-talk: listening")
        self._open(self.listen.timeout, when)

    def on_wake(self, when: float) -> bool:
        """The wake word was heard in audio ending at ``when``: open for one question, unless
        the mic is deaf (the assistant speaks) or already hears a question. Returns whether
        it opened."""
        if not self.push or self.speaking or when < self.deaf_until:
            return False
        self.unanswered = None  # the word starts a question of its own
        if self.state.phase in (OPEN, CAPTURING) and not self.state.follow_up:
            return False
        log.info("wake word: listening")
        self._open(self.listen.timeout, when)
        return True

    def on_barge_in(self, when: float) -> None:
        """The wake word was heard while the assistant spoke (in audio ending at ``when``):
        the speaker fades out; the mic opens for the question once it is silent."""
        log.info("barge-in: the assistant is interrupted, listening")
        self.cut_turn, self.speaking, self.speaking_turn = self.speaking_turn, False, None
        if not self.echo_cancelled:
            self.barging_until = when + BARGE_WAIT
        self._open(self.listen.timeout, when)

    def on_interrupted(self, silent: float) -> None:
        """The speaker's audio fell silent at ``silent`` after the barge-in."""
        if not self.echo_cancelled:
            self.barging_until = silent + BARGE_MARGIN
        if self.state.phase == OPEN:
            self.state.deadline = self.barging_until + self.state.window

    def resumes(self, when: float) -> str | None:
        """For speech that started at ``when``: the question it goes on with, if that
        question's answer has not been heard yet and it ended moments before (the turn had
        ended at a pause mid-sentence)."""
        turn, self.unanswered = self.unanswered, None
        if turn is None or self.speaking or when - self.unanswered_at > RESUME_WINDOW:
            return None
        if self.push and self.state.phase == AWAITING_REPLY:  # open for the rest of it
            self.state = PushState(OPEN, math.inf, self.listen.timeout)
        return turn

    def takes_speech(self) -> bool:
        """Whether speech that started now (and resumes nothing) may be a question: not
        while the mic only hears for the rest of a question."""
        return not (self.push and self.state.phase == AWAITING_REPLY)

    def forget_question(self) -> None:
        """The audio stream was reopened: what follows goes on with no question."""
        self.unanswered = None

    def on_speech_started(self, turn: str) -> None:
        if self.push and self.state.phase == OPEN:
            self.state = PushState(CAPTURING, math.inf, self.state.window, turn)

    def on_utterance(self, turn: str, now: float) -> None:
        """The final utterance of ``turn`` went out: the mic waits for its answer."""
        self.unanswered, self.unanswered_at = turn, now
        if self.push and self.state.phase == CAPTURING and self.state.turn == turn:
            self.state = PushState(AWAITING_REPLY, now + self.listen.reply_timeout, 0.0, turn)

    def on_reply(
        self, turn: str, conversation: str, control: bool, failed: bool, when: float
    ) -> None:
        """The answer to ``turn``: empty and without control ends the conversation; so
        does a failed turn. The control rule comes first: an empty answer with a
        control (a volume change) is a silent success, and the talk goes on."""
        if turn == self.unanswered and (failed or not conversation.strip()):
            self.unanswered = None  # no answer will be heard: new speech is a new question
        if not self.push or self.state.phase != AWAITING_REPLY or self.state.turn != turn:
            return
        if failed or (not conversation.strip() and not control):
            why = "the turn failed" if failed else "empty answer"
            log.info("%s, the conversation ends", why)
            self._close("ended")
            return
        log.info("open %.1f s for a follow-up question", self.listen.follow_up)
        self._open(self.listen.follow_up, when, follow_up=True)

    def on_error(self, turn: str) -> None:
        """The turn failed (the user heard why): the conversation ends."""
        if turn == self.unanswered:
            self.unanswered = None
        if self.push and self.state.phase == AWAITING_REPLY and self.state.turn == turn:
            self._close("ended")

    def _open(self, window: float, when: float, follow_up: bool = False) -> None:
        start = max(when, self.deaf_until)
        self.state = PushState(OPEN, start + window, window, follow_up=follow_up)

    def _close(self, reason: str) -> None:
        self.closed = (reason, self.state.follow_up)
        self.state = PushState()
