"""Assemble the tool calls a stream delivers, whatever the server's way of sending them.

llama-server sends fragments per ``index`` (id and name first, arguments
concatenated), vLLM the same with ``id: ""`` on later fragments, Ollama each
call whole (a known bug gives every call index 0), and some servers send no id
at all. The result is a clean list of calls with unique, non-empty ids and
names, and without the repeated calls Gemma sometimes emits.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolCallRequest:
    """One complete call as the model made it."""

    id: str
    name: str
    arguments: str
    """The model's arguments as sent (JSON text, if the model got it right)."""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as an object; ValueError says what is wrong with them."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError(
                f"arguments are not valid JSON ({exc.args[0]}): {text[:200]}"
            ) from None
        if not isinstance(value, dict):
            raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
        return value

    def message(self) -> dict[str, Any]:
        """The entry for the assistant message's ``tool_calls`` sent back to the server.

        Arguments that are not a JSON object are sent as ``{}``: llama-server
        parses them to render its template and would fail the whole request.
        """
        try:
            arguments = json.dumps(self.parsed_arguments(), ensure_ascii=False)
        except ValueError:
            arguments = "{}"
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": arguments},
        }


@dataclass
class _Slot:
    id: str | None = None
    name: str | None = None
    arguments: str = ""


class ToolCallAssembler:
    """Feed ``delta.tool_calls`` lists with :meth:`add`; read the result with :meth:`calls`."""

    def __init__(self, taken_ids: set[str]) -> None:
        self._taken = taken_ids
        """Ids already used in this turn; new ids are added to it."""
        self._slots: list[_Slot] = []
        self._by_index: dict[int, _Slot] = {}

    def add(self, fragments: list[dict[str, Any]]) -> None:
        for fragment in fragments:
            index = fragment.get("index")
            call_id = _text(fragment.get("id"))
            function = fragment.get("function")
            function = function if isinstance(function, dict) else {}
            name = _text(function.get("name"))
            arguments = function.get("arguments")
            if isinstance(arguments, dict | list):  # some servers send the object itself
                arguments = json.dumps(arguments, ensure_ascii=False)
            slot = self._slot(index if isinstance(index, int) else None, call_id, name)
            slot.id = slot.id or call_id
            slot.name = slot.name or name
            slot.arguments += arguments if isinstance(arguments, str) else ""

    def _slot(self, index: int | None, call_id: str | None, name: str | None) -> _Slot:
        current = (
            self._by_index.get(index)
            if index is not None
            else (self._slots[-1] if self._slots and not name else None)
        )
        if current is not None and name and current.name:
            # Another call on the same index (Ollama's bug), not a fragment of this one.
            other_id = call_id is not None and current.id is not None and call_id != current.id
            if other_id or (call_id is None and _is_json(current.arguments)):
                current = None
        if current is None:
            current = _Slot()
            self._slots.append(current)
            if index is not None:
                self._by_index[index] = current
        return current

    def calls(self) -> list[ToolCallRequest]:
        """Every named call in order, ids made unique, repeats dropped."""
        out: list[ToolCallRequest] = []
        seen: set[tuple[str, str]] = set()
        for position, slot in enumerate(self._slots):
            if not slot.name:
                log.warning("dropped a tool call without a name: %r", slot.arguments[:200])
                continue
            key = (slot.name, _canonical(slot.arguments))
            if key in seen:
                log.info("dropped a repeated call of %s with the same arguments", slot.name)
                continue
            seen.add(key)
            call_id = self._unique(slot.id or f"call_{position}")
            out.append(ToolCallRequest(id=call_id, name=slot.name, arguments=slot.arguments))
        return out

    def _unique(self, call_id: str) -> str:
        candidate, n = call_id, 1
        while candidate in self._taken:
            n += 1
            candidate = f"{call_id}_{n}"
        self._taken.add(candidate)
        return candidate


def _text(value: Any) -> str | None:
    """A non-empty string, else None (vLLM sends ``id: ""`` on later fragments)."""
    return value if isinstance(value, str) and value else None


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments or "{}"), sort_keys=True)
    except ValueError:
        return arguments.strip()
