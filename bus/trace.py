"""Per-turn latency traces built from bus messages alone (``tap --turns``).

Every stage stamps the turn id, so a turn's timeline is the messages that
carry it, read by :mod:`bus.turns` (the stage names are listed in
``docs/bus.md``, "Turn stages"). Times are seconds from the end of speech
(voice turns) or from the question (text turns). A turn is printed once it is
complete: answered, and what it said played to the end.
"""

from __future__ import annotations

import json
import time
from typing import Any, TextIO

from bus.client import Bus
from bus.message import Message
from bus.messages import QuestionRequest
from bus.turns import Timeline

TOPICS = (
    "audio.",
    "stt.",
    "dialogue.",
    "tts.say",
    "tts.speaking",
    "tts.spoken",
    "tools.call",
    "tools.result",
    "trace.",
)
STALE_AFTER = 60.0
"""Seconds after which an unfinished turn is printed as it is."""


def turn_of(msg: Message) -> str | None:
    """The turn ``msg`` belongs to; a question sent without one starts the turn named by
    its own id (what the dialogue then stamps on the turn's messages)."""
    if msg.turn is None and isinstance(msg, QuestionRequest):
        return msg.id
    return msg.turn


class TurnFold:
    """Many turns at once: :meth:`feed` it messages and the time they came (any clock);
    it returns the turns just completed, and those silent for ``stale_after`` seconds."""

    def __init__(self, stale_after: float = STALE_AFTER) -> None:
        self.stale_after = stale_after
        self.turns: dict[str, Timeline] = {}
        self.last_seen: dict[str, float] = {}

    def feed(self, msg: Message, now: float) -> list[Timeline]:
        turn = turn_of(msg)
        if turn is None:
            return self.expire(now)
        timeline = self.turns.setdefault(turn, Timeline(turn))
        self.last_seen[turn] = now
        timeline.add(msg)
        if timeline.complete:
            self._forget(turn)
            return [timeline, *self.expire(now)]
        return self.expire(now)

    def expire(self, now: float) -> list[Timeline]:
        stale = [t for t, seen in self.last_seen.items() if now - seen > self.stale_after]
        return [self._forget(turn) for turn in stale]

    def _forget(self, turn: str) -> Timeline:
        del self.last_seen[turn]
        return self.turns.pop(turn)


def as_dict(timeline: Timeline) -> dict[str, Any]:
    origin = timeline.origin
    return {
        "turn": timeline.turn,
        "site": timeline.site,
        "text": timeline.text,
        "stages": timeline.stages,
        "tools": [
            {"name": tool.name, "start": round(tool.start - origin, 4),
             "duration": round(tool.duration, 4), "ok": tool.ok}
            for tool in timeline.tools
        ],
        "error": timeline.error,
        "answered_by": timeline.answered_by,
    }


def as_line(timeline: Timeline) -> str:
    """Stages and tool calls in the order they happened; a tool shows when it started
    and, in brackets, how long it ran. The whole turn id: it is what the logs show."""
    record = as_dict(timeline)
    parts = [(seconds, f"{stage} {seconds:.2f}s") for stage, seconds in record["stages"].items()]
    for tool in record["tools"]:
        failed = "" if tool["ok"] else " failed"
        parts.append(
            (tool["start"], f"tool {tool['name']} {tool['start']:.2f}s "
                            f"({tool['duration']:.2f}s{failed})")
        )
    parts.sort(key=lambda part: part[0])
    error = f" error={timeline.error}" if timeline.error else ""
    error += f" by={timeline.answered_by}" if timeline.answered_by else ""
    text = " · ".join(part for _, part in parts)
    site = f" in {timeline.site}" if timeline.site else ""
    return f"turn {timeline.turn}{site} {timeline.text[:40]!r}: {text}{error}"


async def trace_turns(bus: Bus, as_json: bool, out: TextIO) -> None:
    bus.subscribe(*TOPICS)
    fold = TurnFold()
    while True:
        msg = await bus.recv(timeout=5.0)
        now = time.monotonic()
        done = fold.feed(msg, now) if msg is not None else fold.expire(now)
        for timeline in done:
            record = json.dumps(as_dict(timeline), ensure_ascii=False)
            print(record if as_json else as_line(timeline), file=out, flush=True)
