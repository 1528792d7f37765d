"""The broker: an XSUB/XPUB proxy, the only fixed addresses on the bus."""

from __future__ import annotations

import logging
import threading
import time

import zmq

from bus.endpoints import (
    EndpointError,
    Endpoints,
    ensure_private_dir,
    ipc_is_live,
    ipc_path,
    runtime_dir,
)
from bus.memory import MemoryGuard, release_freed_memory
from bus.registry import MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

HWM = 100_000
"""Messages queued per peer before the broker drops: audio bursts must fit. ZeroMQ counts
messages, not bytes, so the memory guard bounds the bytes."""

SUBSCRIBE_ALL = b"\x01"
"""An XSUB subscription to every topic (the flag byte, no prefix)."""
RESUBSCRIBE_WINDOW = 0.5
"""Seconds the broker relays only subscriptions after dropping its subscribers: long enough
for clients to reconnect (they retry after 100 ms) and resubscribe, so that what is
published meanwhile waits in the broker and reaches them."""


class BrokerAlreadyRunning(EndpointError):
    pass


class Broker:
    """Binds both sides and proxies between them on a thread until :meth:`stop`."""

    def __init__(
        self,
        endpoints: Endpoints,
        ctx: zmq.Context | None = None,
        memory_budget: int | None = None,
    ) -> None:
        self.endpoints = endpoints
        self._ctx = ctx or zmq.Context.instance()
        self._thread: threading.Thread | None = None
        self._control_addr = f"inproc://broker-control-{id(self)}"
        self._control_lock = threading.Lock()
        self._shed = threading.Event()
        self._guard = None if memory_budget is None else MemoryGuard(memory_budget, self._drop)
        self.drops = 0
        """How often the guard dropped the subscribers' queues."""

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
        # Every publisher sends every topic to the broker, which filters for its
        # subscribers. With publisher-side filtering (XSUB relaying each subscription to each
        # publisher), a subscription that had reached the broker (what wait_connected proves)
        # could still be on its way to the process that answers: about one first
        # ToolCatalogRequest in ten, sent at the tools service's "ready", lost its reply.
        xsub.send(SUBSCRIBE_ALL)
        control = self._ctx.socket(zmq.PAIR)
        control.bind(self._control_addr)
        self._control = self._ctx.socket(zmq.PAIR)
        self._control.connect(self._control_addr)
        self._thread = threading.Thread(
            target=self._proxy, args=(xsub, xpub, control), name="broker", daemon=True
        )
        self._thread.start()
        if self._guard is not None:
            self._guard.start()
        log.info("broker: publishers → %s, subscribers → %s", *self._addresses())

    def _addresses(self) -> tuple[str, str]:
        return self.endpoints.pub, self.endpoints.sub

    def _drop(self, resident: int, budget: int) -> None:
        """Called by the guard: the proxy stops, drops every subscriber, and goes on."""
        log.error(
            "broker: %d MB resident, over its budget of %d MB ([bus] broker_memory_mb): a "
            "subscriber is not reading; dropping every subscriber's queue (they reconnect)",
            resident // 2**20, budget // 2**20,
        )
        self._shed.set()
        with self._control_lock:
            if self._thread is not None:
                self._control.send(b"TERMINATE")

    def _proxy(self, xsub: zmq.Socket, xpub: zmq.Socket, control: zmq.Socket) -> None:
        try:
            while True:
                zmq.proxy_steerable(xsub, xpub, None, control)
                if not self._shed.is_set():
                    break
                self._shed.clear()
                self._rebind(xsub, xpub, control)
        except zmq.ContextTerminated:
            pass
        finally:
            for sock in (xsub, xpub, control):
                sock.close(linger=0)
            for endpoint in (self.endpoints.pub, self.endpoints.sub):
                path = ipc_path(endpoint)
                if path is not None:
                    path.unlink(missing_ok=True)

    def _rebind(self, xsub: zmq.Socket, xpub: zmq.Socket, control: zmq.Socket) -> None:
        """Unbinding closes every subscriber's connection and frees what was queued for it.

        XSUB stays bound: publishers see nothing, and what they send meanwhile waits in
        its queue. The subscribers' new subscriptions are relayed before the proxy
        resumes, so what waited reaches the ones that read; the unsubscriptions the drop
        caused are relayed after them (XSUB counts subscriptions), else the publishers
        would stop sending a topic until its subscribers were back.
        """
        endpoint = xpub.get_string(zmq.LAST_ENDPOINT)
        xpub.unbind(endpoint)
        xpub.bind(endpoint)
        self.drops += 1
        release_freed_memory()
        unsubscriptions: list[list[bytes]] = []
        deadline = time.monotonic() + RESUBSCRIBE_WINDOW
        while (left := deadline - time.monotonic()) > 0 and not control.poll(0):
            if xpub.poll(round(min(left, 0.05) * 1000)):
                frames = xpub.recv_multipart()
                if frames[0][:1] == b"\x00":
                    unsubscriptions.append(frames)
                else:
                    xsub.send_multipart(frames)
        for frames in unsubscriptions:
            xsub.send_multipart(frames)

    def stop(self, timeout: float = 2.0) -> None:
        if self._thread is None:
            return
        if self._guard is not None:
            self._guard.stop()
        with self._control_lock:
            self._control.send(b"TERMINATE")
            self._thread.join(timeout)
            self._control.close(linger=0)
            self._thread = None
        if self._auth is not None:
            self._auth.stop()
