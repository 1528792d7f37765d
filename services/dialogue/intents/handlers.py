"""What answers each recognized intent: a tool file that declares it, or a built-in.

Built in: the time and the date (the local clock), the volume (a control for the
speaker, as the model's ``adjust_volume`` would send), timers (:mod:`.timers`) and
"what can you do". The words come from Home Assistant's response template in the
question's language where the package has one, else from :mod:`.phrases`.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bus.errors import ErrorCode
from bus.message import new_id
from bus.messages import ToolSpec
from services.base import phrases as catalog
from services.dialogue.intents.phrases import duration, phrase, today
from services.dialogue.intents.recognizer import Match
from services.dialogue.intents.responses import render, timer_slots
from services.dialogue.intents.timers import MAX_TIMERS, Timers, TimersFull
from services.dialogue.toolbox import Toolbox
from services.dialogue.toolcalls import ToolCallRequest

CAPABILITIES = "AssistantCapabilities"
BUILT_IN = frozenset(
    {
        "HassGetCurrentTime", "HassGetCurrentDate", "HassGetWeather", "HassSetVolume",
        "HassSetVolumeRelative", "HassStartTimer", "HassCancelTimer", "HassCancelAllTimers",
        "HassTimerStatus", CAPABILITIES,
    }
)
"""The intents the recognizer keeps: each has an answer here (the weather's is a tool's)."""


@dataclass
class LocalAnswer:
    text: str
    control: list[dict[str, Any]] = field(default_factory=list)
    """``adjust_volume`` actions for the voice side, as a model's call would give."""
    volume: float | None = None
    """A volume level to set (1.0: as configured)."""


class Handlers:
    def __init__(
        self,
        timers: Timers,
        toolbox: Toolbox,
        clock: Callable[[], datetime.datetime] = datetime.datetime.now,
    ) -> None:
        self.timers = timers
        self.toolbox = toolbox
        self.clock = clock

    async def answer(self, match: Match, turn: str) -> LocalAnswer:
        spec = self.toolbox.for_intent(match.intent)
        if spec is not None:
            return await self._tool(spec, match, turn)
        lang, intent = match.lang, match.intent
        if intent == "HassGetCurrentTime":
            now = self.clock()
            return self._said(match, {"time": now.time()}, f"{now:%H:%M}")
        if intent == "HassGetCurrentDate":
            now = self.clock()
            return self._said(match, {"date": now.date()}, today(now, lang))
        if intent == "HassSetVolumeRelative":
            step = "up" if match.slots.get("volume_step") == "up" else "down"
            answer = self._said(match, {}, phrase(f"volume_{step}", lang))
            answer.control = [{"type": "adjust_volume", "direction": step}]
            return answer
        if intent == "HassSetVolume":
            answer = self._said(match, {}, phrase("volume_set", lang))
            answer.volume = float(match.slots.get("volume_level", 100)) / 100
            return answer
        if intent == "HassStartTimer":
            return self._start_timer(match)
        if intent in ("HassCancelTimer", "HassCancelAllTimers"):
            cancelled = self.timers.cancel()
            if not cancelled:
                return LocalAnswer(phrase("no_timer", lang))
            return self._said(match, {"canceled": cancelled}, phrase("timer_cancelled", lang))
        if intent == "HassTimerStatus":
            return self._timer_status(match)
        if intent == "HassGetWeather":
            return LocalAnswer(phrase("no_weather", lang))
        return LocalAnswer(phrase("capabilities", lang))

    def _said(self, match: Match, slots: dict[str, Any], fallback: str) -> LocalAnswer:
        return LocalAnswer(render(match.response, slots) or fallback)

    def _start_timer(self, match: Match) -> LocalAnswer:
        units = {"hours": 3600, "minutes": 60, "seconds": 1}
        seconds = sum(float(match.slots.get(k, 0)) * n for k, n in units.items())
        try:
            timer = self.timers.start(seconds, match.lang)
        except TimersFull:
            return LocalAnswer(phrase("too_many_timers", match.lang, count=MAX_TIMERS))
        said = {k: v for k, v in match.texts.items() if k in units}
        fallback = phrase("timer_set", match.lang, text=duration(timer.seconds, match.lang))
        return self._said(match, said, fallback)

    def _timer_status(self, match: Match) -> LocalAnswer:
        now = self.clock().timestamp()
        counting = self.timers.counting()
        if not counting:
            return LocalAnswer(phrase("no_timer", match.lang))
        slots = {"timers": [timer_slots(t.left(now), t.seconds) for t in counting]}
        text = duration(counting[0].left(now), match.lang)
        return self._said(match, slots, phrase("timer_left", match.lang, text=text))

    async def _tool(self, spec: ToolSpec, match: Match, turn: str) -> LocalAnswer:
        """The tool's output, said as it is; its parameters filled from the intent's slots."""
        properties = spec.parameters.get("properties", {})
        arguments = {
            name: match.texts.get(spec.slots.get(name, ""), "")
            for name, schema in properties.items()
            if schema.get("type") == "string"
        }
        call = ToolCallRequest(new_id(), spec.name, json.dumps(arguments, ensure_ascii=False))
        outcome = await self.toolbox.run(call, turn, volume=False)
        if outcome.unavailable or outcome.content.startswith("error:"):
            return LocalAnswer(catalog.apology(ErrorCode.TOOLS_UNAVAILABLE, match.lang)[0])
        return LocalAnswer(outcome.content.strip())
