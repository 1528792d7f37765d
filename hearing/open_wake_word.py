"""openWakeWord (``pyopen-wakeword``) on 16 kHz PCM16: the second wake word engine.

openWakeWord turns audio into mel spectrograms, then into embeddings of a shared
speech model (every 80 ms), and a small per-word model scores the last embeddings;
the package ships ``okay_nabu``, ``hey_jarvis``, ``hey_mycroft``, ``alexa`` and
``hey_rhasspy`` with both shared models, so nothing is downloaded. The word is heard
when the mean of the last ``window`` scores passes ``cutoff`` (0.5 and 1 by default:
the package's own threshold, a single score). Registered in
:data:`hearing.wake.ENGINES` as ``openwakeword``; the same noise suppressor as
microWakeWord's is in front of it, so the two hear the same audio.
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

from hearing.denoise import Denoiser
from hearing.wake import RATE, Refractory, WakeWordMissing
from settings.schema import WakeConfig

PACKAGE = "pyopen-wakeword>=1.1"
CUTOFF = 0.5
"""The package's own threshold (its command line and Home Assistant's openWakeWord add-on)."""
WINDOW = 1
AFTER_SEARCH = 0.5
"""Seconds before a detection that hold the end of the word: openWakeWord scores every
80 ms on 0.78 s of embeddings, and heard the end of "Okay Nabu" up to 0.33 s late on
Kokoro's clips (microWakeWord: 0.12 s); with 0.5 s a question said in the same breath
keeps its first word (``tests/hearing/test_wake.py``)."""


class OpenWakeWordDetector:
    def __init__(self, config: WakeConfig) -> None:
        try:
            from pyopen_wakeword import Model, OpenWakeWord, OpenWakeWordFeatures
        except ImportError as exc:
            raise WakeWordMissing(
                f"[wake] engine = \"openwakeword\" needs pyopen-wakeword, which is not "
                f"installed ({exc}): pip install '{PACKAGE}'"
            ) from exc

        path = Path(config.model).expanduser()
        if config.model.endswith(".tflite") or "/" in config.model:
            self._model: Any = OpenWakeWord.from_model(path)
        else:
            self._model = OpenWakeWord.from_builtin(Model(config.model))
        self.cutoff = config.cutoff or CUTOFF
        self._scores: collections.deque[float] = collections.deque(
            maxlen=config.window or WINDOW
        )
        self._features = OpenWakeWordFeatures.from_builtin()
        self._denoise = Denoiser(RATE)
        self.model: str = path.stem
        self.word: str = self.model.replace("_", " ").title()
        """The phrase, from the model's name ("okay_nabu": "Okay Nabu")."""
        self.after_search = AFTER_SEARCH
        self._heard = Refractory()

    def hear(self, pcm: bytes) -> bool:
        """Feed 16 kHz mono PCM16 audio; True when the word was heard in it."""
        heard = False
        cleaned = self._denoise(pcm)  # whole frames only: a short block may give nothing yet
        # pyopen-wakeword's features fail on an empty chunk (they shift by its length)
        for features in self._features.process_streaming(cleaned) if cleaned else ():
            for score in self._model.process_streaming(features):
                self._scores.append(score)
                full = len(self._scores) == self._scores.maxlen
                if full and sum(self._scores) / len(self._scores) > self.cutoff:
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
        self._scores.clear()
        self._heard.reset()
