"""The wake word: one door for its engines, and where a question said after it starts.

:func:`open_wake` makes the detector ``[wake] engine`` names, from :data:`ENGINES`;
the mic, the satellites, the Wyoming server, ``doctor`` and the benches all come through
it. An engine is one module with a class that takes the ``[wake]`` table and has what
:class:`WakeDetector` lists, plus its line in :data:`ENGINES` (``docs/architecture.md``
shows one). Nothing here leaves the process: the mic only opens (and publishes audio)
after a detection.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

import numpy as np

from settings.schema import WakeConfig

RATE = 16000
REFRACTORY = 1.5
"""Seconds after a detection in which the same word is not heard again (the model's
probability stays high for a few hundred ms after the word)."""


AFTER_SEARCH = 0.3
"""Seconds before a detection searched for the end of the word, for microWakeWord: it
hears the end of the word up to about 0.27 s late (p95), and a question said in the same
breath has started by then. Each engine says its own (:attr:`WakeDetector.after_search`)."""
QUIET = 320
"""Samples (20 ms) of the energy window that finds the gap after the word."""


def after_word(recent: bytes) -> bytes:
    """Of ``recent`` (PCM16, ending where the word was detected), the audio after the word:
    from the latest quiet moment, the gap between the word and the question (at most
    twice the quietest 20 ms' energy, so the latest of a pause's frames; a question said
    in the same breath is cut within about 20 ms of its start)."""
    samples = np.frombuffer(recent, dtype="<i2").astype(np.float32)
    if len(samples) < QUIET:
        return recent
    energy = np.convolve(samples**2, np.ones(QUIET, dtype=np.float32), mode="valid")
    quiet = np.flatnonzero(energy <= 2 * energy.min() + 1.0)
    start = int(quiet[-1]) + QUIET // 2
    return recent[2 * start :]


class Refractory:
    """The samples an engine has heard, and the one detection per word: an engine's score
    stays high for a few hundred ms after the word, so for :data:`REFRACTORY` seconds after
    a detection it is not heard again. Both engines keep it the same way."""

    def __init__(self) -> None:
        self.position = 0
        """Samples heard since the start (or the last :meth:`reset`)."""
        self._quiet_until = 0

    def count(self, samples: int, heard: bool) -> bool:
        """``samples`` more heard, in which the engine's score passed its cutoff (``heard``):
        whether that is a new detection."""
        self.position += samples
        if not heard or self.position < self._quiet_until:
            return False
        self._quiet_until = self.position + round(REFRACTORY * RATE)
        return True

    def reset(self) -> None:
        self.position = self._quiet_until = 0


class WakeWordMissing(RuntimeError):
    """The wake word engine's package is not installed; the message names the fix."""


class WakeDetector(Protocol):
    """What the mic, the satellites and the Wyoming server need of a wake word engine."""

    word: str
    """The phrase, as the model names it ("Okay Nabu")."""
    model: str
    """The model's id, as ``describe`` and ``doctor`` list it."""
    position: int
    """Samples heard since the start (or the last :meth:`reset`)."""
    after_search: float
    """Seconds before a detection that hold the end of the word: how late the engine hears
    it, and a little more (:func:`after_word` searches them)."""

    def hear(self, pcm: bytes) -> bool:
        """Feed 16 kHz mono PCM16 audio; True when the word was heard in it (once per
        word: not again within :data:`REFRACTORY` seconds)."""
        ...

    def reset(self) -> None:
        """Forget the audio heard so far (the stream was reopened, or it was not heard)."""
        ...


ENGINES: dict[str, str] = {
    "microwakeword": "hearing.micro_wake_word:MicroWakeWordDetector",
    "openwakeword": "hearing.open_wake_word:OpenWakeWordDetector",
    "either": "hearing.either_wake:EitherDetector",
}
"""``[wake] engine`` -> the class that hears it (imported only when chosen: an engine's
package loads its runtime)."""


def wake_problems(config: WakeConfig) -> list[str]:
    """Why the mic would refuse to start (``config check`` says the same first)."""
    if config.engine in ENGINES:
        return []
    return [f"unknown [wake] engine {config.engine!r}; known: {', '.join(ENGINES)}"]


def open_wake(config: WakeConfig) -> WakeDetector:
    """The detector of ``[wake] engine``. Raises :class:`WakeWordMissing` when its package
    is not installed, ValueError for an engine that is not in :data:`ENGINES`, and what the
    engine raises for a model it cannot load."""
    for problem in wake_problems(config):
        raise ValueError(problem)
    module, _, name = ENGINES[config.engine].partition(":")
    engine: Callable[[WakeConfig], WakeDetector] = getattr(importlib.import_module(module), name)
    return engine(config)
