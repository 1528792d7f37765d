"""A real virtual sound card for tests: PulseAudio with a null sink, started and stopped by PID.

What is played into the sink ``vsink`` can be recorded from ``vsink.monitor``
(the default source). A silent stream plays for the daemon's whole life: an
idle null sink delivers the first recorded audio up to 2 s late otherwise.
Clients find the daemon through ``PULSE_SERVER`` (see :meth:`env`).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

SINK = "vsink"
DEFAULT_PA = """\
load-module module-native-protocol-unix socket={socket} auth-anonymous=1
load-module module-null-sink sink_name={sink} rate=48000 channels=2
set-default-sink {sink}
set-default-source {sink}.monitor
"""


class SoundCard:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="da-pa-"))
        self.socket = self.root / "native"
        self._procs: list[subprocess.Popen[bytes]] = []

    @property
    def server(self) -> str:
        return f"unix:{self.socket}"

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """Environment for a client process (sounddevice/PortAudio, pacat)."""
        env = dict(os.environ if base is None else base)
        env["PULSE_SERVER"] = self.server
        env["PULSE_RUNTIME_PATH"] = str(self.root / "runtime")
        return env

    def start(self, timeout: float = 15.0) -> SoundCard:
        config = self.root / "default.pa"
        config.write_text(DEFAULT_PA.format(socket=self.socket, sink=SINK))
        home = self.root / "home"
        runtime = self.root / "runtime"
        for folder in (home, runtime):
            folder.mkdir(mode=0o700, exist_ok=True)
        env = dict(os.environ, HOME=str(home), XDG_RUNTIME_DIR=str(runtime))
        env.pop("PULSE_SERVER", None)
        daemon = subprocess.Popen(
            [
                "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1",
                "--disallow-exit=yes", "--use-pid-file=no", "--disable-shm=yes",
                "--system=no", "--log-target=stderr", "-F", str(config),
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.root / "pulseaudio.log", "wb"),  # noqa: SIM115
            start_new_session=True,
        )
        self._procs.append(daemon)
        deadline = time.monotonic() + timeout
        while not self._answers():
            if daemon.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "pulseaudio.log").read_text(errors="replace")
                self.stop()
                raise RuntimeError(f"pulseaudio did not start:\n{log[-2000:]}")
            time.sleep(0.05)  # polling for the daemon's socket, with a deadline
        keep_alive = subprocess.Popen(
            ["pacat", "--playback", "--raw", "--format=s16le", "--rate=48000", "--channels=2",
             f"--device={SINK}", "/dev/zero"],
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._procs.append(keep_alive)
        return self

    @property
    def pids(self) -> list[int]:
        """The sound server's processes (the daemon and its keep-alive stream)."""
        return [proc.pid for proc in self._procs if proc.poll() is None]

    def _answers(self) -> bool:
        if not self.socket.exists():
            return False
        probe = subprocess.run(
            ["pactl", "info"], env=self.env(), capture_output=True, timeout=5, check=False
        )
        return probe.returncode == 0

    def unplug(self) -> None:
        """Kill the daemon as a crash or an unplugged card would; :meth:`start` brings the
        same card back (same ``PULSE_SERVER``)."""
        for proc in reversed(self._procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self._procs.clear()
        self.socket.unlink(missing_ok=True)

    def play(self, wav: Path, timeout: float = 30.0) -> None:
        """Play a WAV file into the sink and return when it has been played."""
        subprocess.run(
            ["paplay", f"--device={SINK}", str(wav)],
            env=self.env(), check=True, timeout=timeout,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )

    def stop(self) -> None:
        for proc in reversed(self._procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(5)
        self._procs.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> SoundCard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
