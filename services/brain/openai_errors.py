"""Refusals under ``/v1/`` in OpenAI's error shape, whoever refused.

The brain's guards (token, trust gate, body limits) and its validation answer
``{"error": "what is wrong"}``; an OpenAI client expects
``{"error": {"message", "type", "param", "code"}}`` and reads a bad body as
``400``, not ``422``. This middleware, outermost, rewrites those answers for the
OpenAI routes only, so that the guards stay one piece of code for every route.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.brain.openai_shapes import OPENAI_PREFIX, error


class OpenAIErrors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(OPENAI_PREFIX):
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        body = bytearray()

        async def rewrite(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] >= 400:
                held = message  # sent once the whole body is known
                return
            if held is None:
                await send(message)
                return
            body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                await _send_rewritten(send, held, bytes(body))

        await self.app(scope, receive, rewrite)


async def _send_rewritten(send: Send, start: Message, body: bytes) -> None:
    status, payload = _openai(start["status"], body)
    encoded = json.dumps(payload).encode()
    headers = [
        (name, value)
        for name, value in start.get("headers", [])
        if name.lower() not in (b"content-length", b"content-type")
    ]
    headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(encoded))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": encoded})


def _openai(status: int, body: bytes) -> tuple[int, dict[str, Any]]:
    """(status, OpenAI error body) for the brain's refusal ``body``; a validation error
    (422) becomes a 400 naming the first field at fault."""
    try:
        refusal = json.loads(body)
    except ValueError:
        refusal = {}
    found = refusal.get("error") if isinstance(refusal, dict) else None
    if isinstance(found, dict):  # in OpenAI's shape already
        return status, refusal
    message = found if isinstance(found, str) else body.decode("utf-8", "replace") or str(status)
    if status == 422:
        fields = refusal.get("fields") or [{}]
        return 400, error(400, message, fields[0].get("field"))
    return status, error(status, message)
