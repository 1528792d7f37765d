"""The bodies of the OpenAI-compatible routes: the request as pydantic checks it, the answers.

Only what the assistant uses is read from a request: the last ``user``
message (the assistant keeps its own history, so a client's copy of the
conversation is not needed), ``stream``, ``user`` and the
``desktop_assistant`` extension. Everything else a client sends
(``temperature``, ``tools``, ``max_tokens``...) is accepted and ignored: the
assistant's own settings and tools decide.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

OPENAI_PREFIX = "/v1/"
"""Where the OpenAI-compatible routes live."""
MODEL = "desktop-assistant"
"""The one model ``/v1/models`` lists; any ``model`` a client asks for gets the assistant."""


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: str = ""


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(max_length=32)
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        """The text of the message; the text parts of a multi-part one, one per line."""
        if isinstance(self.content, list):
            return "\n".join(p.text for p in self.content if p.type == "text" and p.text)
        return self.content or ""


class Extension(BaseModel):
    """The ``desktop_assistant`` field of a request: what an OpenAI body cannot say."""

    model_config = ConfigDict(extra="forbid")

    client_type: Literal["voice", "text"] = Field(
        "text", description="``voice`` clients are offered adjust_volume"
    )
    lang: str | None = Field(None, max_length=16, description="Language code, if known")


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = Field(MODEL, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=1000)
    stream: bool = False
    user: str | None = Field(None, max_length=200, description="The session, unless a header says")
    desktop_assistant: Extension = Field(default_factory=Extension)  # type: ignore[arg-type]

    def question(self) -> str:
        """The text of the last ``user`` message; "" when there is none."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text().strip()
        return ""


def extra(control: list[dict[str, Any]], error: str | None) -> dict[str, Any]:
    """The ``desktop_assistant`` field of an answer: the client actions and the turn's error."""
    return {"actions": control, "error": error}


def completion(
    answer_id: str, model: str, text: str, control: list[dict[str, Any]], error: str | None
) -> dict[str, Any]:
    """A ``chat.completion``: the whole answer at once."""
    message = {"role": "assistant", "content": text, "desktop_assistant": extra(control, error)}
    return {
        "id": answer_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
    }


def chunk(
    answer_id: str, model: str, delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` of a streamed answer."""
    return {
        "id": answer_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def models() -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "desktop-assistant"}],
    }


ERROR_TYPES = {
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "not_found"),
    409: ("invalid_request_error", "request_reused"),
    429: ("rate_limit_error", "busy"),
    503: ("server_error", "unavailable"),
    504: ("server_error", "timeout"),
}


def error(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error body for a refusal with ``status``."""
    kind, code = ERROR_TYPES.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
