"""The echo canceller's checks: with ``[audio] echo_cancel`` on, speexdsp loads and removes a
synthetic echo; with the monitor as the reference, the sound server has the monitor of the
output the speaker plays on. With ``auto``, whether the mic turns it on, and why not
(a warning where the monitor is missing)."""

from __future__ import annotations

import numpy as np

from desktop_assistant.doctor.result import Check
from settings.schema import Config

FIX = "apt install libspeexdsp1 (./bootstrap does), or set [audio] echo_cancel = false"
BUS = 'or set [audio] echo_reference = "bus"'


def check_echo(config: Config) -> list[Check]:
    if config.audio.echo_cancel is False:
        return []
    if config.audio.echo_cancel is not True:
        from services.mic.echo_choice import choose_echo

        choice = choose_echo(config.audio, config.card)  # what the mic decides at its start
        state = f"{'on' if choice.on else 'off'} ({choice.reason})"
        checks = [Check("echo cancellation", True, state,
                        "run PulseAudio or PipeWire with pipewire-pulse, and libasound2-plugins "
                        "(./bootstrap installs it)" if choice.problem else "",
                        warning=choice.problem)]
        return [*checks, check_canceller()] if choice.on else checks
    checks = [check_canceller()]
    if config.audio.echo_reference == "monitor":
        checks.append(check_monitor(config.audio.output))
    return checks


def check_monitor(output: str) -> Check:
    """The reference is the default output's monitor: the speaker must play there, and the
    sound server must open it (what the mic does)."""
    from services.mic.monitor import MONITOR, SERVER_OUTPUTS, probe

    name = "echo reference"
    if output not in SERVER_OUTPUTS:
        return Check(name, False, f"[audio] output {output!r} is not the sound server's default "
                     "output, whose monitor the mic records as the reference",
                     f'set [audio] output = "" (the sound server\'s default output), {BUS}')
    try:
        probe(MONITOR)
    except Exception as exc:  # PortAudio's and the card's errors alike: report them
        return Check(name, False, f"the default output's monitor ({MONITOR}) does not open: "
                     f"{' '.join(str(exc).split())}",
                     "run PulseAudio or PipeWire with pipewire-pulse, and libasound2-plugins "
                     f"(./bootstrap installs it), {BUS}")
    return Check(name, True, f"the default output's monitor ({MONITOR}) records")


def check_canceller() -> Check:
    try:
        from services.mic.echo import RATE, EchoCanceller

        # At the echo's own delay: the check is of speexdsp; a delay found midway would
        # leave the filter too little of the 3 s to adapt again (12 dB instead of 26).
        canceller = EchoCanceller(delay=0.025)
    except Exception as exc:  # the library missing or refusing: report, don't crash
        return Check("echo canceller", False, str(exc), FIX)
    played = (np.random.default_rng(0).standard_normal(3 * RATE) * 3000).astype("<i2")
    echo = (np.concatenate([np.zeros(400), played[:-400]]) * 0.3).astype("<i2")
    canceller.played(played.tobytes(), 1000.0)
    cleaned, _ = canceller.clean(echo.tobytes(), 1000.0 + 3)
    tail = np.frombuffer(cleaned, dtype="<i2")[-RATE:].astype(np.float64)
    before = float(np.mean(echo[-RATE:].astype(np.float64) ** 2))
    erle = 10 * np.log10(before / max(float(np.mean(tail**2)), 1.0))
    ok = bool(erle >= 15)
    detail = f"speexdsp removes {erle:.0f} dB of a synthetic 25 ms echo"
    return Check("echo canceller", ok, detail, "" if ok else FIX)
