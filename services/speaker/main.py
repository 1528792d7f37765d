"""What ``services.tts`` and ``services.tts_espeak`` share: their flags and start-up."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path

from bus.client import Bus
from services.runner import load_in_thread, run_service, service_parser
from services.speaker.service import Speaker
from services.speaker.synthesis import Synthesizer
from services.speaker.voices import VoiceError
from services.speaker.volume import Volume, VolumeStore, state_path
from settings import Config

log = logging.getLogger(__name__)

BUS_NAME = "tts"
"""Both services take the same name on the bus: swapping one for the other changes nothing."""


def run_tts(module: str, description: str, load: Callable[[Config], Synthesizer]) -> int:
    parser = service_parser(module, description)
    parser.add_argument(
        "--wav-out", metavar="DIR", type=Path,
        help="also write each turn's spoken audio to DIR/<turn>.wav",
    )
    args = parser.parse_args()

    async def main(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        bus.set_state("starting", "loading the voice")
        try:
            synthesizer = await load_in_thread(load, config)  # SIGTERM does not wait for it
        except VoiceError as exc:
            log.error("%s: %s", module, exc)
            raise SystemExit(2) from None
        volume = Volume(config.audio.volume, VolumeStore(state_path()))
        log.info("%s: voice loaded, volume %.1f", module, volume.value)
        await Speaker(bus, config, synthesizer, volume, args.wav_out).run()

    return run_service(BUS_NAME, args, main)
