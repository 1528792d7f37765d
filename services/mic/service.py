"""Wire the mic service: Silero loaded once, the card (or replayed files), the listener."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from bus.client import Bus
from bus.errors import ErrorCode
from bus.messages import Error
from services.mic.card import capture
from services.mic.convert import AudioFileError
from services.mic.listener import Listener
from services.mic.sources import replay
from services.mic.vad import load_scorer
from services.names import MIC
from settings.schema import Config

log = logging.getLogger(__name__)


async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
    """Load Silero, then hear the card (or the replayed files) until stopped."""
    scorer = load_scorer(config.vad.engine)
    listener = Listener(bus, config.listen, config.vad, scorer)
    if args.wav:
        bus.set_state("ready", "replaying files")
        tail = config.vad.silence + 0.2
        try:
            await listener.run(replay([Path(p) for p in args.wav], not args.fast, tail))
        except AudioFileError as exc:
            log.error("%s", exc)
            raise SystemExit(2) from None
        log.info("replay done")
        return

    def report(problem: str | None) -> None:
        if problem is None:
            bus.set_state("ready")
            return
        if bus.detail != f"mic: {problem}"[:200]:  # once per outage, not once per retry
            bus.publish(Error(service=MIC, code=ErrorCode.MIC_UNAVAILABLE, message=problem))
        bus.set_state("degraded", f"mic: {problem}"[:200])

    await listener.run(capture(config.card, report))
