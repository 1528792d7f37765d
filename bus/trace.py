"""Per-turn latency traces built from bus messages alone (``tap --turns``).

Every stage stamps the turn id, so a turn's timeline is the messages that
carry it: the end of speech, the transcript, the LLM's first token, each
tool call, the first sentence to speak, the first audio played. Times are
seconds from the end of speech (voice turns) or from the ask (text turns).

An answer prepared on the STT's guess (speculation) shows its stages only
once confirmed: ``guess`` (the guess it was built on) and ``first_say`` at
the times they happened, often before ``transcript``; a dropped guess leaves
only ``speculation.dropped``. The TTS adds ``first_sound`` (tone or speech)
and ``first_answer`` at the device, and ``synth_answer`` (its first piece
synthesized).
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, TextIO

from bus.client import Bus
from bus.message import Message
from bus.messages import (
    QuestionRequest,
    Reply,
    Speaking,
    SpeakRequest,
    Speculation,
    SpeculativeTranscript,
    SpeechEnded,
    ToolRequest,
    ToolResult,
    TraceMark,
    Transcript,
    Utterance,
)

TOPICS = (
    "audio.",
    "stt.",
    "dialogue.",
    "tts.say",
    "tts.speaking",
    "tools.call",
    "tools.result",
    "trace.",
)
STALE_AFTER = 60.0
"""Seconds after which an unfinished turn is printed as it is."""


@dataclasses.dataclass
class TurnTrace:
    turn: str
    start: float
    text: str = ""
    times: dict[str, float] = dataclasses.field(default_factory=dict)
    """Epoch time of each stage (the first time it was marked)."""
    tools: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    replied: bool = False
    spoke: bool = False
    error: str | None = None
    last_seen: float = dataclasses.field(default_factory=time.monotonic)
    held: dict[str, float] = dataclasses.field(default_factory=dict)
    """Stages of speculative work, marked only once the speculation is confirmed."""

    def mark(self, stage: str, ts: float) -> None:
        self.times.setdefault(stage, ts)

    @property
    def stages(self) -> dict[str, float]:
        """Seconds from the start (the end of speech, as last known) to each stage."""
        return {stage: round(ts - self.start, 3) for stage, ts in self.times.items()}

    def as_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "text": self.text,
            "stages": self.stages,
            "tools": self.tools,
            "error": self.error,
        }

    def as_line(self) -> str:
        """Stages and tool calls in the order they happened; a tool shows when it started
        and, in brackets, how long it ran. The whole turn id: it is what the logs show."""
        parts = [(seconds, f"{stage} {seconds:.2f}s") for stage, seconds in self.stages.items()]
        for tool in self.tools:
            failed = "" if tool["ok"] else " failed"
            parts.append(
                (tool["start"], f"tool {tool['name']} {tool['start']:.2f}s "
                                f"({tool['duration']:.2f}s{failed})")
            )
        parts.sort(key=lambda part: part[0])
        error = f" error={self.error}" if self.error else ""
        text = " · ".join(part for _, part in parts)
        return f"turn {self.turn} {self.text[:40]!r}: {text}{error}"


class TurnTracer:
    """Feed it messages; it returns the turns that have just completed."""

    def __init__(self) -> None:
        self._turns: dict[str, TurnTrace] = {}
        self._calls: dict[str, ToolRequest] = {}

    def feed(self, msg: Message) -> list[TurnTrace]:
        if msg.turn is None:
            return self._expire()
        trace = self._turns.get(msg.turn)
        if trace is None:
            trace = self._turns[msg.turn] = TurnTrace(turn=msg.turn, start=_origin(msg))
        trace.last_seen = time.monotonic()
        done = self._apply(trace, msg)
        if done:
            del self._turns[msg.turn]
            return [trace, *self._expire()]
        return self._expire()

    def _apply(self, trace: TurnTrace, msg: Message) -> bool:
        if isinstance(msg, SpeechEnded | Utterance) and not getattr(msg, "partial", False):
            # The end of speech is the origin, even when SpeechStarted came first.
            trace.start = msg.speech_end or trace.start
        elif isinstance(msg, Transcript):
            trace.text = msg.text
            if msg.speech_end:
                trace.start = msg.speech_end
            trace.mark("transcript", msg.ts)
        elif isinstance(msg, QuestionRequest):
            trace.text = msg.text
        elif isinstance(msg, TraceMark):
            trace.mark(msg.stage, msg.ts)
        elif isinstance(msg, ToolRequest):
            self._calls[msg.call_id] = msg
        elif isinstance(msg, ToolResult):
            call = self._calls.pop(msg.call_id, None)
            started = call.ts if call else msg.ts - msg.duration
            trace.tools.append(
                {
                    "name": msg.name,
                    "start": round(started - trace.start, 3),
                    "duration": round(msg.duration or msg.ts - started, 3),
                    "ok": msg.ok,
                }
            )
        elif isinstance(msg, SpeculativeTranscript):
            trace.held["guess"] = msg.ts  # the latest guess is the one a confirmation means
        elif isinstance(msg, SpeakRequest) and msg.speculative:
            trace.held.setdefault("first_say", msg.ts)
        elif isinstance(msg, Speculation):
            if msg.confirmed:
                trace.spoke = trace.spoke or "first_say" in trace.held
                for stage, ts in trace.held.items():
                    trace.mark(stage, ts)
            trace.held.clear()
            trace.mark("speculation." + ("confirmed" if msg.confirmed else "dropped"), msg.ts)
        elif isinstance(msg, SpeakRequest):
            trace.spoke = trace.spoke or bool(msg.text)
            trace.mark("first_say", msg.ts)
        elif isinstance(msg, Speaking):
            if msg.speaking:
                trace.mark("first_audio", msg.ts)
            else:
                trace.mark("audio_done", msg.ts)
                return trace.replied
        elif isinstance(msg, Reply):
            trace.replied = True
            trace.error = msg.error
            trace.mark("reply", msg.ts)
            return not trace.spoke or "audio_done" in trace.times
        return False

    def _expire(self) -> list[TurnTrace]:
        now = time.monotonic()
        stale = [t for t in self._turns.values() if now - t.last_seen > STALE_AFTER]
        for trace in stale:
            del self._turns[trace.turn]
        return stale


def _origin(msg: Message) -> float:
    end = getattr(msg, "speech_end", 0.0)
    return end if end else msg.ts


async def trace_turns(bus: Bus, as_json: bool, out: TextIO) -> None:
    bus.subscribe(*TOPICS)
    tracer = TurnTracer()
    while True:
        msg = await bus.recv(timeout=5.0)
        done = tracer.feed(msg) if msg is not None else tracer._expire()
        for trace in done:
            line = json.dumps(trace.as_dict(), ensure_ascii=False) if as_json else trace.as_line()
            print(line, file=out, flush=True)
