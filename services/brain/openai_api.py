"""The assistant as an OpenAI model: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Any OpenAI client (Open WebUI, Home Assistant's OpenAI-compatible
integrations, the ``openai`` SDK) asks the assistant as it would ask a model;
the question runs as a text turn like ``/ask``'s, with the tools, the history
and the control actions. The session is the ``X-Session-Id`` header, else the
body's ``user``, else ``openai``; the request id is the ``Idempotency-Key`` or
``X-Request-Id`` header (a retry with it is answered once), else a new one.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException

from bus.message import new_id
from bus.messages import TextPiece
from services.brain.answers import Answer
from services.brain.openai_shapes import (
    MODEL,
    ChatRequest,
    chunk,
    completion,
    error,
    extra,
)
from services.brain.openai_shapes import models as model_list
from services.brain.pieces import Joiner
from services.brain.refusals import answered

if TYPE_CHECKING:  # the brain's start builds the API with the bridge: no cycle at run time
    from services.brain.service import BrainBridge

log = logging.getLogger(__name__)

DEFAULT_SESSION = "openai"
MAX_CHAT_BODY = 4 * 1024 * 1024
"""A chat client sends its whole conversation with every question (the assistant reads only
the last message): a long chat in Open WebUI goes far beyond ``/ask``'s 64 KiB."""
MAX_ID = 200
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def add_openai_routes(
    app: FastAPI, bridge: BrainBridge, authorized: Callable[[Request], None]
) -> None:
    guarded = [Depends(authorized)]

    @app.get("/v1/models", dependencies=guarded, tags=["openai"])
    async def models() -> dict[str, Any]:
        return model_list()

    @app.get("/v1/models/{model}", dependencies=guarded, tags=["openai"])
    async def model(model: str) -> dict[str, Any]:
        """Any id is the assistant: a client configured with another model name works."""
        return model_list()["data"][0] | {"id": model}

    @app.post("/v1/chat/completions", dependencies=guarded, tags=["openai"])
    async def chat(body: ChatRequest, request: Request) -> Any:
        question = body.question()
        if not question:
            raise HTTPException(
                400, 'no text in a message with role "user": the last one is the question'
            )
        session = _header_id(request, ("x-session-id",)) or body.user or DEFAULT_SESSION
        request_id = _header_id(request, ("idempotency-key", "x-request-id")) or new_id()
        turn = new_id()
        ext = body.desktop_assistant
        model_id = body.model or MODEL
        answer_id = f"chatcmpl-{turn}"
        if not body.stream:
            answer = await answered(
                bridge.ask(session, request_id, question, ext.client_type, ext.lang, turn)
            )
            return JSONResponse(
                completion(answer_id, model_id, answer.conversation, answer.control, answer.error)
            )
        queue = bridge.pieces.open(turn)
        task = asyncio.ensure_future(
            answered(bridge.ask(session, request_id, question, ext.client_type, ext.lang, turn))
        )
        task.add_done_callback(lambda t: _closed(bridge, turn, t))
        first = asyncio.ensure_future(queue.get())
        started: set[asyncio.Future[Any]] = {first, task}
        await asyncio.wait(started, return_when=asyncio.FIRST_COMPLETED)
        if task.done() and task.exception() is not None:
            first.cancel()
            raise task.exception()  # type: ignore[misc]  # refused before anything was sent
        events = _events(answer_id, model_id, queue, first, task)
        return StreamingResponse(events, media_type="text/event-stream", headers=SSE_HEADERS)


def _header_id(request: Request, names: tuple[str, ...]) -> str:
    for name in names:
        value = request.headers.get(name, "").strip()
        if len(value) > MAX_ID:
            raise HTTPException(400, f"header {name} longer than {MAX_ID} characters")
        if value:
            return value
    return ""


def _closed(bridge: BrainBridge, turn: str, task: asyncio.Future[Answer]) -> None:
    bridge.pieces.close(turn)
    if not task.cancelled():
        task.exception()  # retrieved: a client that went away no longer wants it


async def _events(
    answer_id: str,
    model_id: str,
    queue: asyncio.Queue[TextPiece],
    first: asyncio.Future[TextPiece],
    task: asyncio.Future[Answer],
) -> AsyncIterator[str]:
    """The answer as server-sent events: a chunk per piece of text as the dialogue writes it,
    the rest of the reply's text and its actions in the last chunk, then ``[DONE]``."""
    joiner = Joiner()
    pending = first

    def shown(piece: TextPiece) -> str:
        text = joiner.add(piece)
        return _event(chunk(answer_id, model_id, {"content": text})) if text else ""

    try:
        yield _event(chunk(answer_id, model_id, {"role": "assistant", "content": ""}))
        while True:
            waits: set[asyncio.Future[Any]] = {pending, task}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                break
            if text := shown(pending.result()):
                yield text
            pending = asyncio.ensure_future(queue.get())
        while not queue.empty():  # the pieces that came in with the answer
            if text := shown(queue.get_nowait()):
                yield text
        try:
            answer = task.result()
        except HTTPException as exc:  # the turn ran out of time, or its answerer went away
            yield _event(error(exc.status_code, str(exc.detail)))
            return
        rest = joiner.rest(answer.conversation)
        if rest:
            yield _event(chunk(answer_id, model_id, {"content": rest}))
        last = {"desktop_assistant": extra(answer.control, answer.error)}
        yield _event(chunk(answer_id, model_id, last, finish="stop"))
        yield "data: [DONE]\n\n"
    finally:
        pending.cancel()


def _event(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"
