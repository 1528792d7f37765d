"""Processes started in any order wait for the broker and for each other without crashing;
each one stops cleanly on SIGTERM within a couple of seconds."""

from __future__ import annotations

import asyncio
import time

from tests.helpers.assistant import SERVICES, Assistant

STOP_WITHIN = 3.0
"""A couple of seconds, plus room for a busy machine; systemd (TimeoutStopSec=5) and honcho
(5 s) kill what is still there after 5 s."""


def test_reverse_order_broker_last_then_sigterm_to_each() -> None:
    assistant = Assistant(sound=True)
    try:
        assistant.start(broker=False, order=list(reversed(SERVICES)))
        # Every service is up and waiting for the bus, none has given up or crashed.
        deadline = time.monotonic() + 120
        waiting: set[str] = set()
        while waiting != set(SERVICES):
            for name in SERVICES:
                proc = assistant.processes[name]
                assert proc.popen.poll() is None, f"{name} exited:\n{proc.output()[-3000:]}"
                if f"{name}: waiting for the bus broker" in proc.output():
                    waiting.add(name)
            assert time.monotonic() < deadline, f"not waiting for the broker: {SERVICES}"
            time.sleep(0.1)  # polling the logs, with a deadline
        assistant.start_broker()
        asyncio.run(assistant.wait_ready(SERVICES))

        for name in SERVICES:
            stops_cleanly(assistant, name)
        # The espeak-ng TTS (not in the Procfile, it replaces tts) takes the bus name tts.
        assistant.processes["tts"] = assistant.start_service("tts", "--engine", "espeak")
        asyncio.run(assistant.wait_ready(["tts"]))
        stops_cleanly(assistant, "tts")
        stops_cleanly(assistant, "broker")
    finally:
        assistant.close()


def stops_cleanly(assistant: Assistant, name: str) -> None:
    proc = assistant.processes[name]
    started = time.monotonic()
    code = proc.stop(timeout=STOP_WITHIN)  # SIGTERM; SIGKILL only after STOP_WITHIN
    took = time.monotonic() - started
    log = proc.output()
    assert code == 0, f"{proc.module} exit {code} after {took:.1f} s:\n{log[-3000:]}"
    assert "Traceback" not in log, log[-3000:]  # no crash on the way out, even caught


def test_sigterm_while_the_models_load() -> None:
    """Ctrl-C right after ``honcho start``: the STT and TTS stop at once, not after the load."""
    assistant = Assistant(sound=False, services=["stt", "tts"])
    try:
        assistant.start(wait=False)
        asyncio.run(assistant.wait_ready(["stt", "tts"], states=("starting",)))
        for name in ("stt", "tts"):
            stops_cleanly(assistant, name)
    finally:
        assistant.close()
