"""microWakeWord (``pymicro-wakeword``) on 16 kHz PCM16: the wake word engine we ship.

The engine turns every 10 ms of audio into spectral features and, every 30 ms,
runs a small streaming TFLite model; the word is heard when the mean of its
last ``window`` probabilities passes ``cutoff``. Registered in :data:`hearing.wake.ENGINES`
as ``microwakeword``.

The detector hears the audio through speexdsp's noise suppressor: in steady room
noise at 10 dB SNR it then hears more of the word (pink noise: 60 % of Kokoro's clips
instead of 40 %), with no more false accepts and the same on clean speech
(``python -m bench.wake``; it costs 0.08 % of a core more).
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

from hearing.denoise import Denoiser
from hearing.wake import AFTER_SEARCH, RATE, Refractory, WakeWordMissing
from settings.schema import WakeConfig

PACKAGE = "pymicro-wakeword>=2.5"
"""What hears the word: a dependency in ``pyproject.toml``, so missing only from a venv
set up by hand or a platform without its wheel."""


class MicroWakeWordDetector:
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
        self.after_search = AFTER_SEARCH
        self._heard = Refractory()

    def hear(self, pcm: bytes) -> bool:
        """Feed 16 kHz mono PCM16 audio; True when the word was heard in it."""
        heard = False
        for features in self._features.process_streaming(self._denoise(pcm)):
            probability = self._model.process_streaming_prob(features)
            if probability is not None and probability > self._model.probability_cutoff:
                heard = True
        return self._heard.count(len(pcm) // 2, heard)

    @property
    def position(self) -> int:
        """Samples heard since the start (or the last :meth:`reset`)."""
        return self._heard.position

    def reset(self) -> None:
        """Forget the audio heard so far (the stream was reopened, or it was not heard)."""
        self._model.reset()
        self._features.reset()
        self._denoise.reset()
        self._heard.reset()
