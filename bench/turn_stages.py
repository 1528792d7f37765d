"""One voice turn's timeline from its bus messages, its critical path, and the figures of many.

Times are seconds from the mic's ``speech_end`` (the last voiced frame). The
critical path is walked back from the first sample of the answer's speech at
the device: each step is a model's compute (STT, LLM, TTS), the end-of-speech
window, an audio device (capture, playback buffer), or the pipeline's own
overhead: bus hops, queues and the services' own code between them. With
speculation the window and the models run side by side; only the longer of
the two paths is on the critical path.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bus.message import Message
from bus.messages import SpeculativeTranscript, TraceMark, Transcript
from bus.turns import CONFIRMED, GUESS, PARTIAL, SAY, TRANSCRIPT, WINDOW_CLOSED, Timeline

SYNTH_ANSWER, FIRST_ANSWER, FIRST_SOUND = "synth_answer", "first_answer", "first_sound"
"""The speaker's trace marks: the answer's first piece synthesized, and at the device."""
LLM_REQUEST, LLM_FIRST_TOKEN = "llm.request", "llm.first_token"
"""The dialogue's trace marks."""

Step = tuple[str, float, str]
"""(stage, seconds, category): category is window, input, stt, llm, tts, output or overhead."""


@dataclass
class TurnRecord:
    question: str
    text: str = ""
    """What the STT heard."""
    speech_end: float = 0.0
    times: dict[str, float] = field(default_factory=dict)
    stt_compute: float = 0.0
    tts_compute: float = 0.0
    speculative: bool = False
    """The answer was prepared before the window closed (a confirmed speculation)."""
    heard_first_sound: float | None = None
    heard_first_speech: float | None = None
    mic_lag: float | None = None
    """The mic's ``speech_end`` minus the last voiced sample's time in the recording (approx.)."""

    @classmethod
    def from_messages(cls, question: str, messages: list[Message]) -> TurnRecord:
        """The turn's stages as :mod:`bus.turns` reads them, and what the models took."""
        record = cls(question)
        timeline = Timeline.of(messages[0].turn or "", messages) if messages else None
        for msg in messages:
            if isinstance(msg, Transcript | SpeculativeTranscript):
                record.stt_compute = msg.compute  # the latest: the one the answer used
            elif isinstance(msg, TraceMark) and msg.stage == SYNTH_ANSWER:
                record.tts_compute = float(msg.detail or 0)
        if timeline is not None:
            record.text = timeline.text
            record.speculative = CONFIRMED in timeline.times
            if timeline.speech_end:  # times count from it
                record.speech_end = timeline.speech_end
                record.times = timeline.stages
        return record

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        t = self.times
        parts = [f"heard speech {_fmt(self.heard_first_speech)}",
                 f"sound {_fmt(self.heard_first_sound)}",
                 f"bus answer {_fmt(t.get(FIRST_ANSWER))}",
                 f"transcript {_fmt(t.get(TRANSCRIPT))}",
                 f"stt {self.stt_compute:.2f}", f"tts {self.tts_compute:.2f}"]
        if self.speculative:
            parts.append("speculative")
        return " · ".join(parts) + f" · {self.text!r}"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def critical_path(r: TurnRecord, window: float) -> list[Step]:
    """The steps from the end of speech to the answer's first sample at the device, in order."""
    t = r.times
    needed = (FIRST_ANSWER, SYNTH_ANSWER, SAY, LLM_REQUEST, LLM_FIRST_TOKEN, TRANSCRIPT,
              WINDOW_CLOSED)
    if any(name not in t for name in needed):
        return []
    ready = t[SYNTH_ANSWER]
    commit = t.get(CONFIRMED)
    path: list[Step] = [
        ("audio out: device callback and buffer", t[FIRST_ANSWER] - max(ready, commit or ready),
         "output")
    ]
    if commit is not None and commit >= ready:
        path.append(("dialogue: transcript to commit", commit - t[TRANSCRIPT], "overhead"))
        path += _after_window(r, window)
        return path[::-1]
    path += [
        ("tts: first piece", r.tts_compute, "tts"),
        ("tts: SpeakRequest to synthesis", ready - r.tts_compute - t[SAY], "overhead"),
        (
            "dialogue: first token to SpeakRequest",
            t[SAY] - t[LLM_FIRST_TOKEN],
            "overhead",
        ),
        ("llm: request to first token", t[LLM_FIRST_TOKEN] - t[LLM_REQUEST], "llm"),
    ]
    if commit is not None and GUESS in t and PARTIAL in t:
        path += [
            ("dialogue: guess to LLM request", t[LLM_REQUEST] - t[GUESS], "overhead"),
            ("stt: transcription", r.stt_compute, "stt"),
            ("stt: partial to transcription", t[GUESS] - r.stt_compute - t[PARTIAL],
             "overhead"),
            ("mic: speech end to partial", t[PARTIAL], "input"),
        ]
        return path[::-1]
    path.append(("dialogue: transcript to LLM request", t[LLM_REQUEST] - t[TRANSCRIPT],
                 "overhead"))
    path += _after_window(r, window)
    return path[::-1]


