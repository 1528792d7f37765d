"""The echo reference from the sound server: the monitor of the output the assistant plays on.

PulseAudio and PipeWire give every output (sink) a monitor source holding
what it plays. Recorded by the same server as the mic, at the same pace, it
stays aligned with the mic up to a small, steady delay, which is what the
canceller needs (the design of PulseAudio's and PipeWire's own echo-cancel
modules). PortAudio reaches the server only through ALSA's ``pulse`` device,
which opens the source that libpulse's ``PULSE_SOURCE`` names; the name
``@DEFAULT_MONITOR@`` is the server's own for the default output's monitor,
where the speaker plays when ``[audio] output`` is empty.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

log = logging.getLogger(__name__)

SERVER_DEVICE = "pulse"
"""ALSA's device onto PulseAudio (or PipeWire's pulse server), from libasound2-plugins."""
MONITOR = "@DEFAULT_MONITOR@"
"""The default output's monitor, as PulseAudio and PipeWire name it."""
SERVER_OUTPUTS = ("", "pulse", "default")
"""``[audio] output`` values that play through the server's default output (whose
monitor is then the reference)."""


@contextlib.contextmanager
def server_source(source: str) -> Iterator[None]:
    """While opened inside it, the ``pulse`` device records ``source`` (libpulse reads
    ``PULSE_SOURCE`` when a stream connects); nothing changes for an empty ``source``."""
    if not source:
        yield
        return
    before = os.environ.get("PULSE_SOURCE")
    os.environ["PULSE_SOURCE"] = source
    try:
        yield
    finally:
        if before is None:
            del os.environ["PULSE_SOURCE"]
        else:
            os.environ["PULSE_SOURCE"] = before


def probe(source: str = MONITOR, seconds: float = 0.1) -> None:
    """Open ``source`` and read a moment of it; raises ``sounddevice.PortAudioError`` (or
    ``CardError``) when the server has no such source."""
    import sounddevice as sd

    from services.mic.card import find_card

    device = find_card(SERVER_DEVICE)
    with server_source(source):
        stream = sd.RawInputStream(device=device, samplerate=16000, channels=1, dtype="int16")
    with stream:
        stream.read(round(16000 * seconds))


def report_monitor(problem: str | None) -> None:
    """What the mic says when the monitor cannot be recorded (``problem``: why)."""
    if problem is not None:
        log.error("no echo reference from the output's monitor (%s): the canceller "
                  "hears no echo to remove; see desktop-assistant doctor", problem)
