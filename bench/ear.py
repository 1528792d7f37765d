"""What the sound card really played: a recording of the virtual sink's monitor.

The question (played with ``paplay``) and the assistant's answer (played by
the TTS service through PortAudio) are mixed into the same null sink, so one
recording of its monitor holds both on one clock: the time from the
question's last voiced sample to the answer's first sample is read in sample
positions, free of any process's notion of time. ``parec`` records at 16 kHz
mono; a reader thread keeps every byte.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass

import numpy as np

from tests.helpers.soundcard import SINK, SoundCard

RATE = 16000
READ = 640
"""Bytes per read: 20 ms."""
AUDIBLE = 0.002
"""-54 dBFS: the null sink is digitally silent, so anything above this is sound."""


class Ear:
    """Records ``source`` (by default the sink's monitor: what the card played)."""

    def __init__(self, card: SoundCard, source: str = f"{SINK}.monitor") -> None:
        self._card = card
        self._source = source
        self._pcm = bytearray()
        self._lock = threading.Lock()
        self._start_epoch = float("inf")
        """Best (earliest) estimate of the epoch time of sample 0."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> Ear:
        self._proc = subprocess.Popen(
            ["parec", f"--device={self._source}", "--format=s16le", f"--rate={RATE}",
             "--channels=1", "--latency-msec=20", "--raw"],
            env=self._card.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )
        self._thread = threading.Thread(target=self._read, name="ear", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while self.position() < RATE // 10:  # polling for the first audio, with a deadline
            if time.monotonic() > deadline or self._proc.poll() is not None:
                raise RuntimeError(f"parec records nothing from {self._source}")
            time.sleep(0.02)
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while chunk := self._proc.stdout.read1(READ):  # type: ignore[attr-defined]
            now = time.time()
            with self._lock:
                self._pcm += chunk
                end = len(self._pcm) // 2
            self._start_epoch = min(self._start_epoch, now - end / RATE)

    def position(self) -> int:
        """Samples recorded so far."""
        with self._lock:
            return len(self._pcm) // 2

    def epoch(self, position: int) -> float:
        """The approximate epoch time of a sample (for comparison with the bus's clocks)."""
        return self._start_epoch + position / RATE

    def samples(self, start: int, end: int | None = None) -> np.ndarray:
        with self._lock:
            raw = bytes(self._pcm[2 * start : None if end is None else 2 * end])
        return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            self._proc.wait(5)
        if self._thread is not None:
            self._thread.join(5)


@dataclass(frozen=True)
class Heard:
    """One exchange as the sink played it, in seconds from the question's last voiced sample."""

    question_end: int
    """Sample position of the question's last voiced sample."""
    first_sound: float
    """The answer's first sample (the acknowledgement tone, when one plays)."""
    first_speech: float
    """The first sample of the answer's speech."""


def first_loud(audio: np.ndarray, floor: float, start: int = 0) -> int | None:
    loud = np.flatnonzero(np.abs(audio[start:]) > floor)
    return int(loud[0]) + start if loud.size else None


def hear_exchange(
    audio: np.ndarray, question: np.ndarray, toned: bool, tone_length: float
) -> Heard | None:
    """Find, in ``audio`` (the recording from before ``question`` was played until after the
    answer), the question's speech and the first sound after it. The question's voiced end is
    its last sample above 2 % of its peak (as :func:`tests.helpers.speech.speech_bounds`);
    the answer is the first sample above -54 dBFS after the question's quiet tail has ended.
    ``toned``: that first sound is the tone, and the speech starts after its ``tone_length``."""
    floor = 0.02 * float(np.max(np.abs(question)))
    first = first_loud(question, floor)
    voiced = np.flatnonzero(np.abs(question) > floor)
    audible = np.flatnonzero(np.abs(question) > AUDIBLE)
    onset = first_loud(audio, floor)
    if onset is None or first is None:
        return None
    end = onset + int(voiced[-1]) - first
    tail_end = onset + int(audible[-1]) - first
    after = first_loud(audio, AUDIBLE, tail_end + RATE // 100)
    if after is None:
        return None
    speech = after
    if toned:
        speech_at = first_loud(audio, AUDIBLE, after + round(tone_length * RATE) - RATE // 100)
        if speech_at is None:
            return None
        speech = speech_at
    return Heard(end, (after - end) / RATE, (speech - end) / RATE)


def resample_to_ear(samples: np.ndarray, rate: int) -> np.ndarray:
    """A WAV's samples at the recording's rate (linear interpolation: for finding bounds)."""
    if rate == RATE:
        return samples
    positions = np.arange(0, len(samples), rate / RATE)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
