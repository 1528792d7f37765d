"""The whole assistant with everything around it: the sound card, the outside services, a
calendar, and the steps of a spoken turn.

One :class:`World` runs for all of ``tests/system/e2e`` (see ``conftest.py``): every
Procfile process, the four example tools with ``[env]`` pointing at a test vdir
and at local OpenWeatherMap and SearXNG stand-ins, the scripted LLM.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bus.message import Message, new_id
from bus.messages import Reply, Speaking, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.hearing import RATE, SinkRecording, loud_regions
from tests.helpers.owm import KEY, FakeOpenWeatherMap
from tests.helpers.searxng import FakeSearxng
from tests.helpers.speech import padded
from tests.helpers.vdir import Vdir, event

TOOLS = ("now", "calendar", "weather", "search", "add_event")
QUIET_AFTER = 3.0
"""Seconds of listening after an answer has been played: a mic that heard the answer
would have made a transcript of it by then (VAD window 0.5 s, STT well under 1 s)."""


class World:
    def __init__(self, root: Path) -> None:
        self.owm = FakeOpenWeatherMap()
        self.searxng = FakeSearxng()
        self.vdir = Vdir(root / "calendars")
        self.today = date.today()
        day = self.today.strftime("%Y%m%d")
        self.vdir.add_events(
            "personal", "dentist", event("dentist@test", "Dentist", f"DTSTART:{day}T153000",
                                         f"DTEND:{day}T160000")
        )
        weather_env = root / "weather.env"
        weather_env.write_text(f"KEY={KEY}\nCITY=Rome\nCOUNTRY=IT\nUNITS=metric\n")
        (root / "cache").mkdir()
        self.assistant = Assistant(
            sound=True,
            tools=TOOLS,
            config=(
                "[env]\n"
                f'CALENDAR_DIR = "{self.vdir.root}"\n'
                f'WEATHER_ENV = "{weather_env}"\n'
                f'OWM_URL = "{self.owm.url}"\n'
                f'SEARXNG_URL = "{self.searxng.url}"\n'
                f'XDG_CACHE_HOME = "{root / "cache"}"\n'  # no stale weather cache of this machine
            ),
        )

    def start(self) -> World:
        self.assistant.start()
        return self

    def close(self) -> None:
        self.assistant.close()
        self.owm.close()
        self.searxng.close()


def tool_result_answer(template: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder for the round after a tool call: the model's answer is ``template``
    filled with the content of the last tool message of the request it received."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        results = [m["content"] for m in body["messages"] if m.get("role") == "tool"]
        if not results:
            return c.http_error(500, "the script expected a tool result in this request")
        return c.text(template.format(results[-1]))

    return respond


def script_tool_turn(world: World, name: str, template: str, **arguments: Any) -> None:
    """The model calls ``name(**arguments)``, then answers with what the tool returned."""
    llm = world.assistant.llm
    llm.reset()
    llm.script(c.tool_calls([c.call(name, **arguments)]))
    llm.responder = tool_result_answer(template)


def clock() -> datetime:
    """The time as ``date`` tells it (the tool ``now`` runs ``date`` too)."""
    out = subprocess.run(
        ["date", "+%Y-%m-%dT%H:%M:%S"], capture_output=True, text=True, check=True, timeout=5
    )
    return datetime.fromisoformat(out.stdout.strip())


@dataclass
class VoiceTurn:
    turn: str
    transcript: Transcript
    reply: Reply
    heard: np.ndarray
    """What the sink played from before the question to a while after the answer."""
    asked: datetime
    answered: datetime

    def messages(self, seen: list[Message]) -> list[Message]:
        return [m for m in seen if m.turn == self.turn]

    def question_and_answer(self) -> tuple[np.ndarray, np.ndarray]:
        """What the sink played, cut where the answer starts (its first sound after a pause)."""
        start, _ = first_after_a_pause(loud_regions(self.heard))
        cut = int(start * RATE)
        return self.heard[:cut], self.heard[cut:]


def first_after_a_pause(
    regions: list[tuple[float, float]], pause: float = 0.4
) -> tuple[float, float]:
    """The first sound after the question: the answer starts after the end-of-speech window
    and the transcription, a longer silence than any pause within the spoken question."""
    for before, region in zip(regions, regions[1:], strict=False):
        if region[0] - before[1] >= pause:
            return region
    raise AssertionError(f"no sound after a pause: {regions}")


async def voice_turn(
    assistant: Assistant,
    rec: Recorder,
    question: str,
    quiet: float = QUIET_AFTER,
    clip: Path | None = None,
) -> VoiceTurn:
    """Play ``question`` (or the WAV ``clip`` of it) into the sink, wait until its answer
    has been played, keep listening ``quiet`` seconds more, and return what the sink
    played meanwhile."""
    assert assistant.card is not None
    wav = clip or padded(question, assistant.root)[0]
    sink = SinkRecording(assistant.card, assistant.root / f"sink-{new_id()}.raw").start()
    try:
        asked = clock()
        await asyncio.to_thread(assistant.card.play, wav)
        transcript = await rec.until(Transcript, timeout=60)
        turn = transcript.turn or ""
        reply = await rec.until(Reply, lambda r: r.reply_to == turn, timeout=60)
        await rec.until(Speaking, lambda s: s.turn == turn and not s.speaking, timeout=60)
        answered = clock()
        await rec.drain(quiet)
        await asyncio.to_thread(sink.until_quiet)
    finally:
        heard = sink.stop()
    return VoiceTurn(turn, transcript, reply, heard, asked, answered)
