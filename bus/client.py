"""The asyncio bus client every process uses: publish, subscribe, receive, request."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import zmq

import bus.messages  # noqa: F401  (fills the registry)
from bus import __version__
from bus.endpoints import Endpoints
from bus.message import Message, new_id
from bus.messages import Heartbeat, Probe
from bus.ratelimit import RateLimitedLog
from bus.registry import MAX_MESSAGE_BYTES, DecodeError, decode, encode

log = logging.getLogger(__name__)

M = TypeVar("M", bound=Message)

# Plain ints, not pyzmq's enums: converting an enum costs more than the call it is for.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE | zmq.NOBLOCK)

QUEUE_LIMIT = 10_000
DRAIN_BATCH = 500
"""Messages handled per wake-up before other tasks get a turn."""

Waiter = tuple[Callable[[Message], bool], "asyncio.Future[Message]"]


class RequestTimeout(TimeoutError):
    """Nobody answered a request before its deadline."""


class Bus:
    """One PUB and one SUB socket on the broker, driven by the running asyncio loop.

    Publishing is a plain non-blocking send (PUB never waits: it drops past
    its high-water mark). Receiving needs no task: the loop watches the SUB
    socket's file descriptor and drains it when it becomes readable. Each
    message goes first to pending waiters (:meth:`request`,
    :meth:`wait_for`), else to the inbox read with :meth:`recv` or
    ``async for``. Undecodable frames are logged (rate limited) and dropped;
    ``on_invalid`` sees them too (the tap shows them).
    """

    def __init__(
        self,
        endpoints: Endpoints,
        name: str,
        *,
        site: str | None = None,
        on_invalid: Callable[[list[bytes], DecodeError], None] | None = None,
    ) -> None:
        self.name = name
        self.site = site
        self.endpoints = endpoints
        self._ctx = zmq.Context()
        self._pub = self._ctx.socket(zmq.PUB)
        self._sub = self._ctx.socket(zmq.SUB)
        for sock in (self._pub, self._sub):
            sock.setsockopt(zmq.LINGER, 200)
            sock.setsockopt(zmq.SNDHWM, 10_000)
            sock.setsockopt(zmq.RCVHWM, 10_000)
            sock.setsockopt(zmq.RECONNECT_IVL, 100)
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        self._sub.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES + 4096)
        if endpoints.curve is not None:
            if endpoints.secured(endpoints.pub):
                endpoints.curve.apply_client(self._pub)
            if endpoints.secured(endpoints.sub):
                endpoints.curve.apply_client(self._sub)
        self._pub.connect(endpoints.pub)
        self._sub.connect(endpoints.sub)
        self._fd: int = int(self._sub.get(zmq.FD))  # type: ignore[arg-type]
        self._prefixes: set[str] = set()
        self._inbox_prefixes: tuple[str, ...] = ()
        self._inbox: collections.deque[Message] = collections.deque()
        self._inbox_waiter: asyncio.Future[None] | None = None
        self._waiters: list[Waiter] = []
        self._on_invalid = on_invalid
        self._bad = RateLimitedLog(log)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self.state = "starting"
        self.detail = ""

    # -- lifecycle ---------------------------------------------------------------

    async def __aenter__(self) -> Bus:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._heartbeat
            self._heartbeat = None
        if self._loop is not None:
            self._loop.remove_reader(self._fd)
            self._loop = None
        self._pub.close(linger=200)
        self._sub.close(linger=0)
        self._ctx.term()

    # -- sending -----------------------------------------------------------------

    def publish(self, msg: Message, suffix: str = "") -> None:
        """Send ``msg`` now; never blocks (PUB drops past its high-water mark)."""
        if msg.site is None and self.site is not None:
            msg = dataclasses.replace(msg, site=self.site)
        topic, body = encode(msg, self.name, suffix)
        try:
            # Two sends, not send_multipart: a third less of the client's cost per message.
            self._pub.send(topic, _MORE_NOBLOCK)
            self._pub.send(body, _NOBLOCK, copy=len(body) < 65536)
        except zmq.Again:
            self._bad.warn("hwm", "%s: send queue full, dropped %s", self.name, msg.TOPIC)

    def send_raw(self, frames: list[bytes]) -> None:
        """Send arbitrary frames (tests and fuzzing only)."""
        self._pub.send_multipart(frames)

    # -- receiving ---------------------------------------------------------------

    def subscribe(self, *prefixes: str) -> None:
        """Receive every topic that starts with one of ``prefixes`` ("" = everything)."""
        for prefix in prefixes:
            if prefix not in self._inbox_prefixes:
                self._inbox_prefixes += (prefix,)  # a tuple: str.startswith takes it whole
            self._listen(prefix)

    async def recv(self, timeout: float | None = None) -> Message | None:
        """The next message for this process, or None after ``timeout`` seconds."""
        self._attach()
        if not self._inbox:
            loop = asyncio.get_running_loop()
            deadline = None if timeout is None else loop.time() + timeout
            while not self._inbox:
                if deadline is not None and loop.time() >= deadline:
                    return None
                waiter = self._inbox_waiter = loop.create_future()
                # A bare timer, not asyncio.timeout(): this is every message's path after a
                # wait, and the timer was a third of the cost.
                timer = None if deadline is None else loop.call_at(deadline, _wake, waiter)
                try:
                    await waiter
                finally:
                    self._inbox_waiter = None
                    if timer is not None:
                        timer.cancel()
        return self._inbox.popleft()

    async def __aiter__(self) -> AsyncIterator[Message]:
        while True:
            msg = await self.recv()
            if msg is not None:
                yield msg

    async def wait_for(
        self, kind: type[M], match: Callable[[M], bool] = lambda m: True, timeout: float = 5.0
    ) -> M:
        """Wait for the first message of ``kind`` that ``match``es (not taken from the inbox)."""
        waiter = self._add_waiter(kind, match)
        return await self._await(waiter, timeout, f"no {kind.TOPIC} within {timeout:g} s")

    async def request(self, msg: Message, reply: type[M], timeout: float) -> M:
        """Publish ``msg`` and wait for the ``reply`` that answers it (its ``reply_to`` is
        ``msg.id``), or raise RequestTimeout."""
        if reply.TOPIC not in self._prefixes:
            # A fast answer could otherwise beat the new subscription to the broker.
            self._listen(reply.TOPIC)
            await self.wait_connected(timeout=min(timeout, 5.0))
        request_id = msg.id
        waiter = self._add_waiter(reply, lambda m: m.reply_to == request_id)
        self.publish(msg)
        error = f"nobody answered {msg.TOPIC} with {reply.TOPIC} within {timeout:g} s"
        return await self._await(waiter, timeout, error)

    async def wait_connected(self, timeout: float = 10.0, interval: float = 0.05) -> None:
        """Return once a probe of ours has made the round trip through the broker.

        This replaces sleeping past the slow-joiner problem: the probe travels
        on a topic subscribed just now, after every earlier subscription, so
        when it comes back those have reached the broker too.
        """
        await self.wait_path(self, timeout, interval)

    async def wait_path(self, sender: Bus, timeout: float = 10.0, interval: float = 0.05) -> None:
        """Return once ``sender`` can reach us with every topic we subscribed so far."""
        probe_id = new_id()
        topic = f"{Probe.TOPIC}.{probe_id}".encode()
        self._sub.setsockopt(zmq.SUBSCRIBE, topic)
        waiter = self._add_waiter(Probe, lambda p: p.id == probe_id, subscribe=False)
        self._kick()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while not waiter[1].done():
                if loop.time() > deadline:
                    raise RequestTimeout(f"no probe came back through the bus in {timeout:g} s")
                sender.publish(Probe(id=probe_id), suffix=probe_id)
                await asyncio.wait([waiter[1]], timeout=interval)
        finally:
            self._remove_waiter(waiter)
            self._sub.setsockopt(zmq.UNSUBSCRIBE, topic)
            self._kick()

    # -- heartbeat ---------------------------------------------------------------

    def start_heartbeat(self, interval: float = 1.0) -> None:
        """Publish a :class:`Heartbeat` every ``interval`` seconds with :attr:`state`."""
        if self._heartbeat is None:
            self._heartbeat = asyncio.ensure_future(self._beat(interval))

    def set_state(self, state: str, detail: str = "") -> None:
        self.state, self.detail = state, detail

    def beat(self, interval: float = 1.0) -> None:
        self.publish(
            Heartbeat(
                service=self.name,
                pid=os.getpid(),
                state=self.state,
                version=__version__,
                interval=interval,
                detail=self.detail,
            )
        )

    async def _beat(self, interval: float) -> None:
        while True:
            self.beat(interval)
            await asyncio.sleep(interval)

    # -- internals ---------------------------------------------------------------

    def _listen(self, prefix: str) -> None:
        """Subscribe the socket (for the inbox or for a waiter)."""
        self._attach()
        if prefix not in self._prefixes:
            self._prefixes.add(prefix)
            self._sub.setsockopt(zmq.SUBSCRIBE, prefix.encode())
            self._kick()

    def _attach(self) -> None:
        """Watch the SUB socket from the running loop (once)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(self._fd, self._on_readable)
            self._kick()

    def _kick(self) -> None:
        """Drain soon: the FD is edge-triggered, and socket calls can swallow the edge."""
        if self._loop is not None:
            self._loop.call_soon(self._drain)

    def _on_readable(self) -> None:
        """A wake-up: hand the first message over now, drain the rest after its reader ran.

        Asking the socket for more (the edge-triggered FD must be drained) costs
        a failed receive; done first, it would delay the woken task every time.
        """
        frames = self._recv_frames()
        if frames is not None:
            self._receive(frames)
            self._kick()

    def _drain(self) -> None:
        for _ in range(DRAIN_BATCH):
            frames = self._recv_frames()
            if frames is None:
                return  # drained: the edge-triggered FD will fire for the next one
            self._receive(frames)
        self._kick()  # more may be waiting: continue after others

    def _recv_frames(self) -> list[bytes | memoryview] | None:
        """One whole message's frames, or None when none is waiting (or the socket closed).

        Frames, not copies: a frame says itself whether more follow (no socket
        option to ask), and the body is read in place (msgspec copies what it keeps).
        """
        sub = self._sub
        if sub.closed:
            return None
        try:
            frame = sub.recv(_NOBLOCK, copy=False)
        except zmq.Again:
            return None
        frames: list[bytes | memoryview] = [frame.bytes]
        while frame.more:  # the rest of a message is there once its first frame is
            frame = sub.recv(_NOBLOCK, copy=False)
            frames.append(frame.buffer)
        return frames

    def _receive(self, frames: list[bytes | memoryview]) -> None:
        try:
            msg = decode(frames)
        except DecodeError as exc:
            self._bad.warn(exc.kind, "dropped a bad message on %s: %s", exc.topic, exc.reason)
            if self._on_invalid is not None:
                self._on_invalid([bytes(f) for f in frames], exc)
            return
        self._dispatch(msg)

    def _dispatch(self, msg: Message) -> None:
        claimed = False
        for match, fut in list(self._waiters) if self._waiters else ():
            if not fut.done():
                try:
                    hit = match(msg)
                except Exception:  # a predicate on peer data must not stop the bus
                    hit = False
                if hit:
                    fut.set_result(msg)
                    claimed = True
        if claimed or not msg.TOPIC.startswith(self._inbox_prefixes):
            return  # claimed, or only arrived for a waiter's subscription
        if len(self._inbox) >= QUEUE_LIMIT:
            self._bad.warn("inbox-full", "%s: inbox full, dropped %s", self.name, msg.TOPIC)
            return
        self._inbox.append(msg)
        if self._inbox_waiter is not None and not self._inbox_waiter.done():
            self._inbox_waiter.set_result(None)

    def _add_waiter(
        self, kind: type[M], match: Callable[[M], bool], subscribe: bool = True
    ) -> Waiter:
        if subscribe:
            self._listen(kind.TOPIC)
        else:
            self._attach()
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()

        def hit(msg: Message) -> bool:
            return isinstance(msg, kind) and match(msg)

        waiter = (hit, fut)
        self._waiters.append(waiter)
        return waiter

    def _remove_waiter(self, waiter: Waiter) -> None:
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)

    async def _await(self, waiter: Waiter, timeout: float, error: str) -> Any:
        try:
            async with asyncio.timeout(timeout):
                return await waiter[1]
        except TimeoutError:
            raise RequestTimeout(error) from None
        finally:
            self._remove_waiter(waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
