"""The whole assistant as a new user has it: no language model configured (``llm = ""``),
the local intents in their default mode, and the sound card as the mic and the speaker."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from tests.helpers.assistant import Assistant

SERVICES = ["mic", "stt", "dialogue", "tts"]
"""No watchdog: the tests kill and restart services themselves."""
INTENTS = '[intents]\nmode = "prefer"\n'
"""The default, written out: the test config writer turns the local intents off otherwise."""


def without_llm(config: str = "") -> Assistant:
    return Assistant(
        sound=True, no_llm=True, llm_up=False, services=SERVICES, config=config + INTENTS
    )


@contextmanager
def running(assistant: Assistant) -> Iterator[Assistant]:
    """Started, and stopped at the end; the dialogue is ``degraded`` with no LLM to ask."""
    try:
        assistant.start(wait=False)
        asyncio.run(assistant.wait_ready(["mic", "stt", "tts"]))
        asyncio.run(assistant.wait_ready(["dialogue"], states=("ready", "degraded")))
        yield assistant
    finally:
        assistant.close()
