"""``desktop-assistant ready``: wait until every service of the Procfile is up, then print one
line: what to do next, or what is missing and its fix (:mod:`desktop_assistant.doctor.next_step`).

``./bootstrap run`` starts it beside the Procfile's services, with ``--stay``: honcho stops
every process as soon as one exits, so it then idles until SIGTERM or SIGINT. It is not a
line of the Procfile itself: the tests, ``doctor`` and the systemd units take each of those
for a service that beats on the bus.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
from collections.abc import Coroutine
from typing import Any

from bus.client import Bus
from bus.messages import Heartbeat
from bus.process import endpoints_of, load_or_exit
from desktop_assistant.doctor.llm import check_llm
from desktop_assistant.doctor.next_step import line, not_up
from desktop_assistant.doctor.remote import expected_services
from desktop_assistant.exit_codes import ExitCode
from settings import Config

TIMEOUT = 120.0
"""Seconds before naming the services that are not up (they load their models meanwhile)."""


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "ready", help="wait until every service is up, then say in one line what to do next"
    )
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT,
        help=f"seconds before naming the services that are not up (default {TIMEOUT:g})",
    )
    parser.add_argument(
        "--stay", action="store_true",
        help="then stay until SIGTERM or SIGINT, still waiting after the timeout "
             "(a process of honcho: ./bootstrap run)",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    config = load_or_exit(args.config)
    return asyncio.run(until_signal(announce(config, args.timeout, args.stay)))


def say(text: str) -> None:
    """One line, whatever the details quoted in it hold (the mic's lists its devices on
    lines of their own); flushed, as honcho's pipe would hold it back."""
    print("desktop-assistant:", " ".join(text.split()), flush=True)


async def until_signal(work: Coroutine[Any, Any, int]) -> int:
    """``work``'s exit status, or OK as soon as SIGTERM or SIGINT arrives."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        return ExitCode.OK


async def announce(config: Config, timeout: float, stay: bool) -> int:
    try:
        code = await wait_and_say(config, timeout, stay)
    except Exception as exc:
        if not stay:
            raise
        # Never stop the assistant over its greeting: honcho would stop every process.
        say(f"could not tell whether everything is up ({type(exc).__name__}: {exc}); "
            "run `desktop-assistant doctor`")
        code = ExitCode.FAILED
    if stay:
        await asyncio.get_running_loop().create_future()  # until a signal cancels it
    return code


async def wait_and_say(config: Config, timeout: float, stay: bool) -> int:
    expected = expected_services()
    beats: dict[str, Heartbeat] = {}
    bus = Bus(endpoints_of(config), "ready")
    try:
        bus.subscribe(Heartbeat.TOPIC)
        deadline = time.monotonic() + timeout
        told = False
        while late := not_up(expected, beats, time.time()):
            left = deadline - time.monotonic()
            if left <= 0 and not told:
                say(f"not up after {timeout:g} s: {', '.join(late)}; see their lines above, "
                    "or run `desktop-assistant doctor`")
                if not stay:
                    return ExitCode.UNAVAILABLE
                told = True  # and wait on: a slow start may still end well
            msg = await bus.recv(timeout=1.0 if told else left)
            if isinstance(msg, Heartbeat) and msg.service in expected:
                beats[msg.service] = msg
    finally:
        await bus.close()
    (llm,) = await check_llm(config)
    text, complete = line(config, beats, llm)
    say(text)
    return ExitCode.OK if complete else ExitCode.FAILED
