"""What the page changes: a typed question (its answer streamed), the volume (the mic's
controls are in :mod:`.controls`).

Each is a POST behind :meth:`PageGuard.check` (the CSRF token); the body is JSON that
pydantic checks strictly, so bad input is a 422 that names the field.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from fastapi import Depends, FastAPI
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from bus.client import RequestTimeout
from bus.message import new_id
from bus.messages import TextPiece, VolumeRequest, VolumeState
from services.base.names import SPEAKER
from services.brain.answers import Answer
from services.brain.page.feed import event
from services.brain.page.live import Live
from services.brain.pieces import Joiner
from services.brain.refusals import answered

SESSION = "page"
"""The page's conversation: one history for every tab, kept apart from other clients'."""
SPEAKER_TIMEOUT = 3.0
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class Question(BaseModel):
    model_config = ConfigDict(strict=True)
    text: str = Field(min_length=1, max_length=4000, pattern=r"\S")
    request_id: str = Field("", max_length=200, description="A retry sends the same one")


class Volume(BaseModel):
    model_config = ConfigDict(strict=True)
    action: Literal["get", "up", "down", "set"]
    value: float | None = Field(None, ge=0.0, le=2.0)


def add_actions(app: FastAPI, live: Live, guarded: Callable[..., None]) -> None:
    bridge = live.bridge
    checked = [Depends(guarded)]

    @app.post("/page/ask", dependencies=checked, include_in_schema=False)
    async def ask(body: Question) -> StreamingResponse:
        turn = new_id()
        queue = bridge.pieces.open(turn)
        task = asyncio.ensure_future(
            answered(bridge.ask(SESSION, body.request_id or new_id(), body.text, "text", None,
                                turn))
        )
        task.add_done_callback(lambda _: bridge.pieces.close(turn))
        first = asyncio.ensure_future(queue.get())
        started: set[asyncio.Future[Any]] = {first, task}
        await asyncio.wait(started, return_when=asyncio.FIRST_COMPLETED)
        if task.done() and task.exception() is not None:
            first.cancel()
            raise task.exception()  # type: ignore[misc]  # refused: a plain HTTP error
        stream = _answer(turn, queue, first, task)
        return StreamingResponse(stream, media_type="text/event-stream", headers=STREAM_HEADERS)

    @app.post("/page/volume", dependencies=checked, include_in_schema=False)
    async def volume(body: Volume) -> dict[str, Any]:
        if body.action == "set" and body.value is None:
            raise HTTPException(422, "volume set needs a value from 0.0 to 2.0")
        try:
            state = await bridge.bus.request(
                VolumeRequest(action=body.action, value=body.value), VolumeState, SPEAKER_TIMEOUT
            )
        except RequestTimeout:
            raise HTTPException(503, f"the speaker ({SPEAKER}) did not answer") from None
        live.saw(state)  # taken by our waiter: the other tabs learn it here
        return {"volume": state.volume}


async def _answer(
    turn: str,
    queue: asyncio.Queue[TextPiece],
    first: asyncio.Future[TextPiece],
    task: asyncio.Future[Answer],
) -> AsyncIterator[str]:
    """The answer as it is written (``piece`` events), then the whole of it (``done``)."""
    joiner = Joiner()
    pending = first
    try:
        yield event("turn", {"turn": turn})
        while True:
            waits: set[asyncio.Future[Any]] = {pending, task}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                break
            if text := joiner.add(pending.result()):
                yield event("piece", {"text": text})
            pending = asyncio.ensure_future(queue.get())
        while not queue.empty():  # the pieces that came in with the answer
            if text := joiner.add(queue.get_nowait()):
                yield event("piece", {"text": text})
        try:
            answer = task.result()
        except HTTPException as exc:  # out of time, or the dialogue went away meanwhile
            yield event("failed", {"status": exc.status_code, "error": exc.detail})
            return
        if rest := joiner.rest(answer.conversation):
            yield event("piece", {"text": rest})
        yield event("done", {
            "turn": turn, "answer": answer.conversation, "error": answer.error,
            "confirmation": answer.confirmation, "control": answer.control,
        })
    finally:
        pending.cancel()
