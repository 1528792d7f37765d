"""speexdsp's noise suppressor, in front of the wake word detector.

A fan, traffic or the hum of a room is steady noise: speexdsp's preprocessor
learns its spectrum and takes it out, and the detector then hears the word in
10 dB pink noise in 60 % of Kokoro's clips instead of 40 % (``python -m
bench.wake``). Speech in the background (babble, a television) is not steady,
and gains little. The library is Debian's ``libspeexdsp1`` (``bootstrap``
installs it), called through ctypes.
"""

from __future__ import annotations

import ctypes

from hearing import speex

FRAME = 160
"""Samples per run: 10 ms at 16 kHz, the detector's own feature step."""
SET_DENOISE = 0
SET_AGC = 2
SET_NOISE_SUPPRESS = 18


class DenoiseError(Exception):
    """The library is missing."""


def _library() -> ctypes.CDLL:
    """The one speexdsp loader (the echo canceller's), its error as ours."""
    try:
        return speex.load()
    except speex.SpeexError as exc:
        raise DenoiseError(str(exc)) from None


class Denoiser:
    """16 kHz PCM16 in, the same with steady noise suppressed out (by ``suppress_db``), in
    whole 10 ms frames; a partial frame waits for the next call."""

    def __init__(self, rate: int = 16000, suppress_db: int = -15) -> None:
        self._lib = _library()
        self._rate, self._suppress = rate, suppress_db
        self._state: int | None = None
        self._pending = b""
        self._buffer = ctypes.create_string_buffer(2 * FRAME)
        self.reset()

    def _set(self, request: int, value: int) -> None:
        number = ctypes.c_int(value)
        self._lib.speex_preprocess_ctl(self._state, request, ctypes.byref(number))

    def __call__(self, pcm: bytes) -> bytes:
        data = self._pending + pcm
        whole = len(data) // (2 * FRAME) * (2 * FRAME)
        self._pending = data[whole:]
        out = bytearray()
        for at in range(0, whole, 2 * FRAME):
            ctypes.memmove(self._buffer, data[at : at + 2 * FRAME], 2 * FRAME)
            self._lib.speex_preprocess_run(self._state, self._buffer)
            out += self._buffer.raw
        return bytes(out)

    def reset(self) -> None:
        """Forget the noise learnt so far (a new stream)."""
        self.close()
        self._state = self._lib.speex_preprocess_state_init(FRAME, self._rate)
        self._set(SET_DENOISE, 1)
        self._set(SET_NOISE_SUPPRESS, self._suppress)
        self._set(SET_AGC, 0)
        self._pending = b""

    def close(self) -> None:
        if self._state:
            self._lib.speex_preprocess_state_destroy(self._state)
            self._state = None
