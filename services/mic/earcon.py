"""The chime that says the wake word was heard, on the default output.

The mic plays it itself rather than through the speaker: the speaker's audio
makes the mic deaf (``tts.speaking``), and a question said in the same breath
as the word must still be heard. A chime is no speech to Silero, so it does not
start an utterance.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

log = logging.getLogger(__name__)

RATE = 48000
NOTES = (660.0, 990.0)
"""Two rising notes, 60 ms each."""
NOTE = 0.06
LEVEL = 0.25


def chime() -> np.ndarray:
    t = np.arange(round(NOTE * RATE)) / RATE
    envelope = np.sin(np.pi * t / NOTE)  # no click at either end
    notes = [LEVEL * envelope * np.sin(2 * np.pi * hz * t) for hz in NOTES]
    return np.concatenate(notes).astype(np.float32)


class Earcon:
    def __init__(self) -> None:
        self.sound = chime()
        self.started: float | None = None
        """Epoch time the latest chime's stream started (for the latency benchmark)."""

    def play(self) -> None:
        """Start the chime without blocking the caller (opening a stream takes a while)."""
        threading.Thread(target=self._play, name="earcon", daemon=True).start()

    def _play(self) -> None:
        try:
            import sounddevice as sd

            sd.play(self.sound, RATE)
            self.started = time.time()
        except Exception as exc:  # no output device: the mic works on without the chime
            log.warning("earcon: cannot play (%s)", exc)
