"""Checks that talk to something: the broker, the services' heartbeats, and the LLM server
(:mod:`desktop_assistant.doctor.llm`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bus.client import Bus, RequestTimeout
from bus.endpoints import EndpointError
from bus.messages import Heartbeat
from bus.process import endpoints_of
from desktop_assistant.doctor.llm import check_llm, with_llm
from desktop_assistant.doctor.result import Check
from desktop_assistant.systemd import TARGET, read_procfile, unit_name
from settings import Config

PROCFILE = Path(__file__).resolve().parents[2] / "Procfile"
MISSED_BEATS = 3


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
        pids: dict[str, set[int]] = {}
        expected = set(expected_services())
        start = time.monotonic()
        deadline = start + listen
        # Until every expected service has beaten (or the time is up: one that never does
        # is down), and for one heartbeat period at least, so that a second copy of a
        # service has beaten too; a heartbeat comes every second by default.
        while (left := deadline - time.monotonic()) > 0 and (
            not expected <= set(beats) or time.monotonic() - start < config.bus.heartbeat * 1.2
        ):
            msg = await bus.recv(timeout=left)
            if isinstance(msg, Heartbeat):
                beats[msg.service] = msg
                if msg.state != "stopping":  # a copy that ends as another starts is no twin
                    pids.setdefault(msg.service, set()).add(msg.pid)
        checks += heartbeat_checks(beats, time.time(), pids)
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


DEGRADED_FIXES = {
    "satellites": "a satellite named above is not connected: check that wyoming-satellite "
    "runs there and that [satellite.NAME] uri reaches it; what it sent that was dropped, "
    "and every retry, is in the satellites' log",
}
"""What to do about a service that runs but is degraded, where its log is not the first
place to look."""


def _module(name: str) -> str:
    for process in read_procfile(PROCFILE) if PROCFILE.exists() else []:
        if process.name == name and "-m" in process.argv:
            return process.argv[process.argv.index("-m") + 1]
    return f"services.{name}"


def heartbeat_checks(
    beats: dict[str, Heartbeat], now: float, pids: dict[str, set[int]] | None = None
) -> list[Check]:
    """One check per service; ``pids``: every process seen beating under each name."""
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
        fix = "see its log (honcho output or journalctl --user)"
        if beat.state == "degraded":
            fix = DEGRADED_FIXES.get(name, fix)
        checks.append(
            Check(f"service {name}", ok, detail, fix, warning=beat.state == "degraded")
        )
        copies = sorted((pids or {}).get(name, ()))
        if len(copies) > 1:
            checks.append(_twins(name, copies))
    return checks


def _twins(name: str, pids: list[int]) -> Check:
    """Two copies of one service both answer: every tool call runs twice."""
    listed = ", ".join(str(pid) for pid in pids)
    return Check(
        f"one copy of {name}",
        False,
        f"{len(pids)} copies beat on the bus: pids {listed}",
        f"stop all but one (honcho and systemd both running? systemctl --user stop "
        f"{unit_name(name)}, or Ctrl-C honcho)",
    )


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


def run_remote(config: Config, listen: float) -> list[Check]:
    async def both() -> list[Check]:
        bus, llm = await asyncio.gather(check_bus(config, listen), check_llm(config))
        return with_llm(bus + llm)

    return asyncio.run(both())
