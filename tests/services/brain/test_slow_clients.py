"""Slow and idle clients hold nothing for long, and many of them leave the brain reachable.

Real sockets against the real brain process: one that never sends, one that
stops in the middle of its headers, one that stops in the middle of its body.
"""

from __future__ import annotations

import resource
import socket
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from services.brain.api import MAX_BODY
from tests.helpers.dialogue_stack import Stack

WAIT = 60.0
"""How long a test waits for the brain to close a socket: far past its deadline."""


def connect(port: int, sent: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.sendall(sent)
    return sock


def until_closed(sock: socket.socket) -> bytes:
    """Everything the brain sends before it closes ``sock`` (fails after WAIT seconds)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


@pytest.fixture
def slow_stack() -> Iterator[Stack]:
    stack = Stack([], brain="client_timeout = 1.0").start()
    try:
        yield stack
    finally:
        stack.stop()


def test_idle_and_half_sent_requests_are_closed_while_others_are_served(
    slow_stack: Stack,
) -> None:
    port = slow_stack.port
    head = f"POST /ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    with ExitStack() as sockets:
        idle = sockets.enter_context(connect(port))
        half_head = sockets.enter_context(connect(port, head.encode()))
        half_body = sockets.enter_context(
            connect(port, (head + "Content-Length: 100\r\n\r\n").encode() + b'{"session_id"')
        )
        served = httpx.get(f"{slow_stack.url}/health/ready", timeout=10)
        assert served.status_code == 200
        assert until_closed(idle) == b""
        assert until_closed(half_head) == b""
        answer = until_closed(half_body)
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b'{"error": "request body not received within 1 s"}' in answer
    assert httpx.get(f"{slow_stack.url}/health/ready", timeout=10).status_code == 200


def test_past_max_connections_the_longest_idle_are_closed() -> None:
    stack = Stack([], brain="client_timeout = 600\nmax_connections = 20").start()
    try:
        with ExitStack() as sockets:
            idle = [sockets.enter_context(connect(stack.port)) for _ in range(60)]
            served = httpx.get(f"{stack.url}/health/ready", timeout=10)
            assert served.status_code == 200
            assert until_closed(idle[0]) == b""  # the oldest made room
    finally:
        stack.stop()


def test_a_thousand_idle_sockets_leave_the_brain_reachable() -> None:
    # a desktop session's soft limit on open files is often 1,024: the brain inherits it
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 1300:
        pytest.skip("this test opens 1,100 sockets")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:
        stack = Stack([], brain="client_timeout = 600").start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1300), hard))
        with ExitStack() as sockets:
            for _ in range(1100):
                sockets.enter_context(connect(stack.port))
            served = httpx.get(f"{stack.url}/health/ready", timeout=10)
            assert served.status_code == 200
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        stack.stop()


def test_a_body_declared_too_large_is_refused_before_it_is_sent(slow_stack: Stack) -> None:
    # Refused on its Content-Length alone: the client need not send (nor the brain read)
    # what it would refuse anyway, and it learns why at once rather than a timeout.
    port = slow_stack.port
    head = (
        f"POST /ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MAX_BODY + 1}\r\nConnection: close\r\n\r\n"
    )
    with connect(port, head.encode()) as declared:
        answer = until_closed(declared)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert f"request body larger than {MAX_BODY} bytes".encode() in answer
