"""The speaker's start-up: the ``--engine`` and ``--wav-out`` flags, then load the
engine's voice, open the volume and speak until stopped."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path

from bus.client import Bus
from services.runner import ServiceMain, load_in_thread
from services.tts.engines import DEFAULT, ENGINES
from services.tts.service import Speaker
from services.tts.synthesis import Synthesizer
from services.tts.voices import VoiceError
from settings import Config
from speaking.volume import Volume, VolumeStore, state_path

log = logging.getLogger(__name__)


def add_speaker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine", choices=sorted(ENGINES), default=DEFAULT,
        help=f"the voice engine (default {DEFAULT}; espeak: espeak-ng, light and robotic)",
    )
    parser.add_argument(
        "--wav-out", metavar="DIR", type=Path,
        help="also write each turn's spoken audio to DIR/<turn>.wav",
    )


def serve_with(load: Callable[[Config], Synthesizer]) -> ServiceMain:
    """The speaker's start-up with the voice that ``load`` builds from the config."""

    async def serve(bus: Bus, config: Config, args: argparse.Namespace) -> None:
        bus.set_state("starting", "loading the voice")
        try:
            synthesizer = await load_in_thread(load, config)  # SIGTERM does not wait for it
        except VoiceError as exc:
            log.error("%s: %s", bus.name, exc)
            raise SystemExit(2) from None
        volume = Volume(config.audio.volume, VolumeStore(state_path()))
        log.info("%s: voice loaded, volume %.1f", bus.name, volume.value)
        await Speaker(bus, config.audio, synthesizer, volume, args.wav_out).run()

    return serve
