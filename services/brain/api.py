"""The brain's HTTP API for other user interfaces: ``/ask``, ``/clear_history``, ``/health/ready``.

Validation is FastAPI's; the handlers below only turn its errors (and every
other refusal) into a 4xx with a JSON ``{"error": ...}`` that says what is wrong.
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import TYPE_CHECKING, Any, Literal

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException

from services.brain.answers import NoAnswer, Unavailable
from services.brain.gate import Gate, host_names
from services.brain.limits import RequestGuard
from services.brain.openai_api import MAX_CHAT_BODY, add_openai_routes
from services.brain.openai_errors import OpenAIErrors
from services.brain.openai_shapes import OPENAI_PREFIX
from services.brain.page.facts import PageFacts
from services.brain.page.guard import SecurityHeaders
from services.brain.page.routes import add_page_routes
from services.brain.refusals import answered
from settings.schema import BrainConfig

if TYPE_CHECKING:  # the brain's start builds the API with the bridge: no cycle at run time
    from services.brain.service import BrainBridge

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
UNPARSABLE = "There was an error parsing the body"


class AskBody(BaseModel):
    model_config = ConfigDict(strict=True)

    session_id: str = Field(min_length=1, max_length=200, description="The client's conversation")
    request_id: str = Field(
        min_length=1, max_length=200, description="Unique per question; a retry sends it again"
    )
    text: str = Field(
        min_length=1,
        description="What the user said; one longer than the dialogue reads is refused (413)",
    )
    client_type: Literal["voice", "text"] = Field(
        "text", description="``voice`` clients are offered adjust_volume"
    )
    lang: str | None = Field(None, max_length=16, description="Language code, if known")

    @field_validator("text")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value


class AskAnswer(BaseModel):
    conversation: str = Field(description="What to say (may be empty with a control)")
    control: list[dict[str, Any]] = Field(
        description='Client actions, e.g. {"type": "adjust_volume"}'
    )
    error: str | None = Field(None, description="A short code when the turn failed")
    confirmation: str = Field(
        "", description="The question of an action that waits for the user's yes: the "
        "session's next ask answers it (yes or no); empty when none"
    )


class ClearBody(BaseModel):
    model_config = ConfigDict(strict=True)

    session_id: str = Field(min_length=1, max_length=200)


class Problem(BaseModel):
    error: str


def create_app(bridge: BrainBridge, brain: BrainConfig, page: PageFacts | None = None) -> FastAPI:
    """The API; with ``page``, the web page at ``/`` too (``services/brain/page/``)."""
    token = brain.token
    app = FastAPI(
        title="desktop-assistant brain",
        description="The HTTP API of the assistant for other user interfaces.",
        version="1",
        docs_url=None,  # /docs and /redoc load their pages from a CDN: the assistant is offline
        redoc_url=None,
    )
    app.add_middleware(
        RequestGuard,
        max_body=MAX_BODY,
        body_timeout=brain.client_timeout,
        larger=((OPENAI_PREFIX, MAX_CHAT_BODY),),
    )
    app.add_middleware(Gate, token=token, names=host_names(brain.host, brain.allowed_hosts))
    app.add_middleware(OpenAIErrors)  # it rewrites the refusals of the guards too
    app.add_middleware(SecurityHeaders)  # outermost: every answer forbids framing, inline script
    _install_error_handlers(app)

    def authorized(request: Request) -> None:
        if not token:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        # as bytes: a header may hold any byte, and compare_digest refuses non-ASCII text
        offered = value.strip().encode("latin-1", errors="replace")
        if scheme.lower() != "bearer" or not secrets.compare_digest(offered, token.encode()):
            raise HTTPException(
                401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"}
            )

    refusals: dict[int | str, dict[str, Any]] = {
        code: {"model": Problem} for code in (400, 401, 409, 413, 415, 422, 429, 503, 504)
    }

    @app.post(
        "/ask", response_model=AskAnswer, responses=refusals, dependencies=[Depends(authorized)]
    )
    async def ask(body: AskBody) -> AskAnswer:
        answer = await answered(
            bridge.ask(body.session_id, body.request_id, body.text, body.client_type, body.lang)
        )
        return AskAnswer(
            conversation=answer.conversation, control=answer.control, error=answer.error,
            confirmation=answer.confirmation,
        )

    @app.post("/clear_history", responses=refusals, dependencies=[Depends(authorized)])
    async def clear_history(body: ClearBody) -> dict[str, Any]:
        try:
            await bridge.clear(body.session_id)
        except Unavailable as exc:
            raise HTTPException(503, str(exc)) from None
        except NoAnswer as exc:
            raise HTTPException(504, str(exc)) from None
        return {"session_id": body.session_id, "cleared": True}

    @app.get(
        "/health/ready", responses={503: {"model": Problem}}, dependencies=[Depends(authorized)]
    )
    async def ready() -> JSONResponse:
        ok, body = bridge.readiness()
        return JSONResponse(body, status_code=200 if ok else 503)

    add_openai_routes(app, bridge, authorized)
    if page is not None:
        add_page_routes(app, bridge, token, page)
    return app


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        broken = next((e for e in errors if e.get("type") == "json_invalid"), None)
        if broken is not None:
            reason = broken.get("ctx", {}).get("error", "not JSON")
            return JSONResponse({"error": f"malformed JSON: {reason}"}, status_code=400)
        problems = [_describe(e) for e in errors]
        return JSONResponse(
            {
                "error": "invalid request: " + "; ".join(f"{f}: {p}" for f, p in problems),
                "fields": [{"field": f, "problem": p} for f, p in problems],
            },
            status_code=422,
        )

    @app.exception_handler(HTTPException)
    async def refused(request: Request, exc: HTTPException) -> JSONResponse:
        detail = exc.detail
        if exc.status_code == 400 and detail == UNPARSABLE:  # FastAPI's word for any reason
            detail = f"malformed JSON: {_why_unparsable(await request.body())}"
        return JSONResponse({"error": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:  # a bug, not the client
        log.exception("%s %s failed", request.method, request.url.path)
        return JSONResponse({"error": "internal error (logged)"}, status_code=500)


def _why_unparsable(body: bytes) -> str:
    """What FastAPI found wrong with a body it could not parse, in a few words."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})"
    try:
        json.loads(text)
    except RecursionError:
        return "nested too deeply"
    except ValueError as exc:
        return str(exc)
    return "unreadable"


def _describe(error: dict[str, Any]) -> tuple[str, str]:
    """(field, problem) of one pydantic error, the field without FastAPI's ``body.`` prefix."""
    location = [str(part) for part in error.get("loc", ()) if part != "body"]
    if not location and error.get("type") in ("model_attributes_type", "dict_type", "model_type"):
        return "body", "must be a JSON object"
    return ".".join(location) or "body", str(error.get("msg"))
