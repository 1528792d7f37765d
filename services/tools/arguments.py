"""The model's arguments: parsed from JSON and put into argv, one element each."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from settings.toolfiles import PLACEHOLDER


class ToolError(Exception):
    """A call that cannot run; its message becomes ``error: <message>``."""


def parse_arguments(text: str) -> dict[str, Any]:
    """A JSON object; an empty text means no arguments (some servers send ``""``)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError(f"arguments are not valid JSON: {exc.msg} at character {exc.pos}") from None
    except RecursionError:
        raise ToolError("arguments are not valid JSON: nested too deeply") from None
    except ValueError as exc:  # json lets int()'s digit limit through (over 4,300 digits)
        raise ToolError(f"arguments are not usable: {str(exc).split(';')[0]}") from None
    if not isinstance(value, dict):
        raise ToolError(f"arguments must be a JSON object, not {_json_kind(value)}")
    return value


def as_text(value: Any) -> str:
    """The string a value becomes in argv: JSON spelling, and missing or null as ``""``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False)


def substitute(command: list[str], params: Iterable[str], values: dict[str, Any]) -> list[str]:
    """Replace each ``{param}`` inside each element; a value never becomes a new element.

    ``re.sub`` with a function inserts the value literally, so backslashes or
    braces in it are not interpreted either.
    """
    declared = set(params)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in declared:
            return match.group(0)
        text = as_text(values.get(name))
        if "\0" in text:
            raise ToolError(f"argument {name!r} contains a NUL character")
        return text

    return [PLACEHOLDER.sub(replace, part) for part in command]


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")
