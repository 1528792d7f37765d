"""The tap's ``--turns``: turns followed at once, printed when complete or stale."""

from __future__ import annotations

from dataclasses import replace

from bus.messages import (
    QuestionRequest,
    Reply,
    Speaking,
    SpeechEnded,
    SpeechStarted,
    TraceMark,
    Transcript,
)
from bus.trace import STALE_AFTER, TurnFold, as_dict, as_line
from tests.bus.recorded_turns import END, confirmed_voice_turn, text_turn, tool_voice_turn


def test_voice_turn_completes_when_audio_stops_after_the_reply() -> None:
    fold = TurnFold()
    *messages, last = tool_voice_turn("voiceturn1")
    for now, msg in enumerate(messages):
        assert fold.feed(msg, now) == []
    (done,) = fold.feed(last, 99)
    record = as_dict(done)
    assert record["text"] == "what time is it"
    assert record["stages"] == {"window_closed": 0.5, "transcript": 0.55, "llm.first_token": 0.6,
                                "say": 0.9, "playing": 1.1, "reply": 1.2, "quiet": 2.0}
    assert record["tools"] == [{"name": "now", "start": 0.7, "duration": 0.05, "ok": True}]
    assert as_line(done) == (
        "turn voiceturn1 'what time is it': window_closed 0.50s · transcript 0.55s · "
        "llm.first_token 0.60s · tool now 0.70s (0.05s) · say 0.90s · playing 1.10s · "
        "reply 1.20s · quiet 2.00s"
    )
    assert fold.turns == {}


def test_text_turn_completes_on_reply() -> None:
    fold = TurnFold()
    question, reply = text_turn("t2")
    assert fold.feed(question, 0.0) == []
    (done,) = fold.feed(reply, 0.0)
    assert as_dict(done) == {"turn": "t2", "site": None, "text": "hi",
                             "stages": {"ask": 0.0, "reply": 0.4},
                             "tools": [], "error": "llm-error", "answered_by": ""}
    assert as_line(done) == "turn t2 'hi': ask 0.00s · reply 0.40s error=llm-error"


def test_a_question_without_a_turn_id_is_its_turns_first_message() -> None:
    """``desktop-assistant ask`` sends none: the dialogue takes the question's id as the
    turn's. The question's words and its time belong to that turn."""
    fold = TurnFold()
    assert fold.feed(QuestionRequest(id="q1", ts=1.0, session="cli", text="hi there"), 0.0) == []
    (done,) = fold.feed(Reply(turn="q1", ts=1.4, reply_to="q1", session="cli", text="Hi."), 0.0)
    assert as_line(done) == "turn q1 'hi there': ask 0.00s · reply 0.40s"


def test_a_satellites_turn_is_labelled_by_its_room() -> None:
    """The question names the satellite's site; the answers after it need not."""
    fold = TurnFold()
    question = QuestionRequest(id="k1", turn="k1", site="kitchen", ts=1.0, session="kitchen",
                               text="is it raining")
    assert fold.feed(question, 0.0) == []
    (done,) = fold.feed(Reply(turn="k1", ts=1.5, reply_to="k1", session="kitchen",
                              text="No."), 0.0)
    assert as_dict(done)["site"] == "kitchen"
    assert as_line(done) == "turn k1 in kitchen 'is it raining': ask 0.00s · reply 0.50s"


def test_a_turn_shows_what_answered_it_an_intent_or_the_llm() -> None:
    fold = TurnFold()
    for turn, mark in (("local", TraceMark(stage="intent", detail="HassGetCurrentTime")),
                       ("model", TraceMark(stage="llm.request", detail="round 0"))):
        fold.feed(QuestionRequest(turn=turn, ts=1.0, session="s", text="what time is it"), 0.0)
        fold.feed(replace(mark, turn=turn, ts=1.1), 0.0)
        (done,) = fold.feed(Reply(turn=turn, ts=1.5, reply_to=turn, session="s", text="9"), 0.0)
        expected = "HassGetCurrentTime" if turn == "local" else "LLM"
        assert as_dict(done)["answered_by"] == expected
        assert as_line(done).endswith(f"reply 0.50s by={expected}")


def test_a_voice_turn_counts_from_the_end_of_speech_even_without_a_stamped_transcript() -> None:
    t0, turn = 2000.0, "voiceturn2"
    fold = TurnFold()
    fold.feed(SpeechStarted(turn=turn, ts=t0 - 1.5), 0.0)
    fold.feed(SpeechEnded(turn=turn, ts=t0 + 0.5, speech_end=t0, duration=1.5), 0.0)
    fold.feed(Transcript(turn=turn, ts=t0 + 0.6, text="hello", lang="en"), 0.0)
    (done,) = fold.feed(Reply(turn=turn, ts=t0 + 0.9, reply_to=turn, session="local",
                              text=""), 0.0)
    assert as_line(done) == (f"turn {turn} 'hello': speech_started -1.50s · "
                             "window_closed 0.50s · transcript 0.60s · reply 0.90s")


def test_a_turn_answered_from_its_guess_waits_for_its_audio_and_a_lost_one_goes_stale() -> None:
    fold = TurnFold()
    messages = confirmed_voice_turn("spoken")
    lost = [m for m in confirmed_voice_turn("lost")][:8]  # the transcript, then nothing
    done = []
    for msg in [*lost, *messages]:
        done += fold.feed(msg, 10.0)
    assert [t.turn for t in done] == ["spoken"]
    assert fold.expire(10.0 + STALE_AFTER) == []
    (stale,) = fold.feed(Speaking(turn="other", ts=END, speaking=True), 10.1 + STALE_AFTER)
    assert stale.turn == "lost" and not stale.complete
    assert list(fold.turns) == ["other"]
