"""The wake word: microWakeWord (``pymicro-wakeword``) on the mic's 16 kHz PCM16 frames.

The engine turns every 10 ms of audio into spectral features and, every 30 ms,
runs a small streaming TFLite model; the word is heard when the mean of its
last ``window`` probabilities passes ``cutoff``. Nothing here leaves the
process: the mic only opens (and publishes audio) after a detection.

The detector hears the audio through speexdsp's noise suppressor: in steady room
noise at 10 dB SNR it then hears more of the word (pink noise: 60 % of Kokoro's clips
instead of 40 %), with no more false accepts and the same on clean speech
(``python -m bench.wake``; it costs 0.08 % of a core more).
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import numpy as np

from hearing.denoise import Denoiser
from settings.schema import WakeConfig

RATE = 16000
REFRACTORY = 1.5
"""Seconds after a detection in which the same word is not heard again (the model's
probability stays high for a few hundred ms after the word)."""


AFTER_SEARCH = 0.3
"""Seconds before a detection searched for the end of the word: the detector hears the
end of the word up to about 0.27 s late (p95), and a question said in the same breath
has started by then."""
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


PACKAGE = "pymicro-wakeword>=2.5"
"""What hears the word: a dependency in ``pyproject.toml``, so missing only from a venv
set up by hand or a platform without its wheel."""


class WakeWordMissing(RuntimeError):
    """The wake word package is not installed."""


class WakeDetector:
    def __init__(self, config: WakeConfig) -> None:
        try:
            from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures, Model
        except ImportError as exc:
            raise WakeWordMissing(
                f"the wake word needs pymicro-wakeword, which is not installed ({exc}): run "
                f"./bootstrap setup, or pip install '{PACKAGE}'"
            ) from exc

        if config.model.endswith(".json") or "/" in config.model:
            self._model: Any = MicroWakeWord.from_config(Path(config.model).expanduser())
        else:
            self._model = MicroWakeWord.from_builtin(Model(config.model))
        if config.cutoff:
            self._model.probability_cutoff = config.cutoff
        if config.window:
            # The engine sizes its queue of probabilities once, when the model is built.
            self._model.sliding_window_size = config.window
            self._model._probabilities = collections.deque(maxlen=config.window)
        self._features = MicroWakeWordFeatures()
        self._denoise = Denoiser(RATE)
        self.word: str = self._model.wake_word
        """The phrase, as the model names it ("Okay Nabu")."""
        self.model: str = self._model.id
        self.position = 0
        """Samples heard since the start (or the last :meth:`reset`)."""
        self._quiet_until = 0

    def hear(self, pcm: bytes) -> bool:
        """Feed 16 kHz mono PCM16 audio; True when the word was heard in it."""
        heard = False
        for features in self._features.process_streaming(self._denoise(pcm)):
            probability = self._model.process_streaming_prob(features)
            if probability is not None and probability > self._model.probability_cutoff:
                heard = True
        self.position += len(pcm) // 2
        if not heard or self.position < self._quiet_until:
            return False
        self._quiet_until = self.position + round(REFRACTORY * RATE)
        return True

    def reset(self) -> None:
        """Forget the audio heard so far (the stream was reopened, or it was not heard)."""
        self._model.reset()
        self._features.reset()
        self._denoise.reset()
        self.position = self._quiet_until = 0
