"""A simulated room between the virtual card's speaker and its mic.

:class:`RoomOnCard` has the sound server take what is played into the
speaker's sink (its monitor), delay it, low-pass it (a small speaker and the
air), attenuate it, add noise, and play the result into the mic's sink,
whose monitor is the mic. The user's voice is played into the mic's sink
too: the mic hears both, as in a room. :class:`Room` is the same path as a
pure function, for the offline benchmark.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
TAPS = 31
"""Length of the low-pass filter (2 ms at 16 kHz)."""


class Room:
    """The acoustic path as a pure function of blocks (so a benchmark can run it offline)."""

    def __init__(
        self, delay: float, gain: float, noise: float, cutoff: float = 3400.0, seed: int = 0
    ) -> None:
        self.gain = gain
        self.noise = noise
        self._line = np.zeros(round(delay * RATE), dtype=np.float32)
        # A windowed-sinc low-pass (vectorized: the room must keep up in real time on a
        # loaded machine, or its own latency grows while the test runs).
        taps = np.arange(TAPS) - (TAPS - 1) / 2
        kernel = np.sinc(2 * cutoff / RATE * taps) * np.hamming(TAPS)
        self._kernel = (kernel / kernel.sum()).astype(np.float32)
        self._history = np.zeros(TAPS - 1, dtype=np.float32)
        self._rng = np.random.default_rng(seed)

    def process(self, block: np.ndarray) -> np.ndarray:
        joined = np.concatenate([self._line, block.astype(np.float32)])
        out, self._line = joined[: len(block)], joined[len(block) :]
        extended = np.concatenate([self._history, out])
        self._history = extended[-(TAPS - 1) :]
        filtered = np.convolve(extended, self._kernel, mode="valid")
        noise = self.noise * self._rng.standard_normal(len(block)).astype(np.float32)
        return self.gain * filtered + noise


MIC_SINK = "roomsink"
"""The null sink the room plays into; its monitor is the mic."""
NARROW_RATE = 8000
"""The room's loopback runs at this rate: resampled down and up, the echo loses what lies
above 4 kHz (a small speaker and the air)."""
URANDOM_RMS = 32768 / 3**0.5
"""RMS of ``/dev/urandom`` read as PCM16 (uniform over the full scale)."""


class RoomOnCard:
    """The room between a started :class:`SoundCard`'s sink (where the speaker plays) and a
    second null sink whose monitor becomes the default source (the mic): start it before
    the mic. :meth:`play` says something in the room.

    The echo path runs inside the sound server (``module-loopback``, which holds its
    latency by resampling), not in a process of ours: one starved of CPU by the models
    of the other processes let its buffers grow and the echo's delay wander by a second.
    """

    def __init__(self, card: Any, delay: float, gain: float, noise: float) -> None:
        self.card = card
        self.delay, self.gain, self.noise = delay, gain, noise
        self.proc: subprocess.Popen[bytes] | None = None

    def _pactl(self, *args: str) -> str:
        done = subprocess.run(["pactl", *args], env=self.card.env(), check=True, timeout=15,
                              capture_output=True, text=True)
        return done.stdout

    def start(self) -> RoomOnCard:
        from tests.helpers.soundcard import SINK

        self._pactl("load-module", "module-null-sink", f"sink_name={MIC_SINK}", "rate=48000")
        self._pactl("set-default-source", f"{MIC_SINK}.monitor")
        self._pactl("load-module", "module-loopback", f"source={SINK}.monitor",
                    f"sink={MIC_SINK}", f"latency_msec={round(self.delay * 1000)}",
                    f"rate={NARROW_RATE}", "channels=1", "source_dont_move=true",
                    "sink_dont_move=true", "adjust_time=0")
        for line in self._pactl("list", "short", "sink-inputs").splitlines():
            index, _sink, _client, driver, *_ = line.split("\t")
            if driver == "module-loopback.c":
                self._pactl("set-sink-input-volume", index, f"{20 * math.log10(self.gain):.1f}dB")
        # A stream's volume is cubic in the amplitude (PulseAudio's software volume).
        volume = round(65536 * (self.noise * 32768 / URANDOM_RMS) ** (1 / 3))
        self.proc = subprocess.Popen(
            ["pacat", "--playback", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             f"--device={MIC_SINK}", f"--volume={volume}", "/dev/urandom"],
            env=self.card.env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )
        return self

    def play(self, wav: Path, timeout: float = 30.0) -> None:
        """Play a WAV file into the room (the user speaking) and return when it is played."""
        subprocess.run(["paplay", f"--device={MIC_SINK}", str(wav)], env=self.card.env(),
                       check=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop(self) -> None:
        """Stop the noise (the modules go with the card's sound server)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
