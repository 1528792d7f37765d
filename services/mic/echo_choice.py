"""Whether the mic cancels the assistant's echo, and why: ``[audio] echo_cancel`` set to true
or false, or ``auto`` (the default).

``auto`` turns the canceller on where it can work as designed (``monitor.py``): the
assistant plays on the sound server's default output, the server records that output's
monitor, and the mic is a microphone heard through the same server. Off otherwise, with
the reason, which the mic logs once at its start and ``doctor`` shows:

- the reference is the speaker's (``echo_reference = "bus"``): its delay drifts by seconds
  through PulseAudio's ALSA plugin, a choice to make by hand;
- the assistant plays elsewhere, or the mic is a device opened past the sound server:
  the monitor is not the output heard, or not in step with the mic;
- the mic records the default output's own monitor (a loopback, as on the tests'
  virtual card): the canceller would take out everything the mic hears;
- the monitor does not open (no PulseAudio or PipeWire, no ALSA ``pulse`` plugin).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from services.mic.monitor import MONITOR, SERVER_OUTPUTS, probe
from settings.schema import AudioConfig, ListenConfig

log = logging.getLogger(__name__)

SERVER_INPUTS = ("", "pulse", "default")
"""``card`` values that record through the sound server's default input."""
ASK_TIMEOUT = 5.0
"""Seconds ``pactl info`` may take (a sound server that hangs must not hold the mic)."""


@dataclass(frozen=True)
class EchoChoice:
    on: bool
    reason: str
    explicit: bool = False
    """``[audio] echo_cancel`` was set to true or false, not left to ``auto``."""
    problem: bool = False
    """Off because something the canceller needs is missing (``doctor`` warns), not by
    design."""


def server_defaults(env: dict[str, str] | None = None) -> tuple[str, str] | None:
    """The sound server's default output and input (sink, source), from ``pactl info``
    (PulseAudio's and PipeWire's alike); None when there is no ``pactl`` or it fails."""
    pactl = shutil.which("pactl")
    if pactl is None:
        return None
    environment = {**(env if env is not None else os.environ), "LC_ALL": "C"}  # untranslated
    try:
        done = subprocess.run([pactl, "info"], env=environment, capture_output=True, text=True,
                              timeout=ASK_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("pactl info failed: %s", exc)
        return None
    fields = dict(line.partition(": ")[::2] for line in done.stdout.splitlines())
    sink, source = fields.get("Default Sink", ""), fields.get("Default Source", "")
    return (sink, source) if done.returncode == 0 and sink and source else None


def choose_echo(
    audio: AudioConfig, card: str, replaying: bool = False,
    opens: Callable[[str], None] = probe,
    defaults: Callable[[], tuple[str, str] | None] = server_defaults,
) -> EchoChoice:
    """Whether to cancel the echo, and why. ``opens`` raises when the monitor does not
    open; ``defaults`` gives the server's default output and input."""
    if audio.echo_cancel is not True and audio.echo_cancel is not False:
        return _automatic(audio, card, replaying, opens, defaults)
    value = "true" if audio.echo_cancel else "false"
    return EchoChoice(audio.echo_cancel, f"[audio] echo_cancel = {value}", explicit=True)


def _automatic(
    audio: AudioConfig, card: str, replaying: bool, opens: Callable[[str], None],
    defaults: Callable[[], tuple[str, str] | None],
) -> EchoChoice:
    if replaying:
        return EchoChoice(False, "replayed files: no card, no monitor")
    if audio.echo_reference != "monitor":
        return EchoChoice(False, 'auto uses the monitor only: with echo_reference = "bus" '
                          "set echo_cancel = true")
    if audio.output not in SERVER_OUTPUTS:
        return EchoChoice(False, f"the assistant plays on {audio.output!r}, not the sound "
                          "server's default output, whose monitor is the reference")
    if card not in SERVER_INPUTS:
        return EchoChoice(False, f"the mic is {card!r}, not the sound server's default input: "
                          "the monitor would not be in step with it")
    server = defaults()
    if server is not None and server[1] == f"{server[0]}.monitor":
        return EchoChoice(False, f"the mic records the default output's own monitor "
                          f"({server[1]}): a loopback, not a microphone")
    try:
        opens(MONITOR)
    except Exception as exc:  # PortAudio's and the card's errors alike: the reason
        return EchoChoice(False, f"the default output's monitor does not open: "
                          f"{' '.join(str(exc).split())}", problem=True)
    return EchoChoice(True, "auto: the default output's monitor records")


def speech_barges_in(choice: EchoChoice, listen: ListenConfig) -> bool:
    """Whether plain speech interrupts an answer (``[listen] barge_in``): only through the
    canceller; ``auto``, when the canceller was asked for by hand."""
    wanted = listen.barge_in == "speech" or (listen.barge_in == "auto" and choice.explicit)
    if listen.barge_in == "speech" and not choice.on:
        log.warning("[listen] barge_in = \"speech\" needs the echo canceller, which is off "
                    "(%s): only the wake word interrupts an answer", choice.reason)
    return choice.on and wanted


def report(choice: EchoChoice) -> None:
    """The mic's one line about it at its start."""
    if choice.problem:
        log.warning("echo cancellation off: %s; the assistant's own voice can wake the word "
                    "(see desktop-assistant doctor)", choice.reason)
    else:
        log.info("echo cancellation %s: %s", "on" if choice.on else "off", choice.reason)
