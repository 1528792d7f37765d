"""The Wyoming server's resident size under the attacks of issue 30: what one hostile
client on the network costs it.

    python -m bench.wyoming_hostile [--json]

A real broker and ``python -m services.wyoming`` (nothing else: no attack reaches the
STT or the speaker); raw sockets on 127.0.0.1. Each attack reads the server's VmRSS
every 10 ms while it runs and reports the size before it and the largest seen:

- ``payload``: one ``audio-chunk`` header declaring a payload of 2^40 bytes, then 512 MiB;
- ``rate-1``: an ``audio-chunk`` of 16 KiB claiming a rate of 1 Hz (how long until the
  answer: the event loop is blocked meanwhile);
- ``connections``: 150 connections, each sending 119 s of 16 kHz audio and no
  ``audio-stop`` (as the issue found it), then 150 each sending 59 s (just under the
  limit a connection may hold);
- ``idle``: 300 connections that send nothing: how many the server keeps open.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import threading
import time
from contextlib import ExitStack
from typing import Any

from wyoming.audio import AudioChunk, AudioStart
from wyoming.event import Event, write_event

from bus.client import Bus
from bus.messages import Heartbeat
from tests.helpers.busrun import with_buses
from tests.helpers.ports import free_port
from tests.helpers.processes import Process
from tests.helpers.service_stack import Stack

MB = 1024 * 1024


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class Peak:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.before = self.peak = rss(pid)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(0.01):
            self.peak = max(self.peak, rss(self.pid))

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def figures(self) -> dict[str, float]:
        return {"before_mb": round(self.before / MB), "peak_mb": round(self.peak / MB)}


def wire(*events: Event) -> bytes:
    out = io.BytesIO()
    for event in events:
        write_event(event, out)
    return out.getvalue()


START = AudioStart(rate=16000, width=2, channels=1).event()


def payload_attack(port: int, pid: int) -> dict[str, Any]:
    header = {"type": "audio-chunk", "data": {"rate": 16000, "width": 2, "channels": 1},
              "payload_length": 2**40}
    sent, block = 0, bytes(MB)
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock, Peak(pid) as peak:
        sock.sendall(json.dumps(header).encode() + b"\n")
        try:
            while sent < 512 * MB:
                sock.sendall(block)
                sent += MB
        except OSError:
            pass
    return {**peak.figures(), "accepted_mb": round(sent / MB)}


def rate_attack(port: int, pid: int) -> dict[str, Any]:
    chunk = Event(type="audio-chunk", data={"rate": 1, "width": 2, "channels": 1},
                  payload=bytes(16 * 1024))
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock, Peak(pid) as peak:
        sock.sendall(wire(START))
        started = time.monotonic()
        sock.sendall(wire(chunk))
        answer = sock.recv(4096)
        took = time.monotonic() - started
    return {**peak.figures(), "answered_s": round(took, 3),
            "answer": answer.split(b"\n")[0].decode(errors="replace")}


def connections_attack(port: int, pid: int, seconds: int) -> dict[str, Any]:
    second = bytes(32000)
    held = wire(START, *[AudioChunk(rate=16000, width=2, channels=1, audio=second).event()
                         for _ in range(seconds)])
    with ExitStack() as sockets, Peak(pid) as peak:
        for _ in range(150):
            sock = sockets.enter_context(socket.create_connection(("127.0.0.1", port), 60))
            try:
                sock.sendall(held)
            except OSError:
                pass
        time.sleep(2.0)
    return peak.figures()


def idle_attack(port: int, pid: int) -> dict[str, Any]:
    with ExitStack() as sockets, Peak(pid) as peak:
        idle = [sockets.enter_context(socket.create_connection(("127.0.0.1", port), 60))
                for _ in range(300)]
        time.sleep(2.0)
        still_open = 0
        for sock in idle:
            sock.setblocking(False)
            try:
                still_open += sock.recv(65536) != b""
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
    return {**peak.figures(), "open_after_2_s": still_open}


def measure() -> dict[str, Any]:
    port = free_port()
    stack = Stack(f"[wyoming]\nenabled = true\nport = {port}\n")
    try:
        server: Process = stack.start("services.wyoming")

        async def ready(bus: Bus) -> None:
            await bus.wait_for(Heartbeat, lambda h: h.service == "wyoming"
                               and h.state == "ready", timeout=120)

        with_buses(stack.endpoints, ["bench"], ready)
        pid = server.pid
        figures = {"payload": payload_attack(port, pid)}
        time.sleep(1.0)
        figures["rate-1"] = rate_attack(port, pid)
        time.sleep(1.0)
        figures["connections-119s"] = connections_attack(port, pid, 119)
        time.sleep(1.0)
        figures["connections-59s"] = connections_attack(port, pid, 59)
        time.sleep(1.0)
        figures["idle"] = idle_attack(port, pid)
        figures["alive"] = server.popen.poll() is None
        return figures
    finally:
        stack.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.wyoming_hostile",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = {"attacks": measure(), "cpus": os.cpu_count(),
              "load_average": [round(x, 2) for x in os.getloadavg()],
              "date": time.strftime("%Y-%m-%d %H:%M")}
    if args.json:
        print(json.dumps(report))
        return
    for name, row in report["attacks"].items():
        print(f"{name}: {row}")
    print(f"({report['cpus']} CPUs, load average {report['load_average']}, {report['date']})")


if __name__ == "__main__":
    main()
