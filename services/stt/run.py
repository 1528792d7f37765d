"""Wire the STT service: the backend from ``[whisper]``, then the loop."""

from __future__ import annotations

import argparse

from bus.client import Bus
from bus.messages import Utterance
from services.stt.backends import open_backend
from services.stt.service import SpeechToText
from settings.schema import Config


async def main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    bus.subscribe(Utterance.TOPIC)  # now: utterances that come while the model loads wait
    backend = await open_backend(config.whisper, bus.set_state)
    if backend.name == "embedded":
        bus.set_state("ready")
    stt = SpeechToText(bus, config, backend)
    try:
        await stt.run()
    finally:
        await stt.close()
        await backend.close()
