"""The echo canceller's check: with ``[audio] echo_cancel`` on, speexdsp loads and removes a
synthetic echo."""

from __future__ import annotations

import numpy as np

from desktop_assistant.doctor.result import Check
from settings.schema import Config

FIX = "apt install libspeexdsp1 (./bootstrap does), or set [audio] echo_cancel = false"


def check_echo(config: Config) -> list[Check]:
    if not config.audio.echo_cancel:
        return []
    try:
        from services.mic.echo import RATE, EchoCanceller

        canceller = EchoCanceller(delay=0.0)
    except Exception as exc:  # the library missing or refusing: report, don't crash
        return [Check("echo canceller", False, str(exc), FIX)]
    played = (np.random.default_rng(0).standard_normal(3 * RATE) * 3000).astype("<i2")
    echo = (np.concatenate([np.zeros(400), played[:-400]]) * 0.3).astype("<i2")
    canceller.played(played.tobytes(), 1000.0)
    cleaned, _ = canceller.clean(echo.tobytes(), 1000.0 + 3)
    tail = np.frombuffer(cleaned, dtype="<i2")[-RATE:].astype(np.float64)
    before = float(np.mean(echo[-RATE:].astype(np.float64) ** 2))
    erle = 10 * np.log10(before / max(float(np.mean(tail**2)), 1.0))
    ok = bool(erle >= 15)
    detail = f"speexdsp removes {erle:.0f} dB of a synthetic 25 ms echo"
    return [Check("echo canceller", ok, detail, "" if ok else FIX)]
