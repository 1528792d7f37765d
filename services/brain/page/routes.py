"""The page's routes on the brain's app: ``/`` and ``/page/...``.

Only ``/`` and the static files answer without the CSRF token: the HTML is
where the token comes from, and another site can load it only into a frame
(refused by the Content-Security-Policy) or read it not at all (the
same-origin policy). Every other route wants the token (:mod:`.guard`).
"""

from __future__ import annotations

import html
from importlib import resources
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException

from services.brain.page.actions import STREAM_HEADERS, add_actions
from services.brain.page.controls import add_controls
from services.brain.page.facts import PageFacts
from services.brain.page.guard import SIGN_IN_COOKIE, PageGuard, same
from services.brain.page.live import Live
from services.brain.page.status import Doctor

if TYPE_CHECKING:  # the brain's start builds the API with the bridge: no cycle at run time
    from services.brain.service import BrainBridge

STATIC = {"page.js": "text/javascript", "page.css": "text/css"}
"""The files the page loads, and their types: nothing else is served from the folder."""
NO_STORE = {"Cache-Control": "no-store"}


def read_static(name: str) -> str:
    return resources.files("services.brain.page").joinpath("static", name).read_text("utf-8")


def add_page_routes(app: FastAPI, bridge: BrainBridge, token: str, facts: PageFacts) -> None:
    guard = PageGuard(token)
    live = Live(bridge, facts.listen_mode)
    doctor = Doctor(facts.config_dir)
    checked = [Depends(guard.check)]
    index = read_static("index.html").replace("{{csrf}}", html.escape(guard.csrf))
    files = {name: read_static(name) for name in STATIC}

    @app.get("/", include_in_schema=False)
    async def page(request: Request) -> Response:
        offered = request.query_params.get("token", "")
        if token and offered:  # the sign-in: a cookie instead, and the token out of the URL
            if not same(offered, token):
                raise HTTPException(401, "wrong token")
            moved = RedirectResponse("/", status_code=303)
            moved.set_cookie(SIGN_IN_COOKIE, guard.signed, httponly=True, samesite="strict")
            return moved
        if not guard.signed_in(request):
            return PlainTextResponse(
                "This brain wants its token ([brain] token): open /?token=YOUR_TOKEN once.",
                status_code=401,
            )
        return Response(index, media_type="text/html; charset=utf-8", headers=NO_STORE)

    @app.get("/page/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        if name not in STATIC:
            raise HTTPException(404, f"no file {name!r}")
        return Response(files[name], media_type=f"{STATIC[name]}; charset=utf-8")

    @app.get("/page/events", dependencies=checked, include_in_schema=False)
    async def events() -> StreamingResponse:
        return StreamingResponse(
            live.stream(), media_type="text/event-stream", headers=STREAM_HEADERS
        )

    @app.get("/page/turns/{turn}", dependencies=checked, include_in_schema=False)
    async def turn_messages(turn: str) -> dict[str, Any]:
        messages = live.board.messages(turn)
        if messages is None:
            raise HTTPException(404, f"no turn {turn!r} among the recent ones")
        return {"turn": turn, "messages": messages}

    @app.get("/page/status", dependencies=checked, include_in_schema=False)
    async def status() -> dict[str, Any]:
        return {
            "services": live.services(), "llm": facts.llm, "stt": facts.stt,
            "listen_mode": live.listen_mode, "doctor": doctor.last,
        }

    @app.post("/page/doctor", dependencies=checked, include_in_schema=False)
    async def run_doctor() -> dict[str, Any]:
        return await doctor.checks()

    @app.get("/page/settings", dependencies=checked, include_in_schema=False)
    async def settings() -> dict[str, Any]:
        return {"folder": facts.config_dir, "settings": facts.settings, "sources": facts.sources}

    add_actions(app, live, guard.check)
    add_controls(app, live, guard.check)
    app.state.end_streams = live.feed.end_all  # called by server.serve as the brain stops
