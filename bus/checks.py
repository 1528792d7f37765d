"""What the registry checks beyond msgspec's types, and how it words what it rejects."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

MAX_DEPTH = 32
_LEAVES = (str, bytes, bool, int, float, type(None))


def check_free_form(value: Any, depth: int = 0) -> None:
    """Free-form data (tool parameters, control actions) must be what JSON can hold, plus
    bytes: maps keyed by strings, lists, plain values, no deeper than ``MAX_DEPTH``.

    msgspec decodes anything msgpack can say into an ``Any``: integer or array keys
    (as tuples), extension types, timestamps. Those would pass here and fail later, far
    from the bus: a tool catalog with an integer key broke every request to the model.
    """
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, list):
        for item in value:
            check_free_form(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise ValueError(f"a map key that is not a string ({type(key).__name__})")
            check_free_form(item, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):  # a nested type: its free-form fields
            check_free_form(getattr(value, f.name), depth + 1)
    elif not isinstance(value, _LEAVES):
        raise ValueError(f"a value of type {type(value).__name__}")


_MISSING = re.compile(r"Object missing required field `(\w+)`")
_AT_FIELD = re.compile(r"(.*) - at `\$\.(\w+)(.*)`$")
_AT_KEY = re.compile(r"(.*) - at `key` in `\$(?:\.(\w+)(.*))?`$")


def reason_and_kind(error: str) -> tuple[str, str]:
    """msgspec's words said the registry's way (which field, what is wrong with it), and a
    kind that does not vary with the bytes, for rate-limited logging."""
    if missing := _MISSING.fullmatch(error):
        return f"missing field {missing[1]!r}", f"missing {missing[1]}"
    if key := _AT_KEY.fullmatch(error):
        detail = key[1].replace("`", "")
        if key[2] is None:  # the body's own keys
            return f"a field name that is not a string ({detail})", "field name"
        where = f" at {key[3]}" if key[3] else ""
        return f"field {key[2]!r}: a map key{where}: {detail}", f"field {key[2]}"
    if at := _AT_FIELD.fullmatch(error):
        where = f" (at {at[3]})" if at[3] else ""
        return f"field {at[2]!r}: {at[1].replace('`', '')}{where}", f"field {at[2]}"
    if error.startswith("Expected `object`"):
        return "body is not a map", "not a map"
    return error, "invalid"
