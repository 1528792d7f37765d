"""Turn traces from bus messages alone."""

from __future__ import annotations

from bus.messages import (
    QuestionRequest,
    Reply,
    Speaking,
    SpeakRequest,
    Speculation,
    SpeculativeTranscript,
    SpeechEnded,
    SpeechStarted,
    ToolRequest,
    ToolResult,
    TraceMark,
    Transcript,
)
from bus.trace import TurnTracer


def test_voice_turn_completes_when_audio_stops_after_the_reply() -> None:
    t0 = 1000.0
    turn = "voiceturn1"
    tracer = TurnTracer()
    messages = [
        SpeechEnded(turn=turn, ts=t0 + 0.5, speech_end=t0, duration=2.0),
        Transcript(turn=turn, ts=t0 + 0.55, text="what time is it", lang="en", speech_end=t0),
        TraceMark(turn=turn, ts=t0 + 0.6, stage="llm.first_token"),
        ToolRequest(turn=turn, ts=t0 + 0.7, call_id="c1", name="now", arguments="{}"),
        ToolResult(turn=turn, ts=t0 + 0.75, call_id="c1", name="now", content="x", duration=0.05),
        SpeakRequest(turn=turn, ts=t0 + 0.9, text="It is noon.", seq=0),
        Speaking(turn=turn, ts=t0 + 1.1, speaking=True),
        SpeakRequest(turn=turn, ts=t0 + 1.2, text="", seq=1, final=True),
        Reply(turn=turn, ts=t0 + 1.2, request_id=turn, session="local", text="It is noon."),
    ]
    for msg in messages:
        assert tracer.feed(msg) == []
    (done,) = tracer.feed(Speaking(turn=turn, ts=t0 + 2.0, speaking=False))
    assert done.text == "what time is it"
    assert done.stages == {
        "transcript": 0.55,
        "llm.first_token": 0.6,
        "first_say": 0.9,
        "first_audio": 1.1,
        "reply": 1.2,
        "audio_done": 2.0,
    }
    assert done.tools == [{"name": "now", "start": 0.7, "duration": 0.05, "ok": True}]
    line = done.as_line()
    assert line.startswith("turn voiceturn1 'what time is it': transcript 0.55s · ")
    assert "llm.first_token 0.60s · tool now 0.70s (0.05s) · first_say 0.90s" in line
    assert "first_audio 1.10s" in line


def test_text_turn_completes_on_reply() -> None:
    tracer = TurnTracer()
    question = QuestionRequest(turn="t2", ts=50.0, request_id="r", session="s", text="hi")
    assert tracer.feed(question) == []
    (done,) = tracer.feed(
        Reply(turn="t2", ts=50.4, request_id="r", session="s", text="", error="llm-error")
    )
    assert done.stages == {"reply": 0.4}
    assert done.error == "llm-error"
    assert done.as_dict()["text"] == "hi"


def test_a_voice_turn_counts_from_the_end_of_speech_even_without_a_stamped_transcript() -> None:
    t0 = 2000.0
    tracer = TurnTracer()
    turn = "voiceturn2"
    tracer.feed(SpeechStarted(turn=turn, ts=t0 - 1.5))
    tracer.feed(SpeechEnded(turn=turn, ts=t0 + 0.5, speech_end=t0, duration=1.5))
    tracer.feed(Transcript(turn=turn, ts=t0 + 0.6, text="hello", lang="en"))
    (done,) = tracer.feed(
        Reply(turn=turn, ts=t0 + 0.9, request_id=turn, session="local", text="")
    )
    assert done.stages == {"transcript": 0.6, "reply": 0.9}
    assert done.as_line() == f"turn {turn} 'hello': transcript 0.60s · reply 0.90s"


def test_a_confirmed_guess_shows_its_work_from_before_the_window_closed() -> None:
    t0, turn = 2000.0, "spec1"
    tracer = TurnTracer()
    messages = [
        SpeculativeTranscript(turn=turn, ts=t0 + 0.2, text="hi", lang="en", speech_end=t0),
        SpeakRequest(turn=turn, ts=t0 + 0.25, text="Hello.", seq=0, final=True, speculative=True),
        SpeechEnded(turn=turn, ts=t0 + 0.55, speech_end=t0, duration=1.0),
        Transcript(turn=turn, ts=t0 + 0.56, text="hi", lang="en", speech_end=t0),
        TraceMark(turn=turn, ts=t0 + 0.21, stage="llm.first_token"),  # held, sent on confirm
        Speculation(turn=turn, ts=t0 + 0.57, confirmed=True),
        Speaking(turn=turn, ts=t0 + 0.6, speaking=True),
        Reply(turn=turn, ts=t0 + 0.58, request_id=turn, session="local", text="Hello."),
    ]
    for msg in messages:
        assert tracer.feed(msg) == []
    (done,) = tracer.feed(Speaking(turn=turn, ts=t0 + 1.5, speaking=False))
    assert done.stages == {
        "transcript": 0.56,
        "llm.first_token": 0.21,
        "guess": 0.2,
        "first_say": 0.25,
        "speculation.confirmed": 0.57,
        "first_audio": 0.6,
        "reply": 0.58,
        "audio_done": 1.5,
    }


def test_a_dropped_guess_leaves_no_stage_but_its_drop() -> None:
    t0, turn = 3000.0, "spec2"
    tracer = TurnTracer()
    messages = [
        SpeculativeTranscript(turn=turn, ts=t0 + 0.2, text="what is", lang="en", speech_end=t0),
        SpeakRequest(
            turn=turn, ts=t0 + 0.25, text="What is what?", seq=0, final=True, speculative=True
        ),
        Speculation(turn=turn, ts=t0 + 0.9, confirmed=False),
        Transcript(turn=turn, ts=t0 + 1.0, text="what is new", lang="en", speech_end=t0 + 0.5),
        SpeakRequest(turn=turn, ts=t0 + 1.1, text="Nothing.", seq=0, final=True),
        Reply(turn=turn, ts=t0 + 1.1, request_id=turn, session="local", text="Nothing."),
    ]
    for msg in messages:
        assert tracer.feed(msg) == []
    (done,) = tracer.feed(Speaking(turn=turn, ts=t0 + 2.0, speaking=False))
    assert "guess" not in done.stages
    assert done.stages["first_say"] == 0.6  # the real answer's, from the final end of speech
    assert done.stages["speculation.dropped"] == 0.4
