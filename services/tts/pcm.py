"""Audio as PCM16 bytes: volume scaling with clipping, silence, the acknowledgement tone."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Samples = npt.NDArray[np.float32]

TONE_HZ = 880.0
TONE_SECONDS = 0.12
TONE_LEVEL = 0.15
"""Soft: well below speech, so it reads as a cue and not as part of the answer."""


def to_pcm16(samples: Samples, volume: float) -> bytes:
    """Scale float samples in [-1, 1] by ``volume`` (0.0-2.0) and clip to PCM16."""
    scaled = np.clip(np.asarray(samples, dtype=np.float32) * volume, -1.0, 1.0)
    return (scaled * 32767.0).astype("<i2").tobytes()


LEAD_FLOOR = 0.002
"""-54 dBFS: quieter samples at the start of a synthesized piece are silence."""
LEAD_KEEP = 0.005
"""Seconds of that silence kept before the first sound (no click, no clipped onset)."""


def trim_lead(samples: Samples, rate: int) -> Samples:
    """Drop the silence a synthesizer puts before the first sound (Kokoro: 25-50 ms), which
    would otherwise come on top of every reply's latency."""
    loud = np.flatnonzero(np.abs(samples) > LEAD_FLOOR)
    start = int(loud[0]) - round(LEAD_KEEP * rate) if loud.size else 0
    return samples[start:] if start > 0 else samples


TAIL_KEEP = 0.01
"""Seconds of quiet kept after the last sound: the decay of its last phoneme."""


def trim_tail(samples: Samples, rate: int) -> Samples:
    """Drop the silence a synthesizer puts after the last sound (espeak-ng: 0.3 s, its own
    end-of-sentence pause). Where a clause was cut in two it would be a break inside it; at
    a clause's end the speaker adds the pause its mark asks for instead."""
    loud = np.flatnonzero(np.abs(samples) > LEAD_FLOOR)
    end = int(loud[-1]) + 1 + round(TAIL_KEEP * rate) if loud.size else len(samples)
    return samples[:end]


def silence(seconds: float, rate: int) -> bytes:
    return bytes(2 * int(round(seconds * rate)))


TONE_GAP = 0.08
"""Seconds of silence after the tone, unless speech is ready to follow it at once."""


def ack_tone(rate: int) -> Samples:
    """A short sine with a raised-cosine envelope (no click at either end)."""
    n = int(TONE_SECONDS * rate)
    t = np.arange(n, dtype=np.float32) / rate
    envelope = np.sin(np.pi * np.arange(n, dtype=np.float32) / n) ** 2
    tone = TONE_LEVEL * envelope * np.sin(2 * np.pi * TONE_HZ * t)
    return tone.astype(np.float32)


def seconds_of(pcm: bytes, rate: int) -> float:
    return len(pcm) / 2 / rate
