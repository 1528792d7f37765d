"""Streaming client of an OpenAI-compatible ``/chat/completions`` (llama-server, Ollama, vLLM).

It turns the server's SSE stream into :class:`Delta` objects and every way a
request can fail into an :class:`LLMError` with a short code; it never lets an
``httpx`` exception or a malformed chunk escape. The time spent waiting on the
network is counted in :attr:`Waits.llm` so the loop can measure its own overhead.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from bus.errors import ErrorCode
from services.dialogue.timing import Waits
from settings.apikey import ApiKeyError, api_key, bearer, refused
from settings.secrets import safe_url

log = logging.getLogger(__name__)

STALE = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
"""How a kept-alive connection the server has closed meanwhile fails (a restarted server)."""


class LLMError(Exception):
    """The request failed; ``code`` is one of ``llm-unavailable``, ``llm-loading``,
    ``llm-timeout``, ``llm-error``."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class Delta:
    """One streamed choice delta, validated."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None


class LLMClient:
    """One ``httpx.AsyncClient`` for all turns; a server that appears later is simply used."""

    def __init__(
        self, base_url: str, model: str = "", timeout: float = 60.0, key_setting: str = ""
    ) -> None:
        """``key_setting``: ``[dialogue] api_key`` as written (the key, or ``env:NAME``)."""
        self.base_url = base_url.rstrip("/")
        self.shown = safe_url(self.base_url)
        """The address for messages: a password in the URL never leaves this object."""
        self.timeout = timeout
        self._model = model
        self._model_known = bool(model)
        self._key_problem = ""
        try:
            key = api_key(key_setting)
        except ApiKeyError as exc:  # each question says so; the local intents still answer
            key, self._key_problem = "", str(exc)
            log.error("%s", exc)
        self._key_sent = bool(key)
        # The key lives only in the client's default headers: never in a message or the log.
        self._http = httpx.AsyncClient(timeout=self._timeout(None), headers=bearer(key))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def probe(self) -> tuple[str, str]:
        """Whether a server answers at all: ``("ok", "")`` or an error code and why."""
        from services.dialogue.reachability import probe

        return await probe(self._http, self.base_url)

    def _timeout(self, connect: float | None) -> httpx.Timeout:
        connect = min(self.timeout, 5.0) if connect is None else min(self.timeout, connect)
        return httpx.Timeout(self.timeout, connect=connect)

    async def model(self, connect: float | None = None) -> str:
        """The configured model, else the first one the server lists (Ollama needs a name)."""
        if self._model_known:
            return self._model
        try:
            response = await self._http.get(
                f"{self.base_url}/models", timeout=self._timeout(connect)
            )
        except (httpx.HTTPError, httpx.InvalidURL):
            return ""  # try again next time: the server may come up later
        self._model_known = True
        try:
            self._model = str(response.json()["data"][0]["id"])
            log.info("no [dialogue] model set: using %r, the first the server lists", self._model)
        except (ValueError, LookupError, TypeError):
            log.info("no [dialogue] model set and %s/models lists none", self.shown)
        return self._model

    async def _send(self, body: dict[str, Any], timeout: httpx.Timeout) -> httpx.Response:
        """POST the request; once more on a fresh connection when a kept-alive one turns out
        dead before any answer came (nothing was generated for it)."""
        url = f"{self.base_url}/chat/completions"
        try:
            request = self._http.build_request("POST", url, json=body, timeout=timeout)
            return await self._http.send(request, stream=True)
        except STALE as exc:
            log.info("the connection to %s was closed (%s): trying once more", self.shown, exc)
        request = self._http.build_request("POST", url, json=body, timeout=timeout)
        return await self._http.send(request, stream=True)

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        waits: Waits,
        connect: float | None = None,
    ) -> AsyncIterator[Delta]:
        """``connect``: seconds a connection may take (default 5): shorter while the server
        is known to be down, so that a question only it could answer is not kept waiting."""
        if self._key_problem:
            raise LLMError(ErrorCode.LLM_ERROR, self._key_problem)
        body: dict[str, Any] = {"messages": messages, "stream": True}
        with waits.waiting("llm"):
            if model := await self.model(connect):
                body["model"] = model
            if tools:
                body["tools"] = tools
                body["parallel_tool_calls"] = True  # llama-server sends one call otherwise
            try:
                response = await self._send(body, self._timeout(connect))
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise _transport_error(exc, self.shown) from None
        try:
            if response.status_code >= 400:
                await _raise_status(response, waits, self._key_sent)
            if response.headers.get("content-type", "").startswith("application/json"):
                yield _whole_answer(await _read(response, waits))
                return
            async for delta in _deltas(response, waits):
                yield delta
        except httpx.HTTPError as exc:
            raise _transport_error(exc, self.shown) from None
        finally:
            await response.aclose()


async def _deltas(response: httpx.Response, waits: Waits) -> AsyncIterator[Delta]:
    """Parse SSE ``data:`` lines until ``[DONE]``; ``error`` events become LLMError."""
    finished = False
    lines = response.aiter_lines()
    while True:
        try:
            with waits.waiting("llm"):
                line = await anext(lines)
        except StopAsyncIteration:
            break
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "error":  # llama-server's mid-stream error event
            raise LLMError(
                ErrorCode.LLM_ERROR, f"the server reported an error mid-stream: {value[:300]}"
            )
        if name != "data":
            continue  # blank separators, comments, "event:", "id:", "retry:"
        if value.strip() == "[DONE]":
            return
        try:
            chunk = json.loads(value)
        except ValueError:
            raise LLMError(
                ErrorCode.LLM_ERROR, f"a stream chunk is not JSON: {value[:120]!r}"
            ) from None
        delta = _delta(chunk)
        if delta is not None:
            finished = finished or delta.finish_reason is not None
            yield delta
    if not finished:
        raise LLMError(ErrorCode.LLM_ERROR, "the stream ended before the answer was complete")


def _delta(chunk: Any) -> Delta | None:
    """The first choice's delta, or None for a usage-only chunk."""
    if not isinstance(chunk, dict):
        raise LLMError(ErrorCode.LLM_ERROR, "a stream chunk is not a JSON object")
    if "error" in chunk:
        raise LLMError(
            ErrorCode.LLM_ERROR, f"the server reported an error mid-stream: {chunk['error']}"
        )
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        raise LLMError(ErrorCode.LLM_ERROR, "a stream chunk has no choices list")
    if not choices:
        return None
    choice = choices[0]
    delta = choice.get("delta") if isinstance(choice, dict) else None
    if delta is None and isinstance(choice, dict):
        delta = choice.get("message") or {}
    if not isinstance(delta, dict):
        raise LLMError(ErrorCode.LLM_ERROR, "a stream chunk's delta is not an object")
    content = delta.get("content")
    calls = delta.get("tool_calls")
    finish = choice.get("finish_reason")
    return Delta(
        content=content if isinstance(content, str) else "",
        tool_calls=[c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else [],
        finish_reason=finish if isinstance(finish, str) and finish else None,
    )


def _whole_answer(raw: bytes) -> Delta:
    """A server that ignored ``stream``: one non-streamed completion."""
    try:
        delta = _delta(json.loads(raw))
    except ValueError:
        raise LLMError(ErrorCode.LLM_ERROR, "the answer is not JSON") from None
    if delta is None:
        raise LLMError(ErrorCode.LLM_ERROR, "the answer has no choices")
    delta.finish_reason = delta.finish_reason or "stop"
    return delta


async def _read(response: httpx.Response, waits: Waits) -> bytes:
    with waits.waiting("llm"):
        return await response.aread()


async def _raise_status(response: httpx.Response, waits: Waits, key_sent: bool) -> None:
    raw = await _read(response, waits)
    try:
        error = json.loads(raw).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    message = str(message or raw[:300].decode(errors="replace") or response.reason_phrase)
    code = ErrorCode.LLM_LOADING if response.status_code == 503 else ErrorCode.LLM_ERROR
    where = safe_url(str(response.url))
    hint = refused(response.status_code, key_sent)
    message = f"{message}; {hint}" if hint else message
    raise LLMError(code, f"HTTP {response.status_code} from {where}: {message}")


def _transport_error(exc: Exception, base_url: str) -> LLMError:
    unreachable = httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol
    if isinstance(exc, unreachable | httpx.InvalidURL):
        return LLMError(ErrorCode.LLM_UNAVAILABLE, f"no server answers at {base_url} ({exc})")
    if isinstance(exc, httpx.TimeoutException):
        return LLMError(
            ErrorCode.LLM_TIMEOUT, f"{base_url} did not answer in time ({type(exc).__name__})"
        )
    return LLMError(
        ErrorCode.LLM_ERROR, f"the stream from {base_url} broke off ({type(exc).__name__}: {exc})"
    )
