"""When the mic hears: never while the assistant speaks, and with the wake word or push-to-talk
only when opened.

Pure state, driven by bus events and by the capture times of the audio, so
audio that was captured before an event is judged by what held then. The gate
routes each event to the three things that decide: the assistant's voice
(``assistant_voice.py``), the mic opened on demand (``push_to_talk.py``) and the
question that new speech may still go on with (``resumption.py``).
"""

from __future__ import annotations

import logging

from services.mic.assistant_voice import AssistantVoice
from services.mic.push_to_talk import PushToTalk
from services.mic.resumption import UnansweredQuestion
from settings.schema import ListenConfig, VadConfig

log = logging.getLogger(__name__)


class Gate:
    def __init__(self, listen: ListenConfig, vad: VadConfig, echo_cancelled: bool = False) -> None:
        self.listen = listen
        self.voice = AssistantVoice(vad.deaf_tail, echo_cancelled)
        self.push = PushToTalk(listen)
        self.question = UnansweredQuestion(vad.min_speech)

    @property
    def speaking(self) -> bool:
        return self.voice.speaking

    @property
    def speaking_turn(self) -> str | None:
        """The turn the speaker said it is speaking (what a barge-in interrupts)."""
        return self.voice.turn

    def hears(self, captured: float) -> bool:
        """Whether audio captured at epoch time ``captured`` goes to the VAD."""
        silent = self.voice.crashed_by(captured)
        if silent is not None:
            self.on_speaking(False, silent)
        if self.voice.speaking and self.voice.echo_cancelled:
            return True
        if self.voice.deafens(captured):
            return False
        if not self.push.on_demand:
            return True
        self.push.expire(captured)
        if self.push.awaits_reply():  # the user may not have finished after all
            return self.question.may_go_on(self.push.state.turn, captured)
        return self.push.is_open()

    def _start(self, when: float) -> float:
        """When the mic opened at ``when`` starts waiting: not before the voice's echo died."""
        return max(when, self.voice.deaf_until)

    # -- events -----------------------------------------------------------------------

    def on_speaking(
        self, speaking: bool, when: float, speaker: str = "", turn: str | None = None
    ) -> None:
        """The speaker started or stopped (``when``: the message's time)."""
        if not self.voice.said(speaking, when, speaker, turn):
            return
        if not speaking:
            self.push.wait_from(self.voice.deaf_until)
            return
        self.question.forget()  # its answer is being heard
        if not self.voice.echo_cancelled:
            self.push.lose_capture(self._start(when))

    def on_heartbeat(self, service: str, state: str, when: float, interval: float) -> None:
        """A speaker that restarts or stops is no longer speaking; one whose heartbeats stop
        (a crash) is taken as silent after three missed beats (``hears``)."""
        if self.voice.heartbeat(service, state, when, interval):
            self.on_speaking(False, when)

    def on_listen(self, when: float) -> None:
        """``desktop-assistant listen``: open for one question."""
        self.push.on_listen(self._start(when))

    def on_wake(self, when: float) -> bool:
        """The wake word was heard in audio ending at ``when``: open for one question, unless
        the mic is deaf (the assistant speaks) or already hears a question. Returns whether
        it opened."""
        if not self.push.on_demand or self.speaking or when < self.voice.deaf_until:
            return False
        self.question.forget()  # the word starts a question of its own
        return self.push.on_wake(self._start(when))

    def on_barge_in(self, when: float) -> None:
        """The wake word was heard while the assistant spoke (in audio ending at ``when``):
        the speaker fades out; the mic opens for the question once it is silent."""
        log.info("barge-in: the assistant is interrupted, listening")
        self.voice.cut(when)
        self.push.open(self.listen.timeout, self._start(when))

    def on_interrupted(self, silent: float) -> None:
        """The speaker's audio fell silent at ``silent`` after the barge-in."""
        self.voice.faded(silent)
        # (with echo cancellation the mic was never deaf: the wait starts at the silence)
        self.push.restart_wait(max(silent, self.voice.barging_until))

    def resumes(self, when: float) -> str | None:
        """For speech that started at ``when``: the question it goes on with, if that
        question's answer has not been heard yet and it ended moments before (the turn had
        ended at a pause mid-sentence)."""
        turn = self.question.resumed(when)
        if turn is None or self.speaking:
            return None
        self.push.reopen_for_rest()
        return turn

    def takes_speech(self) -> bool:
        """Whether speech that started now (and resumes nothing) may be a question: not
        while the mic only hears for the rest of a question."""
        return not self.push.awaits_reply()

    def forget_question(self) -> None:
        """The audio stream was reopened: what follows goes on with no question."""
        self.question.forget()

    def on_speech_started(self, turn: str) -> None:
        self.push.on_speech_started(turn)

    def on_utterance(self, turn: str, now: float) -> None:
        """The final utterance of ``turn`` went out: the mic waits for its answer."""
        self.question.asked(turn, now)
        self.push.on_utterance(turn, now)

    def on_reply(
        self, turn: str, conversation: str, control: bool, failed: bool, when: float
    ) -> None:
        """The answer to ``turn`` (``PushToTalk.on_reply``: whether the talk goes on)."""
        if failed or not conversation.strip():
            self.question.unanswered(turn)  # no answer will be heard
        self.push.on_reply(turn, conversation, control, failed, self._start(when))

    def on_error(self, turn: str) -> None:
        """The turn failed (the user heard why): the conversation ends."""
        self.question.unanswered(turn)
        self.push.on_error(turn)
