"""What the page changes of the mic and of the voice conversation: the listen mode, the mic
opened once, and the yes or no to a modifying tool's question asked by voice.

Each route is behind :meth:`PageGuard.check` (the CSRF token), its body JSON that pydantic
checks strictly: an unknown mode or answer is a 422 that names the field and the values
it takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import Depends, FastAPI
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from bus.client import RequestTimeout
from bus.liveness import AnswererLost, request_watched
from bus.message import new_id
from bus.messages import (
    ListenModeRequest,
    ListenModeState,
    ListenRequest,
    QuestionRequest,
    Reply,
)
from services.base.names import DIALOGUE, LOCAL_SESSION, MIC
from services.brain.page.live import Live

MIC_TIMEOUT = 3.0
NO_MIC = "no mic service is running"


class Mode(BaseModel):
    model_config = ConfigDict(strict=True)
    mode: Literal["wake", "always", "push"]


class Confirm(BaseModel):
    model_config = ConfigDict(strict=True)
    answer: Literal["yes", "no"]
    turn: str = Field(min_length=1, max_length=200, description="The turn that asked")


def add_controls(app: FastAPI, live: Live, guarded: Callable[..., None]) -> None:
    bridge = live.bridge
    checked = [Depends(guarded)]

    async def ask_mic(mode: str) -> dict[str, Any]:
        try:
            state = await bridge.bus.request(ListenModeRequest(mode=mode), ListenModeState,
                                             MIC_TIMEOUT)
        except RequestTimeout:
            raise HTTPException(503, f"the mic ({MIC}) did not answer") from None
        live.saw(state)  # taken by our waiter: the other tabs learn it here
        return {"mode": state.mode, "error": state.error, "mic": True}

    @app.get("/page/listen-mode", dependencies=checked, include_in_schema=False)
    async def listen_mode() -> dict[str, Any]:
        """The mic's mode, asked of the mic: it may have changed since the brain started.
        Without a mic, the one it will start with (the config's)."""
        if not bridge.liveness.alive(MIC):
            return {"mode": live.listen_mode, "error": "", "mic": False}
        return await ask_mic("")

    @app.post("/page/listen-mode", dependencies=checked, include_in_schema=False)
    async def change_listen_mode(body: Mode) -> dict[str, Any]:
        """Until the mic restarts: ``[listen] mode`` in the config is what it starts with."""
        if not bridge.liveness.alive(MIC):
            raise HTTPException(503, NO_MIC)
        return await ask_mic(body.mode)

    @app.post("/page/listen", dependencies=checked, include_in_schema=False)
    async def listen() -> dict[str, Any]:
        if not bridge.liveness.alive(MIC):
            raise HTTPException(503, NO_MIC)
        bridge.bus.publish(ListenRequest())
        return {"listening": live.listen_mode != "always", "mode": live.listen_mode}

    @app.post("/page/confirm", dependencies=checked, include_in_schema=False)
    async def confirm(body: Confirm) -> dict[str, Any]:
        """The voice session's next turn, typed: "yes" or "no", as ``desktop-assistant ask
        --session local yes`` sends it. Its answer is shown, not spoken."""
        if not bridge.liveness.alive(DIALOGUE):
            raise HTTPException(503, "the dialogue service is not running")
        # Taken before the answer is sent: a second press (another tab) is refused here,
        # not asked as a new question once the first has taken the action.
        if live.waiting.take(LOCAL_SESSION, body.turn) is None:
            raise HTTPException(409, "no question of the voice session waits for that "
                                     "answer any more (it was answered, or it lapsed)")
        live.confirmations_changed()
        asking = live.board.turns.get(body.turn)
        ask = QuestionRequest(session=LOCAL_SESSION, text=body.answer, client_type="text",
                              lang=asking.lang if asking is not None and asking.lang else None,
                              turn=new_id())
        try:
            reply = await request_watched(bridge.bus, bridge.liveness, DIALOGUE, ask, Reply,
                                          bridge.timeout)
        except AnswererLost as exc:
            raise HTTPException(503, str(exc)) from None
        except RequestTimeout:
            raise HTTPException(
                504, f"the dialogue service did not answer within {bridge.timeout:g} s"
            ) from None
        live.saw(reply)  # taken by our waiter: the board and the tabs learn it here
        return {"turn": ask.turn, "answer": reply.text, "error": reply.error,
                "confirmation": reply.confirmation}
