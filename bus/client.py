"""The asyncio bus client every process uses: publish, subscribe, receive, request."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import zmq
import zmq.asyncio

import bus.messages  # noqa: F401  (fills the registry)
from bus import __version__
from bus.endpoints import Endpoints
from bus.message import Message, new_id
from bus.messages import Heartbeat, Probe
from bus.ratelimit import RateLimitedLog
from bus.registry import MAX_MESSAGE_BYTES, DecodeError, decode, encode

log = logging.getLogger(__name__)

M = TypeVar("M", bound=Message)

QUEUE_LIMIT = 10_000


class RequestTimeout(TimeoutError):
    """Nobody answered a request before its deadline."""


class Bus:
    """One PUB and one SUB socket on the broker, with a reader task that routes replies.

    Messages that are not claimed by a pending :meth:`request` go to an inbox
    read with :meth:`recv` or ``async for``. Undecodable frames are logged
    (rate limited) and dropped; with ``keep_invalid`` they are handed to
    ``on_invalid`` (the tap shows them).
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
        self._ctx = zmq.asyncio.Context()
        self._pub = self._ctx.socket(zmq.PUB)
        self._sub = self._ctx.socket(zmq.SUB)
        for sock in (self._pub, self._sub):
            sock.setsockopt(zmq.LINGER, 200)
            sock.setsockopt(zmq.SNDHWM, 10_000)
            sock.setsockopt(zmq.RCVHWM, 10_000)
            sock.setsockopt(zmq.RECONNECT_IVL, 100)
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        self._sub.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES + 4096)
        self._pub.connect(endpoints.pub)
        self._sub.connect(endpoints.sub)
        self._prefixes: set[str] = set()
        self._inbox_prefixes: set[str] = set()
        self._inbox: asyncio.Queue[Message] = asyncio.Queue(QUEUE_LIMIT)
        self._waiters: list[tuple[Callable[[Message], bool], asyncio.Future[Message]]] = []
        self._on_invalid = on_invalid
        self._bad = RateLimitedLog(log)
        self._reader: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self.state = "starting"
        self.detail = ""

    # -- lifecycle ---------------------------------------------------------------

    async def __aenter__(self) -> Bus:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        for task in (self._heartbeat, self._reader):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._heartbeat = self._reader = None
        self._pub.close(linger=200)
        self._sub.close(linger=0)
        self._ctx.term()

    # -- sending -----------------------------------------------------------------

    def publish(self, msg: Message, suffix: str = "") -> None:
        """Send ``msg`` now; never blocks (PUB drops past its high-water mark)."""
        if msg.site is None and self.site is not None:
            msg = _with_site(msg, self.site)
        frames = encode(msg, self.name, suffix)
        self._pub.send_multipart(frames, copy=len(frames[1]) < 65536)

    def send_raw(self, frames: list[bytes]) -> None:
        """Send arbitrary frames (tests and fuzzing only)."""
        self._pub.send_multipart(frames)

    # -- receiving ---------------------------------------------------------------

    def subscribe(self, *prefixes: str) -> None:
        """Receive every topic that starts with one of ``prefixes`` ("" = everything)."""
        for prefix in prefixes:
            self._inbox_prefixes.add(prefix)
            self._listen(prefix)

    def _listen(self, prefix: str) -> None:
        """Subscribe the socket (for the inbox or for a waiter)."""
        if prefix not in self._prefixes:
            self._prefixes.add(prefix)
            self._sub.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        self._ensure_reader()

    async def recv(self, timeout: float | None = None) -> Message | None:
        """The next message for this process, or None after ``timeout`` seconds."""
        self._ensure_reader()
        try:
            return await asyncio.wait_for(self._inbox.get(), timeout)
        except TimeoutError:
            return None

    async def __aiter__(self) -> AsyncIterator[Message]:
        while True:
            msg = await self.recv()
            if msg is not None:
                yield msg

    async def wait_for(
        self, kind: type[M], match: Callable[[M], bool] = lambda m: True, timeout: float = 5.0
    ) -> M:
        """Wait for the first message of ``kind`` that ``match``es (not taken from the inbox)."""
        self._listen(kind.TOPIC)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        entry = (lambda m: isinstance(m, kind) and match(m), fut)  # type: ignore[arg-type]
        self._waiters.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)  # type: ignore[arg-type]
        except TimeoutError:
            raise RequestTimeout(f"no {kind.TOPIC} within {timeout:g} s") from None
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(entry)

    async def request(
        self, msg: Message, reply: type[M], match: Callable[[M], bool], timeout: float
    ) -> M:
        """Publish ``msg`` and wait for the ``reply`` that ``match``es, or raise RequestTimeout."""
        self._listen(reply.TOPIC)
        waiter = asyncio.ensure_future(self.wait_for(reply, match, timeout))
        await asyncio.sleep(0)  # register the waiter before the reply can arrive
        self.publish(msg)
        try:
            return await waiter
        except RequestTimeout:
            raise RequestTimeout(
                f"nobody answered {msg.TOPIC} with {reply.TOPIC} within {timeout:g} s"
            ) from None

    async def wait_connected(self, timeout: float = 10.0, interval: float = 0.05) -> None:
        """Return once a probe of ours has made the round trip through the broker.

        This replaces sleeping past the slow-joiner problem: the probe travels
        on a topic subscribed just now, after every earlier subscription, so
        when it comes back those have reached the broker too.
        """
        await self.wait_path(self, timeout, interval)

    async def wait_path(self, sender: Bus, timeout: float = 10.0, interval: float = 0.05) -> None:
        """Return once ``sender`` can reach us with every topic we subscribed so far."""
        nonce = new_id()
        topic = f"{Probe.TOPIC}.{nonce}"
        self._sub.setsockopt(zmq.SUBSCRIBE, topic.encode())
        self._ensure_reader()
        fut = asyncio.ensure_future(self._probe_returned(nonce, timeout))
        try:
            while not fut.done():
                sender.publish(Probe(nonce=nonce), suffix=nonce)
                await asyncio.wait([fut], timeout=interval)
            fut.result()
        finally:
            fut.cancel()
            self._sub.setsockopt(zmq.UNSUBSCRIBE, topic.encode())

    async def _probe_returned(self, nonce: str, timeout: float) -> Message:
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        entry = (lambda m: isinstance(m, Probe) and m.nonce == nonce, fut)
        self._waiters.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise RequestTimeout(f"no probe came back through the bus in {timeout:g} s") from None
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(entry)

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

    def _ensure_reader(self) -> None:
        if self._reader is None:
            self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while True:
            frames = await self._sub.recv_multipart(copy=True)
            try:
                msg = decode(frames)
            except DecodeError as exc:
                self._bad.warn(exc.reason, "dropped a bad message on %s: %s", exc.topic, exc.reason)
                if self._on_invalid is not None:
                    self._on_invalid(frames, exc)
                continue
            self._dispatch(msg)

    def _dispatch(self, msg: Message) -> None:
        claimed = False
        for match, fut in list(self._waiters):
            if not fut.done():
                try:
                    hit = match(msg)
                except Exception:  # a predicate on peer data must not kill the reader
                    hit = False
                if hit:
                    fut.set_result(msg)
                    claimed = True
        if claimed or not any(msg.TOPIC.startswith(p) for p in self._inbox_prefixes):
            return  # claimed, or only arrived for a waiter's subscription
        try:
            self._inbox.put_nowait(msg)
        except asyncio.QueueFull:
            self._bad.warn("inbox-full", "%s: inbox full, dropped %s", self.name, msg.TOPIC)


def _with_site(msg: M, site: str) -> M:
    import dataclasses

    return dataclasses.replace(msg, site=site)
