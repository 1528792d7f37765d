"""A heartbeat for processes without an asyncio loop (the broker itself)."""

from __future__ import annotations

import os
import threading

import zmq

from bus import __version__
from bus.endpoints import Endpoints
from bus.messages import Heartbeat
from bus.registry import encode


class HeartbeatThread(threading.Thread):
    def __init__(self, name: str, endpoints: Endpoints, interval: float) -> None:
        super().__init__(name=f"{name}-heartbeat", daemon=True)
        self._service = name
        self._endpoints = endpoints
        self._interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        ctx = zmq.Context()
        pub = ctx.socket(zmq.PUB)
        pub.setsockopt(zmq.LINGER, 0)
        if self._endpoints.curve is not None and self._endpoints.secured(self._endpoints.pub):
            self._endpoints.curve.apply_client(pub)
        pub.connect(self._endpoints.pub)
        state = "ready"
        while True:
            beat = Heartbeat(
                service=self._service,
                pid=os.getpid(),
                state=state,
                version=__version__,
                interval=self._interval,
            )
            pub.send_multipart(encode(beat, self._service))
            if state == "stopping" or self._stop_event.wait(self._interval):
                if state == "stopping":
                    break
                state = "stopping"
        pub.close()
        ctx.term()

    def stop(self) -> None:
        self._stop_event.set()
        self.join(2.0)
