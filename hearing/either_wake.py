"""Both wake word engines at once: the word is heard when either hears it.

microWakeWord and openWakeWord miss different clips in a noisy room: at 10 dB over
pink, brown, babble and a television, each at its own default, microWakeWord heard 43 /
49 % of Kokoro's / espeak-ng's clips and openWakeWord 67 / 50 %; either heard 70 / 60 %,
and 100 / 92 % clean (``python -m bench.wake_pair``, ``docs/listening.md``). The price:
the near words of both (8 of 117 against microWakeWord's 6) and openWakeWord's CPU (9 %
of a core, always on). So an option for a noisy room, not the default. Registered in
:data:`hearing.wake.ENGINES` as ``either``.
"""

from __future__ import annotations

from hearing.micro_wake_word import MicroWakeWordDetector
from hearing.open_wake_word import OpenWakeWordDetector
from hearing.wake import Refractory
from settings.schema import WakeConfig


class EitherDetector:
    def __init__(self, config: WakeConfig) -> None:
        # The config checked when it loaded: a model both ship, each engine's own cutoff.
        self._engines = (MicroWakeWordDetector(config), OpenWakeWordDetector(config))
        self.word: str = self._engines[0].word
        self.model: str = config.model
        self.after_search = max(engine.after_search for engine in self._engines)
        """Enough for the later of the two (openWakeWord hears the end of the word later)."""
        self._heard = Refractory()

    def hear(self, pcm: bytes) -> bool:
        """Feed 16 kHz mono PCM16 audio; True when either engine heard the word in it (once
        per word: the other engine's detection of the same word, a moment later, is not
        another)."""
        heard = [engine.hear(pcm) for engine in self._engines]  # both hear every block
        return self._heard.count(len(pcm) // 2, any(heard))

    @property
    def position(self) -> int:
        return self._heard.position

    def reset(self) -> None:
        for engine in self._engines:
            engine.reset()
        self._heard.reset()
