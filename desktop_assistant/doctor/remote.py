"""Checks that talk to something: the broker, the services' heartbeats, the LLM server."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path

import httpx

from bus.client import Bus, RequestTimeout
from bus.endpoints import EndpointError
from bus.messages import Heartbeat
from bus.process import endpoints_of
from desktop_assistant.doctor.result import Check
from desktop_assistant.systemd import TARGET, read_procfile, unit_name
from services.names import DIALOGUE
from settings import Config
from settings.secrets import safe_url

PROCFILE = Path(__file__).resolve().parents[2] / "Procfile"
MISSED_BEATS = 3
CHAT_TIMEOUT = 20.0
"""Seconds the one-token question may take: a server may load its model for the first."""
V1_HINT = "set `llm` in config.toml to the server's OpenAI-compatible /v1 address"


def expected_services() -> list[str]:
    return [p.name for p in read_procfile(PROCFILE)] if PROCFILE.exists() else []


async def check_bus(config: Config, listen: float) -> list[Check]:
    try:
        endpoints = endpoints_of(config)
    except EndpointError as exc:
        return [Check("bus", False, str(exc), "fix [bus] pub/sub in config.toml")]
    bus = Bus(endpoints, "doctor")
    try:
        bus.subscribe(Heartbeat.TOPIC)
        try:
            await bus.wait_connected(timeout=2.0)
        except RequestTimeout:
            return [
                Check(
                    "bus",
                    False,
                    f"no broker answers at {endpoints.pub}",
                    "start the assistant: ./bootstrap run (or python -m bus)",
                )
            ]
        checks = [Check("bus", True, f"broker at {endpoints.pub}")]
        checks += _plain_tcp_warning(config)
        beats: dict[str, Heartbeat] = {}
        expected = set(expected_services())
        deadline = time.monotonic() + listen
        # Until every expected service has beaten (or the time is up: one that never does
        # is down); a heartbeat comes every second by default.
        while (left := deadline - time.monotonic()) > 0 and not expected <= set(beats):
            msg = await bus.recv(timeout=left)
            if isinstance(msg, Heartbeat):
                beats[msg.service] = msg
        checks += heartbeat_checks(beats, time.time())
        return checks
    finally:
        await bus.close()


def _plain_tcp_warning(config: Config) -> list[Check]:
    plain = [e for e in (config.bus.pub, config.bus.sub) if e.startswith("tcp://")]
    if not plain:
        return []
    return [
        Check(
            "bus security",
            True,
            f"plain TCP endpoint {plain[0]}: unencrypted",
            "use ipc (the default) or CURVE keys (docs/reliability.md)",
            warning=True,
        )
    ]


def _module(name: str) -> str:
    for process in read_procfile(PROCFILE) if PROCFILE.exists() else []:
        if process.name == name and "-m" in process.argv:
            return process.argv[process.argv.index("-m") + 1]
    return f"services.{name}"


def heartbeat_checks(beats: dict[str, Heartbeat], now: float) -> list[Check]:
    checks = []
    names = expected_services()
    for name in names + sorted(set(beats) - set(names) - {"cli", "doctor", "tap"}):
        beat = beats.get(name)
        if beat is None:
            checks.append(Check(f"service {name}", False, "no heartbeat", _start_hint(name)))
            continue
        age = now - beat.ts
        fresh = age <= MISSED_BEATS * beat.interval
        ok = fresh and beat.state in ("ready", "degraded")
        detail = f"{beat.state} pid {beat.pid} v{beat.version}, beat {age:.1f}s ago"
        if beat.detail:
            detail += f": {beat.detail}"
        checks.append(
            Check(
                f"service {name}",
                ok,
                detail,
                "see its log (honcho output or journalctl --user)",
                warning=beat.state == "degraded",
            )
        )
    return checks


def _start_hint(name: str) -> str:
    """How to start a service, and to watch one that stops: never a second copy beside the
    supervised one (both would answer every question)."""
    unit = unit_name(name)
    return (
        f"start the assistant (./bootstrap run, or systemctl --user start {TARGET}); to see "
        f"why it stops, read its log (journalctl --user -u {unit}, or honcho's output), or "
        f"stop the supervised one first (systemctl --user stop {unit}, or Ctrl-C honcho) "
        f"and run python -m {_module(name)} in a terminal"
    )


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
    base = config.llm.rstrip("/")
    shown = safe_url(base)
    async with httpx.AsyncClient(timeout=httpx.Timeout(3.0)) as client:
        try:
            response = await client.get(f"{base}/models")
        except httpx.HTTPError as exc:
            return [
                Check(
                    "llm",
                    False,
                    f"{shown} unreachable ({type(exc).__name__})",
                    "start llama-server/Ollama/vLLM there, or set `llm` in config.toml",
                )
            ]
        if response.status_code != 200:
            return [
                Check(
                    "llm",
                    False,
                    f"{shown}/models answered {response.status_code}",
                    V1_HINT if response.status_code == 404
                    else "check the server's log; llama-server answers 503 while loading",
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
        asked = await _ask_one_token(client, base, shown, wanted or next(iter(models), ""))
    return [asked or Check("llm", True, f"{shown}: {', '.join(models) or 'up'}")]


async def _ask_one_token(
    client: httpx.AsyncClient, base: str, shown: str, model: str
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
        f"{V1_HINT}, and [dialogue] model to one it serves",
    )


def _error_message(raw: bytes) -> str:
    """The server's own words: OpenAI's ``{"error": {"message"}}`` or the body's start."""
    try:
        error = json.loads(raw).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    return str(message or raw[:200].decode(errors="replace").strip() or "no message")[:200]


def run_remote(config: Config, listen: float) -> list[Check]:
    async def both() -> list[Check]:
        bus, llm = await asyncio.gather(check_bus(config, listen), check_llm(config))
        return with_llm(bus + llm)

    return asyncio.run(both())
