"""Recognise a tool call that the model wrote as plain text instead of ``tool_calls``.

Gemma's templates sometimes do this: a JSON object such as
``{"name": "weather", "arguments": {"place": "Rome"}}`` (maybe in a code fence
or ``<tool_call>`` tags), or a Python-style call in a ``tool_code`` fence. Only
calls of tools that were offered are accepted; anything else stays text.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from typing import Any

MAX_TEXT = 4000
CALL_STARTS = "{[`<"
"""A reply whose first character is one of these may be a call: hold it back from speech."""

_FENCE = re.compile(r"^```[\w-]*\s*(.*?)\s*```$", re.DOTALL)
_TAGS = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def may_be_call(text: str) -> bool:
    stripped = text.lstrip()
    return bool(stripped) and stripped[0] in CALL_STARTS


def parse_text_calls(text: str, known: Collection[str]) -> list[tuple[str, str]] | None:
    """``[(name, arguments_json), ...]`` if ``text`` is only tool calls of ``known`` tools."""
    body = text.strip()
    if not body or len(body) > MAX_TEXT:
        return None
    tagged = _TAGS.findall(body)
    if tagged and not _TAGS.sub("", body).strip():
        bodies = tagged
    else:
        fenced = _FENCE.match(body)
        bodies = [fenced.group(1) if fenced else body]
    calls: list[tuple[str, str]] = []
    for part in bodies:
        found = _json_calls(part)
        if found is None:
            found = _python_calls(part)
        if not found:
            return None
        calls.extend(found)
    if not all(name in known for name, _ in calls):
        return None
    return calls


def _json_calls(text: str) -> list[tuple[str, str]] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            return None
        if isinstance(item.get("function"), dict):
            item = item["function"]
        name = item.get("name")
        arguments = item.get("arguments", item.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError:
                return None
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return None
        calls.append((name, json.dumps(arguments, ensure_ascii=False)))
    return calls


def _python_calls(text: str) -> list[tuple[str, str]] | None:
    """``weather(place="Rome")`` or ``print(default_api.weather(place="Rome"))``, one per line."""
    try:
        tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    calls = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            return None
        call = _call(statement.value)
        if call is None:
            return None
        calls.append(call)
    return calls


def _call(node: ast.expr) -> tuple[str, str] | None:
    if not isinstance(node, ast.Call) or node.args and not _is_print(node):
        return None
    if _is_print(node):
        return _call(node.args[0]) if len(node.args) == 1 and not node.keywords else None
    func = node.func
    if isinstance(func, ast.Name):
        name = func.id
    elif isinstance(func, ast.Attribute):
        name = func.attr
    else:
        return None
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
    return name, json.dumps(arguments, ensure_ascii=False)


def _is_print(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "print"
