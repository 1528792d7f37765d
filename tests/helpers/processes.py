"""Start the project's real processes for a test and stop them by PID."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


class Process:
    """A child ``python -m MODULE ...`` whose output goes to a log file.

    Its state folder (history, volume) is ``log_dir/state`` unless ``env`` names one:
    never the user's own, and nothing carried over from another test.
    """

    def __init__(self, module: str, *args: str, log_dir: Path, env: dict[str, str] | None = None):
        self.module = module
        self.log_path = log_dir / f"{module.replace('.', '_')}-{os.urandom(3).hex()}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        self.popen = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            env=python_env({"XDG_STATE_HOME": str(log_dir / "state"), **(env or {})}),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(5)

    def stop(self, timeout: float = 5.0) -> int:
        """SIGTERM, then SIGKILL after ``timeout``; returns the exit code."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(5)
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)  # stray children of the group
        except ProcessLookupError:
            pass
        self._log.close()
        return self.popen.returncode
