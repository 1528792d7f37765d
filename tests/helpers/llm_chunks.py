"""Build the scripted server's responses in the shapes each real server sends.

The shapes are those of llama-server, Ollama and vLLM as ``docs/dialogue.md`` lists them.
"""

from __future__ import annotations

import json
from typing import Any

Item = dict[str, Any]
DONE: Item = {"raw": "data: [DONE]\n\n"}


def chunk(delta: dict[str, Any], finish: str | None = None, model: str = "m") -> Item:
    """One ``chat.completion.chunk`` SSE event with a single choice."""
    return {
        "data": {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    }


def usage() -> Item:
    """llama-server's and vLLM's optional last chunk: usage, no choices."""
    return {
        "data": {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    }


def text_items(*pieces: str, style: str = "llama") -> list[Item]:
    """Content fragments as ``style`` streams them, without the end."""
    if style == "ollama":  # older builds repeat role and content in every chunk
        return [chunk({"role": "assistant", "content": p}) for p in pieces]
    return [chunk({"role": "assistant", "content": None})] + [chunk({"content": p}) for p in pieces]


def text(*pieces: str, style: str = "llama", done: bool = True) -> dict[str, Any]:
    """A plain answer streamed in ``pieces``."""
    items = text_items(*pieces, style=style)
    if style == "ollama":  # finish_reason on the last content chunk
        items[-1]["data"]["choices"][0]["finish_reason"] = "stop"
    else:
        items.append(chunk({}, "stop"))
        items.append(usage())
    return {"stream": items + ([DONE] if done else [])}


def fragments(arguments: str, size: int = 4) -> list[str]:
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]


def tool_call_items(
    calls: list[tuple[str, str]], style: str = "llama", ids: bool = True, content: str = ""
) -> list[Item]:
    """Tool calls ``(name, arguments)`` as ``style`` streams them, ending the stream.

    llama: id, type and name on the first delta of an index with ``arguments: ""``,
    then argument fragments. vllm: name first, later fragments with ``id: ""``.
    ollama: every call whole in one chunk. ollama-bug: the same, all with index 0.
    """
    items: list[Item] = text_items(content) if content else [chunk({"role": "assistant"})]
    if style in ("ollama", "ollama-bug"):
        whole = [
            {
                "index": 0 if style == "ollama-bug" else i,
                **({"id": f"call_o{i}"} if ids else {}),
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, (name, args) in enumerate(calls)
        ]
        items.append(chunk({"role": "assistant", "content": "", "tool_calls": whole}, "tool_calls"))
        return items + [DONE]
    for i, (name, args) in enumerate(calls):
        first: dict[str, Any] = {"index": i, "type": "function", "function": {"name": name}}
        if ids:
            first["id"] = f"call_srv{i}"
        if style == "llama":
            first["function"]["arguments"] = ""
        items.append(chunk({"tool_calls": [first]}))
        for part in fragments(args):
            frag: dict[str, Any] = {"index": i, "function": {"arguments": part}}
            if style == "vllm":
                frag["id"] = ""
            items.append(chunk({"tool_calls": [frag]}))
    items.append(chunk({}, "tool_calls"))
    items.append(usage())
    return items + [DONE]


def tool_calls(calls: list[tuple[str, str]], **kwargs: Any) -> dict[str, Any]:
    return {"stream": tool_call_items(calls, **kwargs)}


def call(name: str, **arguments: Any) -> tuple[str, str]:
    return name, json.dumps(arguments)


def http_error(status: int, message: str) -> dict[str, Any]:
    """llama-server's error shape."""
    kind = "unavailable_error" if status == 503 else "server_error"
    return {"status": status, "body": {"error": {"code": status, "message": message, "type": kind}}}
