"""Turns as the bus carries them, in the order a subscriber receives them, for the tests
of every reader of turns (the tap, the benchmark, the watchdog)."""

from __future__ import annotations

from bus.message import Message
from bus.messages import (
    QuestionRequest,
    Reply,
    Speaking,
    SpeakRequest,
    Speculation,
    SpeculativeTranscript,
    SpeechEnded,
    SpeechStarted,
    Spoken,
    ToolRequest,
    ToolResult,
    TraceMark,
    Transcript,
    Utterance,
)

END = 5000.0
"""The end of speech the mic stamps on the voice turns."""


def confirmed_voice_turn(turn: str = "voice1") -> list[Message]:
    """Answered from the STT's guess, before the window closed; the guess is confirmed."""
    t0 = END
    return [
        SpeechStarted(turn=turn, ts=t0 - 1.6, src="mic"),
        Utterance(turn=turn, ts=t0 + 0.1, pcm=b"", rate=16000, duration=1.5, speech_end=t0,
                  partial=True, src="mic"),
        SpeculativeTranscript(turn=turn, ts=t0 + 0.42, text="what time is it", lang="en",
                              compute=0.3, speech_end=t0, src="stt"),
        SpeakRequest(turn=turn, ts=t0 + 0.47, text="It is noon.", seq=0, speculative=True,
                     src="dialogue"),
        TraceMark(turn=turn, ts=t0 + 0.48, stage="synth_answer", detail="0.250", src="tts"),
        SpeechEnded(turn=turn, ts=t0 + 0.5, speech_end=t0, duration=1.6, src="mic"),
        Utterance(turn=turn, ts=t0 + 0.5, pcm=b"", rate=16000, duration=1.6, speech_end=t0,
                  src="mic"),
        Transcript(turn=turn, ts=t0 + 0.51, text="what time is it", lang="en", compute=0.05,
                   speech_end=t0, src="stt"),
        # The dialogue holds a speculative round's marks and sends them on confirming.
        TraceMark(turn=turn, ts=t0 + 0.43, stage="llm.request", src="dialogue"),
        TraceMark(turn=turn, ts=t0 + 0.46, stage="llm.first_token", src="dialogue"),
        Speculation(turn=turn, ts=t0 + 0.52, confirmed=True, src="dialogue"),
        SpeakRequest(turn=turn, ts=t0 + 0.53, text="", seq=1, final=True, src="dialogue"),
        Reply(turn=turn, ts=t0 + 0.53, reply_to=turn, session="local", text="It is noon.",
              src="dialogue"),
        TraceMark(turn=turn, ts=t0 + 0.54, stage="turn.done", src="dialogue"),
        Speaking(turn=turn, ts=t0 + 0.55, speaking=True, src="tts"),
        TraceMark(turn=turn, ts=t0 + 0.6, stage="first_sound", src="tts"),
        TraceMark(turn=turn, ts=t0 + 0.6, stage="first_answer", src="tts"),
        Spoken(turn=turn, ts=t0 + 1.9, text="It is noon.", seq=0, src="tts"),
        Speaking(turn=turn, ts=t0 + 2.0, speaking=False, src="tts"),
    ]


CONFIRMED_STAGES = {
    "speech_started": -1.6,
    "partial": 0.1,
    "guess": 0.42,
    "llm.request": 0.43,
    "llm.first_token": 0.46,
    "say": 0.47,
    "synth_answer": 0.48,
    "window_closed": 0.5,
    "utterance": 0.5,
    "transcript": 0.51,
    "speculation.confirmed": 0.52,
    "reply": 0.53,
    "turn.done": 0.54,
    "playing": 0.55,
    "first_sound": 0.6,
    "first_answer": 0.6,
    "spoken": 1.9,
    "quiet": 2.0,
}
"""The stages of :func:`confirmed_voice_turn`, seconds from the end of speech."""


def tool_voice_turn(turn: str = "voice2") -> list[Message]:
    """A plain voice turn (no guess) that calls a tool before it answers."""
    t0 = END
    return [
        SpeechEnded(turn=turn, ts=t0 + 0.5, speech_end=t0, duration=2.0, src="mic"),
        Transcript(turn=turn, ts=t0 + 0.55, text="what time is it", lang="en", speech_end=t0,
                   src="stt"),
        TraceMark(turn=turn, ts=t0 + 0.6, stage="llm.first_token", src="dialogue"),
        ToolRequest(turn=turn, ts=t0 + 0.7, id="c1", name="now", arguments="{}",
                    src="dialogue"),
        ToolResult(turn=turn, ts=t0 + 0.75, reply_to="c1", name="now", content="x",
                   duration=0.05, src="tools"),
        SpeakRequest(turn=turn, ts=t0 + 0.9, text="It is noon.", seq=0, src="dialogue"),
        Speaking(turn=turn, ts=t0 + 1.1, speaking=True, src="tts"),
        SpeakRequest(turn=turn, ts=t0 + 1.2, text="", seq=1, final=True, src="dialogue"),
        Reply(turn=turn, ts=t0 + 1.2, reply_to=turn, session="local", text="It is noon.",
              src="dialogue"),
        Speaking(turn=turn, ts=t0 + 2.0, speaking=False, src="tts"),
    ]


def text_turn(turn: str = "text1") -> list[Message]:
    return [
        QuestionRequest(turn=turn, ts=50.0, id="r", session="s", text="hi"),
        Reply(turn=turn, ts=50.4, reply_to="r", session="s", text="", error="llm-error"),
    ]
