"""The mic's backends, built once from the config at the start: Silero, the wake word
detector and its earcon, the end-of-turn model and the echo canceller. The wake word
detector is loaded at the start only in wake mode; :class:`WakeLoader` loads it later if
the mode changes to wake while the mic runs (``listen_mode.py``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hearing.endpointing import TurnModel, load_turn_model
from hearing.vad import SpeechScorer, load_scorer
from hearing.wake import WakeDetector, WakeWordMissing, open_wake
from services.base.heap import give_back_freed_memory
from services.mic.earcon import Earcon
from services.mic.echo import EchoCanceller
from services.mic.echo_choice import choose_echo, report, speech_barges_in
from settings.schema import Config, WakeConfig

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
    """Only with ``[audio] echo_cancel`` (``auto``: where it can work, ``echo_choice.py``)."""
    wake_loader: WakeLoader | None = None
    """Loads the detector (and its earcon) when the mode changes to wake at run time."""
    speech_barge_in: bool = False
    """Plain speech interrupts an answer (through the canceller: ``echo_choice.py``)."""


@dataclass(frozen=True)
class WakeLoader:
    config: WakeConfig
    replaying: bool
    """Replayed files open no card: no earcon."""

    def load(self) -> tuple[WakeDetector | None, Earcon | None, str]:
        """The detector and its earcon, or None and why not (the package is missing: the
        mic then opens only for ``desktop-assistant listen``, as push-to-talk does, the
        wake mode's other way in, rather than stop, or hear every word as a question)."""
        try:
            detector = open_wake(self.config)
        except WakeWordMissing as exc:
            log.error("mic: %s; until then the mic opens only for `desktop-assistant listen` "
                      "(push-to-talk)", exc)
            return None, None, str(exc)
        earcon = Earcon() if self.config.earcon and not self.replaying else None
        return detector, earcon, ""


def load_backends(config: Config, replaying: bool) -> Backends:
    """Every backend the config asks for. Replayed files (``--wav``) open no card, so
    they play no earcon and record no monitor: the canceller then takes its reference
    from the speaker's ``Played`` audio."""
    scorer = load_scorer(config.vad.engine)
    wake_loader = WakeLoader(config.wake, replaying)
    wake, earcon = None, None
    if config.listen.mode == "wake":
        wake, earcon, _ = wake_loader.load()
    turn_model = load_turn_model(config.vad)
    monitored = config.audio.echo_reference == "monitor" and not replaying
    choice = choose_echo(config.audio, config.card, replaying)
    report(choice)
    echo = EchoCanceller(monitor=monitored) if choice.on else None
    give_back_freed_memory()  # every model is loaded: what their loaders freed
    return Backends(scorer, wake, earcon, turn_model, echo, wake_loader,
                    speech_barge_in=speech_barges_in(choice, config.listen))
