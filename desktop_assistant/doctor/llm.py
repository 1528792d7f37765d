"""The LLM check: the server lists the configured model and answers a question as the
dialogue asks it; a dialogue that beats while its LLM fails is not ok."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx

from desktop_assistant.doctor.llm_probe import where_to_point
from desktop_assistant.doctor.result import Check
from services.base.names import DIALOGUE
from settings import Config
from settings.apikey import ApiKeyError, api_key, bearer, refused
from settings.llm_url import url_problem
from settings.secrets import safe_url

CHAT_TIMEOUT = 20.0
"""Seconds the one-token question may take: a server may load its model for the first."""
V1_HINT = "set `llm` in config.toml to the server's OpenAI-compatible /v1 address"


def with_llm(checks: list[Check]) -> list[Check]:
    """A dialogue that says it is ready while its LLM fails (it took an answer such as 404
    for a server that is there) answers no question: its row says so instead of ok. One
    that already knows (``degraded``, with why) stays a warning."""
    llm = next((check for check in checks if check.name == "llm"), None)
    if llm is None or llm.ok:
        return checks
    return [
        replace(check, ok=False, warning=False, fix=llm.fix,
                detail=f"{check.detail}; every question fails: {llm.detail}")
        if check.name == f"service {DIALOGUE}" and check.status == "ok" else check
        for check in checks
    ]


async def check_llm(config: Config) -> list[Check]:
    """The configured LLM; when it fails, the fix names a usual local server that answers."""
    problem = url_problem(config.llm)
    if problem:
        # No LLM at all is a choice (the local intents still answer); a broken URL is a typo.
        empty = not config.llm.strip()
        return [Check("llm", empty, problem, await where_to_point(config.llm), warning=empty)]
    (check,) = await _check_configured(config)
    if check.ok:
        return [check]
    return [replace(check, fix=f"{check.fix}; or {await where_to_point(config.llm)}")]


async def _check_configured(config: Config) -> list[Check]:
    base = config.llm.rstrip("/")
    shown = safe_url(base)
    try:
        key = api_key(config.dialogue.api_key)
    except ApiKeyError as exc:
        return [Check("llm", False, str(exc), "set the variable where the services start")]
    async with httpx.AsyncClient(timeout=httpx.Timeout(3.0), headers=bearer(key)) as client:
        try:
            response = await client.get(f"{base}/models")
        except httpx.HTTPError as exc:
            return [
                Check(
                    "llm",
                    False,
                    f"{shown} unreachable ({type(exc).__name__})",
                    "start llama-server/Ollama/vLLM there",
                )
            ]
        if response.status_code != 200:
            return [
                Check(
                    "llm",
                    False,
                    f"{shown}/models answered {response.status_code}",
                    V1_HINT if response.status_code == 404
                    else refused(response.status_code, bool(key))
                    or "check the server's log; llama-server answers 503 while loading",
                )
            ]
        try:
            models = [m.get("id", "?") for m in response.json().get("data", [])]
        except (ValueError, AttributeError):
            models = []
        wanted = config.dialogue.model
        if wanted and models and wanted not in models:
            return [
                Check(
                    "llm",
                    False,
                    f"model {wanted!r} not served; it has {', '.join(models)}",
                    "set [dialogue] model to one of those",
                )
            ]
        # Listing models is not answering: ask what the dialogue asks, one token long.
        model = wanted or next(iter(models), "")
        asked = await _ask_one_token(client, base, shown, model, bool(key))
    return [asked or Check("llm", True, f"{shown}: {', '.join(models) or 'up'}")]


async def _ask_one_token(
    client: httpx.AsyncClient, base: str, shown: str, model: str, key_sent: bool
) -> Check | None:
    """None when the server answers a question as the dialogue asks it, else the failure."""
    url = f"{shown}/chat/completions"
    body = {"model": model, "messages": [{"role": "user", "content": "Say ok."}],
            "max_tokens": 1, "stream": True}
    try:
        async with client.stream("POST", f"{base}/chat/completions", json=body,
                                 timeout=httpx.Timeout(CHAT_TIMEOUT, connect=3.0)) as response:
            if response.status_code < 400:
                return None
            raw = await response.aread()
    except httpx.TimeoutException:
        return Check("llm", True, f"POST {url}: no answer within {CHAT_TIMEOUT:g} s",
                     "try again once the server has loaded its model", warning=True)
    except httpx.HTTPError as exc:
        return Check("llm", False, f"POST {url} failed ({type(exc).__name__})",
                     "check the server's log")
    return Check(
        "llm",
        False,
        f"POST {url} answered {response.status_code}: {_error_message(raw)}",
        refused(response.status_code, key_sent)
        or f"{V1_HINT}, and [dialogue] model to one it serves",
    )


def _error_message(raw: bytes) -> str:
    """The server's own words: OpenAI's ``{"error": {"message"}}`` or the body's start."""
    try:
        error = json.loads(raw).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    return str(message or raw[:200].decode(errors="replace").strip() or "no message")[:200]
