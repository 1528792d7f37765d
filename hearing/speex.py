"""speexdsp's echo canceller and residual-echo suppressor through ctypes.

The library is Debian's ``libspeexdsp1`` (bootstrap installs it); its C API is
small and stable, so no Python binding (none is maintained on PyPI for
current Pythons) is needed. WebRTC's audio processing library has a C++ API
only, which ctypes cannot call.
"""

from __future__ import annotations

import ctypes
import ctypes.util

LIBRARY = "libspeexdsp.so.1"
SET_ECHO_STATE = 24
"""``SPEEX_PREPROCESS_SET_ECHO_STATE``: the suppressor reads the canceller's residual."""
SET_SAMPLING_RATE = 24
"""``SPEEX_ECHO_SET_SAMPLING_RATE``."""
SET_DENOISE = 0
SET_ECHO_SUPPRESS = 20
SET_ECHO_SUPPRESS_ACTIVE = 22


class SpeexError(Exception):
    """The library is missing or refused the settings."""


def load() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("speexdsp") or LIBRARY)
    except OSError as exc:
        raise SpeexError(f"{LIBRARY} is missing (apt install libspeexdsp1): {exc}") from None
    lib.speex_echo_state_init.restype = ctypes.c_void_p
    lib.speex_echo_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.speex_echo_cancellation.argtypes = [ctypes.c_void_p] + [ctypes.c_char_p] * 3
    lib.speex_echo_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.speex_echo_state_reset.argtypes = [ctypes.c_void_p]
    lib.speex_echo_state_destroy.argtypes = [ctypes.c_void_p]
    lib.speex_preprocess_state_init.restype = ctypes.c_void_p
    lib.speex_preprocess_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.speex_preprocess_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.speex_preprocess_run.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.speex_preprocess_state_destroy.argtypes = [ctypes.c_void_p]
    return lib


class SpeexCanceller:
    """One echo canceller (an adaptive filter ``tail`` samples long) and the suppressor that
    removes what the filter leaves, on frames of ``frame`` samples of PCM16."""

    def __init__(self, frame: int, tail: int, rate: int, suppress_db: int = -40) -> None:
        self.lib = load()
        self.frame = frame
        self.echo = self.lib.speex_echo_state_init(frame, tail)
        self.pre = self.lib.speex_preprocess_state_init(frame, rate)
        if not self.echo or not self.pre:
            raise SpeexError("speexdsp refused the echo canceller's settings")
        self._ctl(self.lib.speex_echo_ctl, self.echo, SET_SAMPLING_RATE, rate)
        self._ctl(self.lib.speex_preprocess_ctl, self.pre, SET_DENOISE, 0)
        self._ctl(self.lib.speex_preprocess_ctl, self.pre, SET_ECHO_SUPPRESS, suppress_db)
        self._ctl(self.lib.speex_preprocess_ctl, self.pre, SET_ECHO_SUPPRESS_ACTIVE, suppress_db)
        self.lib.speex_preprocess_ctl(self.pre, SET_ECHO_STATE, ctypes.c_void_p(self.echo))
        self._out = ctypes.create_string_buffer(2 * frame)

    @staticmethod
    def _ctl(ctl: object, state: int, request: int, value: int) -> None:
        number = ctypes.c_int(value)
        ctl(state, request, ctypes.byref(number))  # type: ignore[operator]

    def process(self, mic: bytes, played: bytes) -> bytes:
        """The mic's frame with the echo of ``played`` (the same length, aligned) removed."""
        self.lib.speex_echo_cancellation(self.echo, mic, played, self._out)
        self.lib.speex_preprocess_run(self.pre, self._out)
        return self._out.raw

    def reset(self) -> None:
        self.lib.speex_echo_state_reset(self.echo)

    def close(self) -> None:
        if self.echo:
            self.lib.speex_echo_state_destroy(self.echo)
            self.lib.speex_preprocess_state_destroy(self.pre)
            self.echo = self.pre = None
