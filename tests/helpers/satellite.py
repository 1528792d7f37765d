"""The real ``wyoming-satellite`` program as a peer, with files for its mic and speaker.

It pins an older ``wyoming`` (1.4.1) than ours, so it lives in a virtual
environment of its own, made once from PyPI under ``.cache/`` (and reused by
every later run). Its mic is a FIFO the test writes speech into; its speaker a
file each answer is added to (``tests/helpers/satellite_peer.py``).
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.helpers.processes import ROOT

PACKAGE = "wyoming-satellite==1.0.0"
VENV = ROOT / ".cache" / "wyoming-satellite-1.0.0"
PEER = ROOT / "tests" / "helpers" / "satellite_peer.py"
RATE = 16000


def satellite_python() -> Path:
    """The Python of the satellite's own environment, made on first use."""
    python = VENV / "bin" / "python"
    done = VENV / ".installed"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / "wyoming-satellite.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test processes must not build it at once
        if not done.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)],
                           check=True, timeout=300)
            subprocess.run([str(python), "-m", "pip", "install", "-q", PACKAGE],
                           check=True, timeout=600)
            done.touch()
    return python


class SatellitePeer:
    """One ``wyoming-satellite`` on ``port``: :meth:`say` into its mic, :meth:`answers`
    from its speaker, :meth:`kill` and :meth:`start` again. With ``wake_uri``, a wake
    word service of its own listens for ``okay_nabu``: :meth:`detections` are its words."""

    def __init__(self, name: str, port: int, folder: Path, wake_uri: str = "") -> None:
        self.name = name
        self.port = port
        self.wake_uri = wake_uri
        self.detected = folder / f"{name}.detections"
        self.fifo = folder / f"{name}.mic"
        self.speaker = folder / f"{name}.pcm"
        self.stderr = folder / f"{name}.log"
        os.mkfifo(self.fifo)
        self.speaker.touch()
        # Held open read-write: writes never block on a reader, and speech written while
        # the satellite is down waits in the pipe.
        self._mic = os.open(self.fifo, os.O_RDWR)
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> SatellitePeer:
        peer = [sys.executable, str(PEER)]
        command = [
            str(satellite_python()), "-m", "wyoming_satellite",
            "--uri", f"tcp://127.0.0.1:{self.port}", "--name", self.name, "--no-zeroconf",
            "--mic-command", " ".join([*peer, "mic", str(self.fifo)]),
            "--snd-command", " ".join([*peer, "snd", str(self.speaker)]),
            "--snd-command-rate", str(RATE),
        ]
        if self.wake_uri:
            command += ["--wake-uri", self.wake_uri, "--wake-word-name", "okay_nabu",
                        "--detection-command", " ".join([*peer, "note", str(self.detected)]),
                        "--debug"]  # it says when it has reached its wake service
        with open(self.stderr, "ab") as log:
            self._proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                          stderr=log, start_new_session=True)
        return self

    def kill(self) -> None:
        """Gone at once, its mic and speaker commands with it (as a pulled plug)."""
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait(10)
        self._proc = None

    def close(self) -> None:
        self.kill()
        os.close(self._mic)

    def say(self, pcm: bytes, silence: float = 1.5) -> None:
        """Speech (16 kHz mono PCM16) into the mic, then ``silence`` seconds of quiet."""
        os.write(self._mic, pcm + bytes(2 * round(silence * RATE)))

    def wake_connected(self) -> bool:
        """Whether it has reached its wake word service: until then what its mic hears
        is lost (it tries again every few seconds)."""
        return "Connected to wake service" in self.stderr.read_text()

    def detections(self) -> list[str]:
        """The name of each wake word its wake service has detected so far."""
        return self.detected.read_text().split() if self.detected.exists() else []

    def answers(self) -> list[tuple[np.ndarray, float]]:
        """Each answer played so far: its samples at 16 kHz, and when its sound began."""
        log = Path(f"{self.speaker}.log")
        lines = log.read_text().splitlines() if log.exists() else []
        data = self.speaker.read_bytes()
        out = []
        for line in lines:
            start, end, first = line.split()
            pcm = data[int(start):int(end)]
            samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], "<i2").astype(np.float32)
            out.append((samples / 32768, float(first)))
        return out
