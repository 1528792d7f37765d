"""The tools a turn may offer: the executor's catalog, plus the built-in ``adjust_volume``.

Catalog tools run in the tool executor over the bus, each with its own
deadline; ``adjust_volume`` runs nothing here: the voice side owns the volume
(the dialogue does not know its value), so it turns into a control action that
the voice side applies.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from typing import Any

from bus.client import Bus, RequestTimeout
from bus.liveness import AnswererLost, Liveness, request_watched
from bus.messages import ToolCatalog, ToolRequest, ToolResult, ToolSpec
from services.base.names import TOOLS
from services.dialogue.toolcalls import ToolCallRequest
from settings.toolrules import VOLUME_TOOL as VOLUME_TOOL_NAME

log = logging.getLogger(__name__)

VOLUME = VOLUME_TOOL_NAME
VOLUME_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": VOLUME,
        "description": (
            "ユーザーが音量を上げてほしい/下げてほしいと発話した時に呼ぶ"
            "(例:「もっと大きく」「うるさいから下げて」「音量下げて」)。"
            "具体的な数値は分からないので、directionだけを渡す。"
            " Call this when the user asks for the voice to be louder or quieter"
            ' (e.g. "louder", "a bit louder please", "it\'s too loud, turn it down").'
            " The exact level is unknown: pass only the direction."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "direction": {
                    "type": "string",
                    "enum": ["up", "down"],
                    "description": "上げるならup、下げるならdown (up = louder, down = quieter)",
                }
            },
            "required": ["direction"],
        },
    },
}
EXECUTOR = TOOLS
"""The bus name of the tool executor, whose heartbeats a running call watches."""


def schema(spec: ToolSpec) -> dict[str, Any]:
    """A catalog entry as the model is offered it (OpenAI's function tool)."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


@dataclass(frozen=True)
class ToolOutcome:
    content: str
    """What the model receives."""
    control: dict[str, Any] | None = None
    """A client action (``adjust_volume``) for the voice side."""
    unavailable: bool = False
    """Nobody answered the call in time."""


class Toolbox:
    """The latest catalog, and running calls through the bus."""

    def __init__(
        self,
        bus: Bus,
        margin: float = 1.0,
        rng: random.Random | None = None,
        liveness: Liveness | None = None,
    ) -> None:
        self._bus = bus
        self._liveness = liveness or Liveness()
        """Fed by the service: a call fails at once when the executor dies meanwhile."""
        self.margin = margin
        """Seconds added to a tool's timeout before its call counts as unanswered."""
        self._rng = rng or random.Random()
        self._tools: dict[str, ToolSpec] = {}

    def update(self, catalog: ToolCatalog) -> None:
        # Each entry was checked when the catalog was decoded, by the rules `tools check`
        # applies too (settings.toolrules): none takes a built-in tool's name.
        tools = {spec.name: spec for spec in catalog.tools}
        if tools.keys() != self._tools.keys():
            log.info("tools: %s", ", ".join(sorted(tools)) or "none")
        self._tools = tools

    def offered(self, volume: bool) -> list[dict[str, Any]]:
        """Schemas for the request's ``tools``."""
        return [schema(spec) for spec in self._tools.values()] + ([VOLUME_TOOL] if volume else [])

    def for_intent(self, intent: str) -> ToolSpec | None:
        """The tool whose file says it answers ``intent`` (the first by name)."""
        return next((s for _, s in sorted(self._tools.items()) if s.intent == intent), None)

    @property
    def specs(self) -> dict[str, ToolSpec]:
        return self._tools

    def modifying(self, calls: list[ToolCallRequest]) -> list[str]:
        """The names of the called tools that change something (they need the user's yes)."""
        return [call.name for call in calls
                if call.name in self._tools and self._tools[call.name].modifies]

    def names(self, volume: bool) -> set[str]:
        return set(self._tools) | ({VOLUME} if volume else set())

    def announcement(self, calls: list[ToolCallRequest], lang: str) -> str | None:
        """A phrase of the first called tool that has some for ``lang``, picked at random."""
        for call in calls:
            spec = self._tools.get(call.name)
            phrases = spec and (spec.announce.get(lang) or spec.announce.get(lang.split("-")[0]))
            if phrases:
                return self._rng.choice(phrases)
        return None

    async def run(
        self, call: ToolCallRequest, turn: str, volume: bool, confirmed_by: str = "",
        session: str = "",
    ) -> ToolOutcome:
        """Run one call; every failure is an ``error: ...`` result for the model.
        ``confirmed_by``: the user's words that said yes (a tool that modifies needs them)."""
        if call.name == VOLUME and volume:
            return adjust_volume(call)
        spec = self._tools.get(call.name)
        if spec is None:
            known = ", ".join(sorted(self.names(volume))) or "none"
            return ToolOutcome(f"error: unknown tool {call.name!r} (available: {known})")
        try:
            arguments = call.parsed_arguments()
        except ValueError as exc:
            return ToolOutcome(f"error: {exc}")
        request = ToolRequest(
            name=call.name,
            arguments=json.dumps(arguments, ensure_ascii=False),
            turn=turn,
            session=session,
            confirmed_by=confirmed_by,
        )
        try:
            result = await request_watched(
                self._bus,
                self._liveness,
                EXECUTOR,
                request,
                ToolResult,
                spec.timeout + self.margin,
            )
        except AnswererLost as exc:
            log.warning("%s: %s", call.name, exc)
            return ToolOutcome(
                f"error: the tool executor stopped while running {call.name}", unavailable=True
            )
        except RequestTimeout:
            log.warning("no tool executor answered %s within %.1f s", call.name, spec.timeout)
            return ToolOutcome("error: tool executor unavailable", unavailable=True)
        return ToolOutcome(result.content)


def adjust_volume(call: ToolCallRequest) -> ToolOutcome:
    """A client action: a control for the voice side, a confirmation for the model."""
    try:
        direction = call.parsed_arguments().get("direction")
    except ValueError as exc:
        return ToolOutcome(f"error: {exc}")
    if direction not in ("up", "down"):
        return ToolOutcome(f'error: direction must be "up" or "down", got {direction!r}')
    louder = "louder" if direction == "up" else "quieter"
    return ToolOutcome(
        f"ok: the voice will be {louder} from your next words",
        control={"type": "adjust_volume", "direction": direction},
    )
