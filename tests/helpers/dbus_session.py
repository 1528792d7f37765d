"""A private D-Bus session bus (the real ``dbus-daemon``) for the tests, and programs
that own names on it."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


Answer = Callable[[Any, str, str], Any]
"""(method call, interface, member) -> the reply message, or None: no such method here."""


def serve_names(name: str, answer: Answer) -> None:
    """Own ``name`` on the session bus, print ``ready``, and answer each method call with
    ``answer`` (an unknown method gets D-Bus's ``UnknownMethod`` error) until killed."""
    from jeepney import HeaderFields, MessageType, new_error
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName(name))
    print("ready", flush=True)
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        interface = msg.header.fields.get(HeaderFields.interface)
        member = msg.header.fields.get(HeaderFields.member)
        reply = answer(msg, interface, member)
        if reply is None:
            reply = new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s",
                              (f"{interface}.{member}",))
        conn.send(reply)
