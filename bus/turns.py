"""One reading of a turn: the stage each bus message marks, and a turn's timeline.

Every message of a turn carries the turn's id, and each kind of message marks
one stage (the table "Turn stages" in ``docs/bus.md``, in order). The tap's
``--turns``, the voice-to-voice benchmark and the watchdog read turns through
this module only, so a stage has one name everywhere.

Pure: no I/O and no clock of its own. A stage's time is the stamp (``ts``) of
the message that marks it, and whoever follows turns over time passes its own
``now`` in, so the same messages always give the same timeline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

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
    TurnDropped,
    Utterance,
    WakeWordHeard,
)

WAKE = "wake"
SPEECH_STARTED = "speech_started"
PARTIAL = "partial"
GUESS = "guess"
WINDOW_CLOSED = "window_closed"
UTTERANCE = "utterance"
TRANSCRIPT = "transcript"
ASK = "ask"
SAY = "say"
CONFIRMED = "speculation.confirmed"
DROPPED = "speculation.dropped"
PLAYING = "playing"
SPOKEN = "spoken"
REPLY = "reply"
QUIET = "quiet"
TURN_DROPPED = "turn.dropped"
STAGES = (
    WAKE, SPEECH_STARTED, PARTIAL, GUESS, WINDOW_CLOSED, UTTERANCE, TRANSCRIPT, ASK, SAY,
    CONFIRMED, DROPPED, PLAYING, SPOKEN, REPLY, QUIET, TURN_DROPPED,
)
"""The stages messages mark, in the order of a turn; trace marks add their own between."""
INTENT = "intent"
"""The trace mark of a turn answered without the LLM; its detail names the intent."""
ANSWERED_BY = frozenset({INTENT, "llm.request"})
LATEST = frozenset({PARTIAL, GUESS})
"""Stages that keep their latest message: the one the rest of the turn was built on.
Every other stage keeps its earliest."""

_BY_TYPE: dict[type[Message], str] = {
    WakeWordHeard: WAKE,
    SpeechStarted: SPEECH_STARTED,
    SpeculativeTranscript: GUESS,
    SpeechEnded: WINDOW_CLOSED,
    Transcript: TRANSCRIPT,
    QuestionRequest: ASK,
    SpeakRequest: SAY,
    Spoken: SPOKEN,
    Reply: REPLY,
    TurnDropped: TURN_DROPPED,
}


TURN_MESSAGES: tuple[type[Message], ...] = (
    *_BY_TYPE, Utterance, Speculation, Speaking, TraceMark, ToolRequest, ToolResult,
)
"""Every kind of message :class:`Timeline` reads: what a follower of turns subscribes to."""


def stage_of(msg: Message) -> str | None:
    """The stage ``msg`` marks; a trace mark names its own (``llm.first_token``...)."""
    if isinstance(msg, Utterance):
        return PARTIAL if msg.partial else UTTERANCE
    if isinstance(msg, Speculation):
        return CONFIRMED if msg.confirmed else DROPPED
    if isinstance(msg, Speaking):
        return PLAYING if msg.speaking else QUIET
    if isinstance(msg, TraceMark):  # a mark may not stand in for the message of a stage
        return None if msg.stage in STAGES else msg.stage
    return _BY_TYPE.get(type(msg))


@dataclass
class ToolRun:
    name: str
    start: float
    """Epoch time the call was sent."""
    duration: float
    ok: bool


@dataclass
class Timeline:
    """One turn's stages, as epoch times; :meth:`add` its messages in any order."""

    turn: str
    times: dict[str, float] = field(default_factory=dict)
    text: str = ""
    """What the user said (the transcript) or asked."""
    speech_end: float | None = None
    """The end of speech as the mic stamped it (a voice turn's origin)."""
    tools: list[ToolRun] = field(default_factory=list)
    error: str | None = None
    spoke: bool = False
    """Words of the answer went to the speaker: the turn ends once they have played."""
    first_seen: float = float("inf")
    held: dict[str, float] = field(default_factory=dict)
    """Stages of an answer prepared on the guess: they count once the guess is confirmed."""
    held_spoke: bool = False
    calls: dict[str, float] = field(default_factory=dict)
    answered_by: str = ""
    """What answered: the intent a trace mark ``intent`` names, ``LLM`` once a request
    to the model went out, "" before either."""
    site: str | None = None
    """The room the turn belongs to: the site of its first message that names one (a
    satellite's turn is asked with its site; not every answer repeats it)."""

    @classmethod
    def of(cls, turn: str, messages: Iterable[Message]) -> Timeline:
        timeline = cls(turn)
        for msg in messages:
            timeline.add(msg)
        return timeline

    @property
    def origin(self) -> float:
        """Stages count from the end of speech, or from the earliest message (a text turn)."""
        return self.speech_end if self.speech_end is not None else self.first_seen

    @property
    def stages(self) -> dict[str, float]:
        """Seconds from the origin to each stage, in the order they happened."""
        order = sorted(self.times.items(), key=lambda item: item[1])
        return {stage: round(ts - self.origin, 4) for stage, ts in order}

    @property
    def complete(self) -> bool:
        """Answered, and what it said has been played."""
        return REPLY in self.times and (not self.spoke or QUIET in self.times)

    def mark(self, stage: str, ts: float) -> None:
        known = self.times.get(stage)
        if known is None or (ts > known if stage in LATEST else ts < known):
            self.times[stage] = ts

    def add(self, msg: Message) -> None:
        self.first_seen = min(self.first_seen, msg.ts)
        self.site = self.site or msg.site
        stage = stage_of(msg)
        if isinstance(msg, SpeechEnded | Utterance | Transcript) and msg.speech_end:
            if not getattr(msg, "partial", False):  # a partial's end may not be the last
                self.speech_end = msg.speech_end
        if isinstance(msg, Transcript | QuestionRequest):
            self.text = msg.text
        elif isinstance(msg, SpeakRequest):
            if msg.speculative:
                self.held[SAY] = min(msg.ts, self.held.get(SAY, msg.ts))
                self.held_spoke = self.held_spoke or bool(msg.text)
                return
            self.spoke = self.spoke or bool(msg.text)
        elif isinstance(msg, Speculation):
            if msg.confirmed:
                self.spoke = self.spoke or self.held_spoke
                for held, ts in self.held.items():
                    self.mark(held, ts)
            self.held.clear()
            self.held_spoke = False
        elif isinstance(msg, Reply):
            self.error = msg.error
        elif isinstance(msg, ToolRequest):
            self.calls[msg.id] = msg.ts
        elif isinstance(msg, TraceMark) and msg.stage in ANSWERED_BY:
            self.answered_by = msg.detail if msg.stage == INTENT else "LLM"
        elif isinstance(msg, ToolResult):
            started = self.calls.pop(msg.reply_to or "", msg.ts - msg.duration)
            self.tools.append(ToolRun(msg.name, started, msg.duration or msg.ts - started, msg.ok))
        if stage is not None:
            self.mark(stage, msg.ts)
