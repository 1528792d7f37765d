"""A simulated room between the virtual card's speaker and its mic.

Run as a process (``python -m tests.helpers.room``): it records what is
played into the speaker's sink (its monitor), delays it, low-passes it (a
small speaker and the air), attenuates it, adds noise, and plays the result
into the mic's sink, whose monitor is the mic. The user's voice is played
into the mic's sink too: the mic hears both, as in a room.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
BLOCK = 160
"""10 ms blocks: the room's own latency stays small beside the delay it simulates."""
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


class RoomOnCard:
    """The room between a started :class:`SoundCard`'s sink (where the speaker plays) and a
    second null sink whose monitor becomes the default source (the mic): start it before
    the mic. :meth:`play` says something in the room."""

    def __init__(self, card: Any, delay: float, gain: float, noise: float) -> None:
        self.card = card
        self.args = [f"--delay={delay}", f"--gain={gain}", f"--noise={noise}"]
        self.proc: subprocess.Popen[bytes] | None = None

    def _pactl(self, *args: str) -> str:
        done = subprocess.run(["pactl", *args], env=self.card.env(), check=True, timeout=15,
                              capture_output=True, text=True)
        return done.stdout

    def start(self) -> RoomOnCard:
        self._pactl("load-module", "module-null-sink", f"sink_name={MIC_SINK}", "rate=48000")
        self._pactl("set-default-source", f"{MIC_SINK}.monitor")
        from tests.helpers.soundcard import SINK

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.room", f"--source={SINK}.monitor",
             f"--sink={MIC_SINK}", *self.args],
            env=self.card.env(), stdin=subprocess.DEVNULL, start_new_session=True,
        )
        return self

    def play(self, wav: Path, timeout: float = 30.0) -> None:
        """Play a WAV file into the room (the user speaking) and return when it is played."""
        subprocess.run(["paplay", f"--device={MIC_SINK}", str(wav)], env=self.card.env(),
                       check=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", required=True, help="the speaker's sink monitor")
    parser.add_argument("--sink", required=True, help="the mic's sink")
    parser.add_argument("--delay", type=float, default=0.06, help="seconds")
    parser.add_argument("--gain", type=float, default=0.3)
    parser.add_argument("--noise", type=float, default=0.002, help="noise RMS, full scale 1")
    args = parser.parse_args(argv)
    room = Room(args.delay, args.gain, args.noise)
    fmt = ["--raw", "--format=s16le", f"--rate={RATE}", "--channels=1", "--latency-msec=10"]
    record = subprocess.Popen(["parec", f"--device={args.source}", *fmt], stdout=subprocess.PIPE)
    play = subprocess.Popen(["pacat", "--playback", f"--device={args.sink}", *fmt],
                            stdin=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    assert record.stdout is not None and play.stdin is not None
    try:
        while data := record.stdout.read(2 * BLOCK):
            block = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768
            out = np.clip(room.process(block), -1, 1)
            play.stdin.write((out * 32767).astype("<i2").tobytes())
            play.stdin.flush()
    finally:
        for proc in (record, play):
            proc.kill()
            proc.wait(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
