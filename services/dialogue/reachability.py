"""Whether the LLM server answers: said in the log and the heartbeat, checked again until it does.

At start-up the service asks ``GET {llm}/models`` once. When nothing answers
it says where it expects a server and how to point it elsewhere (a warning in
the log, ``degraded`` with the address in the heartbeat) and asks again every
few seconds, so the state turns ``ready`` the moment a server appears. Turns
report what they find too: a turn that cannot reach the server starts the
checks again; a turn that got an answer ends them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from bus.client import Bus
from bus.errors import ErrorCode

log = logging.getLogger(__name__)

PROBE_INTERVAL = 2.0
"""Seconds between checks while no server answers."""
PROBE_TIMEOUT = 3.0


async def probe(http: httpx.AsyncClient, base_url: str) -> tuple[str, str]:
    """``("ok", "")``, or an error code (``llm-unavailable``, ``llm-loading``) and why."""
    try:
        response = await http.get(f"{base_url}/models", timeout=PROBE_TIMEOUT)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return ErrorCode.LLM_UNAVAILABLE, why
    if response.status_code == 503:
        return ErrorCode.LLM_LOADING, "HTTP 503: the server is still loading its model"
    return "ok", ""  # any other answer: a server is there (some do not list models)


class Reachability:
    """The one place that sets the dialogue's heartbeat state from the LLM's health."""

    def __init__(
        self,
        bus: Bus,
        check: Callable[[], Awaitable[tuple[str, str]]],
        base_url: str,
        config_file: Path | None,
    ) -> None:
        self.bus = bus
        self.check = check
        self.base_url = base_url.rstrip("/")
        self.config_file = config_file
        self.reachable: bool | None = None
        self._reports = 0
        self._lost = asyncio.Event()

    def hint(self) -> str:
        where = str(self.config_file) if self.config_file else "config.toml"
        return (
            f"start llama-server, Ollama or vLLM there, or set `llm` in {where} to your "
            "server's OpenAI-compatible /v1 address; questions are answered as soon as one answers"
        )

    def report(self, code: str, detail: str = "") -> None:
        """What a turn or a check found: ``ok`` or an error code."""
        self._reports += 1
        if code == "ok":
            if self.reachable is False:
                log.info("the language model server at %s answers now", self.base_url)
            if self.reachable is not True:
                self.bus.set_state("ready")
            self.reachable = True
            return
        if self.reachable is not False:
            log.warning("no language model server answers at %s (%s): %s",
                        self.base_url, detail or code, self.hint())
        self.bus.set_state("degraded", f"LLM: {code} at {self.base_url}")
        self.reachable = False
        self._lost.set()

    async def run(self) -> None:
        """Check at start-up, and every few seconds while no server answers."""
        while True:
            if self.reachable:
                self._lost.clear()
                await self._lost.wait()
            before = self._reports
            code, detail = await self.check()
            if self._reports == before:  # a turn's newer finding wins over this check
                self.report(code, detail)
            if code != "ok":
                await asyncio.sleep(PROBE_INTERVAL)
