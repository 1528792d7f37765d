"""A private D-Bus session bus (the real ``dbus-daemon``) for the tests, and programs
that own names on it."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.processes import ROOT, python_env


@contextmanager
def session_bus() -> Iterator[str]:
    """A fresh session bus; yields its address (``DBUS_SESSION_BUS_ADDRESS``)."""
    with tempfile.TemporaryDirectory(prefix="da-dbus-") as folder:
        socket = Path(folder) / "bus"
        daemon = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address",
             f"--address=unix:path={socket}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            assert daemon.stdout is not None
            address = daemon.stdout.readline().strip()
            assert address.startswith("unix:"), address
            yield address
        finally:
            daemon.kill()
            daemon.wait(10)


@contextmanager
def on_bus(address: str, module: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """``python -m module args`` on the bus at ``address``, once it printed ``ready``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args], cwd=ROOT,
        env=python_env({"DBUS_SESSION_BUS_ADDRESS": address}),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line == "ready", f"{module} did not start: {line}"
        yield proc
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()
