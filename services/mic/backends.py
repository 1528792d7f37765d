"""The mic's backends, built once from the config at the start: Silero, the wake word
detector and its earcon, the end-of-turn model and the echo canceller."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hearing.endpointing import TurnModel, load_turn_model
from hearing.vad import SpeechScorer, load_scorer
from hearing.wake import WakeDetector, WakeWordMissing, open_wake
from services.heap import give_back_freed_memory
from services.mic.earcon import Earcon
from services.mic.echo import EchoCanceller
from settings.schema import Config

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backends:
    scorer: SpeechScorer
    wake: WakeDetector | None = None
    """Only in wake mode (``[listen] mode``)."""
    earcon: Earcon | None = None
    """Only with a wake word, and not for replayed files."""
    turn_model: TurnModel | None = None
    echo: EchoCanceller | None = None
    """Only with ``[audio] echo_cancel``."""


def load_backends(config: Config, replaying: bool) -> Backends:
    """Every backend the config asks for. Replayed files (``--wav``) open no card, so
    they play no earcon and record no monitor: the canceller then takes its reference
    from the speaker's ``Played`` audio."""
    scorer = load_scorer(config.vad.engine)
    wake = load_wake(config) if config.listen.mode == "wake" else None
    earcon = Earcon() if wake is not None and config.wake.earcon and not replaying else None
    turn_model = load_turn_model(config.vad)
    monitored = config.audio.echo_reference == "monitor" and not replaying
    echo = EchoCanceller(monitor=monitored) if config.audio.echo_cancel else None
    give_back_freed_memory()  # every model is loaded: what their loaders freed
    return Backends(scorer, wake, earcon, turn_model, echo)


def load_wake(config: Config) -> WakeDetector | None:
    """The wake word detector; None when its package is missing: the mic then opens only
    for ``desktop-assistant listen``, as push-to-talk does (the wake mode's other way in),
    rather than stop, or hear every word as a question."""
    try:
        return open_wake(config.wake)
    except WakeWordMissing as exc:
        log.error("mic: %s; until then the mic opens only for `desktop-assistant listen` "
                  "(push-to-talk)", exc)
        return None
