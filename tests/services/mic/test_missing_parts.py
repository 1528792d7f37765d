"""The mic without its optional parts: it starts, says what is missing, and does without it.

A plain ``pip install -e .`` has no pipecat-ai (Smart Turn's model: a turn then ends after
``[vad] silence``, ``test_endpointing.py``); the wake word's package is a dependency, yet a
venv made by hand or a platform without its wheel can lack it.
"""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.messages import ListenRequest
from services.mic.backends import load_backends
from services.mic.service import Listener
from settings import Config
from tests.helpers.busrun import with_buses
from tests.helpers.polling import until


def test_without_the_wake_word_package_the_mic_starts_as_push_to_talk(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, module_broker: Endpoints
) -> None:
    monkeypatch.setitem(sys.modules, "pymicro_wakeword", None)  # `import` fails
    config = Config()
    assert config.listen.mode == "wake"
    with caplog.at_level(logging.INFO, logger="services.mic"):
        backends = load_backends(config, replaying=True)
    assert backends.wake is None and backends.earcon is None
    told = [r for r in caplog.records if "pymicro-wakeword" in r.getMessage()]
    assert len(told) == 1 and told[0].levelno == logging.ERROR, told
    message = told[0].getMessage()
    assert "./bootstrap setup" in message and "pip install 'pymicro-wakeword>=2.5'" in message
    assert "desktop-assistant listen" in message
    # No word to open it: `desktop-assistant listen` does, as in push-to-talk.

    async def listen(mic: Bus, test: Bus) -> None:
        listener = Listener(mic, config.listen, config.vad, backends)
        listener.subscribe(mic)
        await mic.wait_path(test)
        serving = asyncio.ensure_future(listener.serve())
        try:
            assert listener.hearing.wake_word is None and not listener.gate.push.is_open()
            test.publish(ListenRequest())
            await until(listener.gate.push.is_open, "the mic opens for the listen request")
        finally:
            serving.cancel()

    with_buses(module_broker, ["mic", "test"], listen)
