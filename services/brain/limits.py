"""An ASGI guard in front of the API: body size, type and pace are checked before parsing."""

from __future__ import annotations

import asyncio
import json
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestGuard:
    """Refuse bodies over ``max_body`` bytes (413), non-JSON bodies (415) and bodies not
    received within ``body_timeout`` seconds (408: a slow client holds nothing for long).

    The body is read here (it is small by then), so a chunked upload without
    a Content-Length cannot get past the limit either.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        body_timeout: float,
        larger: tuple[tuple[str, int], ...] = (),
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.larger = larger
        """(path prefix, limit): routes whose bodies may be larger than ``max_body``."""
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        limit = next((n for p, n in self.larger if scope["path"].startswith(p)), self.max_body)
        declared = headers.get("content-length", "")  # the HTTP server checked its syntax
        if declared.isdigit() and int(declared) > limit:
            await refuse(send, 413, _too_big(limit))
            return
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind and kind != "application/json" and not kind.endswith("+json"):
            await refuse(send, 415, f"Content-Type must be application/json, not {kind}")
            return
        body = bytearray()
        deadline = time.monotonic() + self.body_timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), deadline - time.monotonic())
            except TimeoutError:
                error = f"request body not received within {self.body_timeout:g} s"
                await refuse(send, 408, error)
                return
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > limit:
                await refuse(send, 413, _too_big(limit))
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(bytes(body), receive), send)


def _too_big(limit: int) -> str:
    return f"request body larger than {limit} bytes"


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def refuse(send: Send, status: int, error: str) -> None:
    payload = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
