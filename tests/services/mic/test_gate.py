"""When the mic hears: deafness while the assistant speaks, and push-to-talk."""

from __future__ import annotations

from services.mic.gate import Gate
from services.mic.push_to_talk import AWAITING_REPLY, CAPTURING, CLOSED, OPEN
from services.mic.resumption import RESUME_WINDOW
from settings.schema import ListenConfig, VadConfig

VAD = VadConfig(deaf_tail=0.3)
PUSH = ListenConfig(mode="push", timeout=5.0, follow_up=4.0, reply_timeout=30.0)


def test_always_listening_is_deaf_while_speaking_and_for_the_tail() -> None:
    gate = Gate(ListenConfig(mode="always"), VAD)
    assert gate.hears(100.0)
    gate.on_speaking(True, 101.0)
    assert not gate.hears(101.5)
    gate.on_speaking(False, 103.0)
    assert not gate.hears(103.2)  # the tail: the room still echoes
    assert gate.hears(103.31)
    gate.on_listen(104.0)  # meaningless when always listening
    assert gate.hears(104.1)


def converse(gate: Gate, turn: str = "t1") -> None:
    gate.on_listen(10.0)
    assert gate.hears(10.1)
    gate.on_speech_started(turn)
    gate.on_utterance(turn, 13.0)


def test_push_to_talk_is_closed_until_asked() -> None:
    gate = Gate(PUSH, VAD)
    assert not gate.hears(1.0)
    gate.on_listen(10.0)
    assert gate.push.state.phase == OPEN and gate.hears(10.1)
    assert not gate.hears(15.1)  # nobody spoke within [listen] timeout
    assert gate.push.state.phase == CLOSED


def test_one_question_then_the_mic_waits_for_the_answer() -> None:
    gate = Gate(PUSH, VAD)
    gate.on_listen(10.0)
    gate.on_speech_started("t1")
    assert gate.push.state.phase == CAPTURING and gate.hears(20.0)  # speech may outlast the timeout
    gate.on_utterance("t1", 21.0)
    assert gate.push.state.phase == AWAITING_REPLY
    assert not gate.hears(52.0) and gate.push.state.phase == CLOSED  # no answer in reply_timeout


def test_until_its_answer_is_heard_the_user_may_go_on_with_the_question() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    assert gate.push.state.phase == AWAITING_REPLY and gate.hears(13.2)  # a pause mid-sentence?
    assert not gate.hears(13.0 + RESUME_WINDOW + 0.5)  # hears only moments after the end
    assert gate.resumes(13.4) == "t1"  # speech started: it goes on with t1
    gate.on_speech_started("t2")
    assert gate.push.state.phase == CAPTURING and gate.push.state.turn == "t2" and gate.hears(20.0)
    assert gate.resumes(13.5) is None  # only once
    gate.on_utterance("t2", 21.0)
    gate.on_reply("t1", "", False, False, 21.1)  # the cancelled turn's reply: not ours
    assert gate.push.state.phase == AWAITING_REPLY and gate.push.state.turn == "t2"
    gate.on_reply("t2", "It rains.", False, False, 21.5)
    assert gate.hears(21.6)  # open for a follow-up, but no longer for t2's question:
    gate.on_speaking(True, 21.7, turn="t2")
    assert gate.resumes(21.8) is None and not gate.hears(21.8)


def test_once_any_of_the_answer_plays_new_speech_is_a_new_question() -> None:
    gate = Gate(ListenConfig(mode="always"), VAD)
    gate.on_speech_started("t1")
    gate.on_utterance("t1", 13.0)
    gate.on_speaking(True, 13.5, turn="t1")
    gate.on_speaking(False, 15.0, turn="t1")
    assert gate.hears(15.4) and gate.resumes(15.4) is None


def test_a_question_answered_silently_is_not_resumed() -> None:
    gate = Gate(ListenConfig(mode="always"), VAD)
    gate.on_utterance("t1", 13.0)
    gate.on_reply("t1", "", True, False, 13.2)  # a volume change: done, nothing to hear
    assert gate.resumes(13.3) is None
    gate.on_utterance("t2", 14.0)
    gate.on_error("t2")  # the user heard why it failed
    assert gate.resumes(14.1) is None
    gate.on_utterance("t3", 15.0)
    assert gate.resumes(15.0 + RESUME_WINDOW + 0.1) is None  # too late: a new question
    gate.on_utterance("t4", 20.0)
    assert gate.resumes(20.0 + RESUME_WINDOW - 0.1) == "t4"