def _after_window(r: TurnRecord, window: float) -> list[Step]:
    """From the end of speech to the transcript, when the window's close starts the rest."""
    t = r.times
    closed, transcript = t[WINDOW_CLOSED], t[TRANSCRIPT]
    if GUESS in t:
        done = t[GUESS]
    elif PARTIAL in t:
        done = t[PARTIAL] + r.stt_compute  # approx.: the engine was idle at the partial
    else:
        done = closed + r.stt_compute
    stt = min(transcript - closed, max(0.0, done - closed))
    return [
        ("stt: transcript after the window", transcript - closed - stt, "overhead"),
        ("stt: transcription left at the window's close", stt, "stt"),
        ("mic: detection after the window", closed - window, "input"),
        ("mic: end-of-speech window", window, "window"),
    ]


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": math.nan, "p95": math.nan, "n": 0}
    return {
        "p50": round(float(np.percentile(values, 50)), 4),
        "p95": round(float(np.percentile(values, 95)), 4),
        "n": len(values),
    }


def summarize(records: list[TurnRecord], window: float) -> dict[str, Any]:
    paths = [critical_path(r, window) for r in records]
    stages: dict[str, list[float]] = {}
    categories: dict[str, list[float]] = {}
    for path in paths:
        if not path:
            continue
        sums: dict[str, float] = {}
        for name, seconds, category in path:
            stages.setdefault(name, []).append(seconds)
            sums[category] = sums.get(category, 0.0) + seconds
        for category, seconds in sums.items():
            categories.setdefault(category, []).append(seconds)

    def present(key: str) -> list[float]:
        return [r.times[key] for r in records if key in r.times]

    totals = {
        "heard: first answer speech": [
            r.heard_first_speech for r in records if r.heard_first_speech is not None],
        "heard: first sound": [
            r.heard_first_sound for r in records if r.heard_first_sound is not None],
        "bus: first answer speech": present(FIRST_ANSWER),
        "bus: first sound": present(FIRST_SOUND),
        "pipeline overhead": categories.get("overhead", []),
        "mic speech_end minus true end": [r.mic_lag for r in records if r.mic_lag is not None],
    }
    events = {key: percentiles(present(key)) for key in sorted(
        {k for r in records for k in r.times})}
    complete = sorted((p for p in paths if p), key=lambda p: sum(step[1] for step in p))
    median_path = complete[len(complete) // 2] if complete else []
    return {
        "median_path": [[name, round(seconds, 4), category]
                        for name, seconds, category in median_path],
        "turns": len(records),
        "speculative_turns": sum(r.speculative for r in records),
        "totals": {name: percentiles(values) for name, values in totals.items()},
        "stages": {name: percentiles(values) for name, values in stages.items()},
        "categories": {name: percentiles(values) for name, values in categories.items()},
        "events": events,
        "stt_compute": percentiles([r.stt_compute for r in records]),
        "tts_compute": percentiles([r.tts_compute for r in records if r.tts_compute]),
        "transcripts_right": sum(_same(r.question, r.text) for r in records),
    }


def _same(question: str, heard: str) -> bool:
    from tests.helpers.words import words

    return words(question) == words(heard)
