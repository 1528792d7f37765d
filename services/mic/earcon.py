"""The chime that says the wake word was heard, on the default output.

The mic plays it itself rather than through the speaker: the speaker's audio
makes the mic deaf (``tts.speaking``), and a question said in the same breath
as the word must still be heard. A chime is no speech to Silero, so it does not
start an utterance.

One output stream is opened at start and kept, stopped, between chimes: a chime
only starts it and writes into it. Opening a stream per chime (in a new thread,
PortAudio, the sound server's connection) made it late and uneven on a busy
machine. The write blocks in C, without the GIL, so a busy mic process cannot
break the chime up as it could a callback's. The default output goes through the
sound server (or ALSA's dmix), which mixes: the stream held open blocks no one.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

RATE = 48000
NOTES = (660.0, 990.0)
"""Two rising notes, 60 ms each."""
NOTE = 0.06
LEVEL = 0.25
TAIL = 0.1
"""Seconds of silence written after the chime: stopping a stream through PulseAudio's ALSA
plugin drops the last few tens of milliseconds it was given."""


def chime() -> np.ndarray:
    t = np.arange(round(NOTE * RATE)) / RATE
    envelope = np.sin(np.pi * t / NOTE)  # no click at either end
    notes = [LEVEL * envelope * np.sin(2 * np.pi * hz * t) for hz in NOTES]
    return np.concatenate(notes).astype(np.float32)


class Earcon:
    """Plays :func:`chime` on :meth:`play`, from its own thread; without a device it warns,
    and tries to open one again at the next chime."""

    def __init__(self) -> None:
        self.sound = chime()
        self._written = np.concatenate([self.sound, np.zeros(round(TAIL * RATE), np.float32)])
        self.started: float | None = None
        """Epoch time the latest chime was handed to the device (for the latency benchmark)."""
        self.opened = 0
        """Output streams opened so far (one, while the device stays)."""
        self._wanted = threading.Event()
        self._closed = False
        self._stream: Any = None
        self._thread = threading.Thread(target=self._run, name="earcon", daemon=True)
        self._thread.start()

    def play(self) -> None:
        """Start the chime without blocking the caller."""
        self._wanted.set()

    def close(self) -> None:
        self._closed = True
        self._wanted.set()
        self._thread.join(5)

    def _run(self) -> None:
        self._open()
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._closed:
                break
            if not self._chime() and self._open():  # a dead stream: once more, on a new one
                self._chime()
        self._close_stream()

    def _chime(self) -> bool:
        """Play one chime to its end; False when the stream failed (a warning says why)."""
        if self._stream is None and not self._open():
            return True  # no device: the warning is given, the mic goes on without a chime
        try:
            self._stream.start()
            # A blocking write feeds the device from C, without the GIL: a callback waiting
            # for the busy process's GIL would break the chime up.
            self._stream.write(self._written)
            self.started = time.time()
            self._stream.stop()  # returns once it has played
        except Exception as exc:  # sounddevice raises PortAudioError, and others on a dead one
            log.warning("earcon: the output stream failed (%s); opening it again", exc)
            self._close_stream()
            return False
        return True

    def _open(self) -> bool:
        try:
            import sounddevice as sd

            self._stream = sd.OutputStream(samplerate=RATE, channels=1, dtype="float32")
        except Exception as exc:  # no output device: the mic works on without the chime
            log.warning("earcon: cannot open the output (%s); no chime until it can", exc)
            self._stream = None
            return False
        self.opened += 1
        return True

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close(ignore_errors=True)
            except Exception as exc:  # a dead stream may fail to close; a new one is opened
                log.debug("earcon: closing the output stream: %s", exc)