def test_speech_too_late_to_go_on_is_no_question_while_awaiting_the_answer() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    assert gate.hears(13.0 + RESUME_WINDOW + 0.1)  # may be the rest, announced late
    assert gate.resumes(13.0 + RESUME_WINDOW + 0.05) is None
    assert not gate.takes_speech() and gate.push.state.phase == AWAITING_REPLY


def test_the_wake_word_starts_a_question_of_its_own() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    gate.on_reply("t1", "It is sunny.", False, False, 13.2)
    assert gate.on_wake(13.3)
    assert gate.resumes(13.4) is None


def test_an_answer_opens_the_mic_for_a_follow_up_once_the_speaker_is_quiet() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    gate.on_reply("other-turn", "Hi.", False, False, 14.0)  # not ours: ignored
    assert gate.push.state.phase == AWAITING_REPLY
    gate.on_reply("t1", "It is sunny.", False, False, 14.0)
    gate.on_speaking(True, 14.1)
    assert not gate.hears(20.0)  # deaf while speaking, however long
    gate.on_speaking(False, 25.0)
    assert not gate.hears(25.2)
    assert gate.hears(25.4) and gate.hears(29.2)  # follow_up counts from the end of speech
    assert not gate.hears(29.4) and gate.push.state.phase == CLOSED


def test_an_empty_answer_without_control_ends_the_conversation() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    gate.on_reply("t1", "  ", False, False, 14.0)
    assert gate.push.state.phase == CLOSED and not gate.hears(14.5)


def test_an_empty_answer_with_a_control_keeps_the_conversation() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    gate.on_reply("t1", "", True, False, 14.0)  # a silent volume change keeps the talk open
    assert gate.push.state.phase == OPEN and gate.hears(14.5)


def test_a_failed_turn_ends_the_conversation() -> None:
    gate = Gate(PUSH, VAD)
    converse(gate)
    gate.on_error("t1")
    assert gate.push.state.phase == CLOSED
    converse(gate, "t2")
    gate.on_reply("t2", "Sorry, the language model is not available.", False, True, 14.0)
    assert gate.push.state.phase == CLOSED


def test_speaking_during_capture_loses_the_utterance_but_keeps_listening() -> None:
    gate = Gate(PUSH, VAD)
    gate.on_listen(10.0)
    gate.on_speech_started("t1")
    gate.on_speaking(True, 11.0)
    assert gate.push.state.phase == OPEN and not gate.hears(11.5)
    gate.on_speaking(False, 20.0)
    assert gate.hears(20.4) and gate.hears(25.2)  # the wait restarts after the speaker
    assert not gate.hears(25.4)


def test_a_speaker_that_dies_while_speaking_does_not_leave_the_mic_deaf() -> None:
    gate = Gate(ListenConfig(mode="always"), VAD)
    gate.on_speaking(True, 10.0, "tts")
    gate.on_heartbeat("tts", "ready", 11.0, 1.0)
    gate.on_heartbeat("other", "ready", 20.0, 1.0)  # someone else's beats change nothing
    assert not gate.hears(13.9)
    assert gate.hears(14.31)  # three beats missed (+ the deaf tail): it crashed
    gate.on_speaking(True, 20.0, "tts")
    assert not gate.hears(40.0)  # no heartbeat seen yet: trust the message
    gate.on_heartbeat("tts", "starting", 41.0, 1.0)  # restarted: not speaking any more
    assert gate.hears(41.4)


def test_after_a_barge_in_the_mic_hears_once_the_fade_has_died_away() -> None:
    gate = Gate(ListenConfig(mode="wake", timeout=5.0), VAD)
    gate.on_speaking(True, 10.0)
    gate.on_barge_in(12.0)
    assert not gate.hears(12.1)  # the speaker is still fading out
    gate.on_interrupted(12.3)
    assert not gate.hears(12.32)  # the last faded samples are still in the air
    assert gate.hears(12.4)


def test_with_echo_cancelled_the_question_after_a_barge_in_has_the_whole_wait() -> None:
    gate = Gate(ListenConfig(mode="wake", timeout=5.0), VAD, echo_cancelled=True)
    gate.on_speaking(True, 10.0)
    gate.on_barge_in(12.0)
    gate.on_interrupted(12.3)
    assert gate.hears(12.4) and gate.push.state.phase == OPEN  # the user may pause first
    assert gate.hears(17.2) and gate.push.state.phase == OPEN
    gate.hears(17.4)
    assert gate.push.state.phase == CLOSED
