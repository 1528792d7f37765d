"""What the Status section shows: each service's heartbeat state, and the doctor's checks.

The doctor lives in the command line (``desktop_assistant/``), which no service may
import: the page runs ``desktop-assistant doctor --json`` as its own process, on
request, exactly as the user would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from typing import Any

from bus.liveness import Liveness

log = logging.getLogger(__name__)

DOCTOR_TIMEOUT = 60.0
"""The doctor listens 3.5 s for heartbeats and loads the audio and model checks."""


def service_states(liveness: Liveness, expected: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """Every service seen (and those ``expected``): ``ready``, ``degraded``, ``starting``...
    as its heartbeat says, or ``silent`` once its heartbeats stopped (or never came)."""
    states: dict[str, dict[str, str]] = {}
    for name in sorted({*expected, *liveness.services()}):
        seen = liveness.last(name)
        if seen is None or not liveness.alive(name):
            states[name] = {"state": "silent", "detail": "no recent heartbeat"}
        else:
            states[name] = {"state": seen.state, "detail": seen.detail}
    return states


class Doctor:
    """``doctor --json`` in a child process; one run at a time, its last answer kept."""

    def __init__(self, config_dir: str) -> None:
        self.argv = [sys.executable, "-m", "desktop_assistant", "doctor", "--json",
                     "--config", config_dir]
        self.last: dict[str, Any] = {"checks": [], "error": "not run yet"}
        self._run: asyncio.Task[dict[str, Any]] | None = None

    async def checks(self) -> dict[str, Any]:
        """A fresh run's checks (callers at the same time share one run)."""
        if self._run is None or self._run.done():
            self._run = asyncio.ensure_future(self._checks())
        self.last = await asyncio.shield(self._run)
        return self.last

    async def _checks(self) -> dict[str, Any]:
        proc = await asyncio.create_subprocess_exec(
            *self.argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), DOCTOR_TIMEOUT)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            return {"checks": [], "error": f"doctor did not finish within {DOCTOR_TIMEOUT:g} s"}
        try:
            return {"checks": json.loads(out), "error": ""}
        except ValueError:
            log.warning("page: doctor printed no JSON: %s", err.decode(errors="replace")[-500:])
            return {"checks": [], "error": f"doctor failed (exit status {proc.returncode})"}
