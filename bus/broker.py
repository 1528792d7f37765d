"""The broker: an XSUB/XPUB proxy, the only fixed addresses on the bus."""

from __future__ import annotations

import logging
import threading

import zmq

from bus.endpoints import (
    EndpointError,
    Endpoints,
    ensure_private_dir,
    ipc_is_live,
    ipc_path,
    runtime_dir,
)
from bus.registry import MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

HWM = 100_000
"""Messages queued per peer before the broker drops: audio bursts must fit."""


class BrokerAlreadyRunning(EndpointError):
    pass


class Broker:
    """Binds both sides and proxies between them on a thread until :meth:`stop`."""

    def __init__(self, endpoints: Endpoints, ctx: zmq.Context | None = None) -> None:
        self.endpoints = endpoints
        self._ctx = ctx or zmq.Context.instance()
        self._thread: threading.Thread | None = None
        self._control_addr = f"inproc://broker-control-{id(self)}"

    def start(self) -> None:
        for endpoint in (self.endpoints.pub, self.endpoints.sub):
            path = ipc_path(endpoint)
            if path is None:
                continue
            ensure_private_dir(path.parent, own=path.parent == runtime_dir())
            if ipc_is_live(path):
                raise BrokerAlreadyRunning(
                    f"a broker is already running on {endpoint}; not taking over its socket"
                )
        xsub = self._ctx.socket(zmq.XSUB)
        xpub = self._ctx.socket(zmq.XPUB)
        # Options must be set before bind: set after, they are silently ignored.
        for sock in (xsub, xpub):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.SNDHWM, HWM)
            sock.setsockopt(zmq.RCVHWM, HWM)
        # A publisher sending more than this is disconnected, not buffered.
        xsub.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES + 4096)
        self._auth = None
        curve = self.endpoints.curve
        if curve is not None:
            self._auth = curve.start_authenticator(self._ctx)
            for sock, endpoint in ((xsub, self.endpoints.pub), (xpub, self.endpoints.sub)):
                if self.endpoints.secured(endpoint):
                    curve.apply_server(sock)
        try:
            xsub.bind(self.endpoints.pub)
            xpub.bind(self.endpoints.sub)
        except zmq.ZMQError as exc:
            xsub.close()
            xpub.close()
            raise EndpointError(f"cannot bind {self.endpoints}: {exc}") from None
        control = self._ctx.socket(zmq.PAIR)
        control.bind(self._control_addr)
        self._control = self._ctx.socket(zmq.PAIR)
        self._control.connect(self._control_addr)
        self._thread = threading.Thread(
            target=self._proxy, args=(xsub, xpub, control), name="broker", daemon=True
        )
        self._thread.start()
        log.info("broker: publishers → %s, subscribers → %s", *self._addresses())

    def _addresses(self) -> tuple[str, str]:
        return self.endpoints.pub, self.endpoints.sub

    def _proxy(self, xsub: zmq.Socket, xpub: zmq.Socket, control: zmq.Socket) -> None:
        try:
            zmq.proxy_steerable(xsub, xpub, None, control)
        except zmq.ContextTerminated:
            pass
        finally:
            for sock in (xsub, xpub, control):
                sock.close(linger=0)
            for endpoint in (self.endpoints.pub, self.endpoints.sub):
                path = ipc_path(endpoint)
                if path is not None:
                    path.unlink(missing_ok=True)

    def stop(self, timeout: float = 2.0) -> None:
        if self._thread is None:
            return
        self._control.send(b"TERMINATE")
        self._thread.join(timeout)
        self._control.close(linger=0)
        self._thread = None
        if self._auth is not None:
            self._auth.stop()
