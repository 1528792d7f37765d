"""Only the assistant's own user reaches a tokenless brain, through a loopback name; a token
opens it to any client; bad tokens are 401, never 500."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from examples.remote_ui.remote_chat import RemoteChat
from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack
from tests.helpers.other_user import as_other_user
from tests.helpers.processes import ROOT, python_env

ASK = {"session_id": "s", "request_id": "r1", "text": "Hi"}


def raw_request(port: int, head: str, body: bytes = b"") -> tuple[int, dict[str, object]]:
    """Send one HTTP/1.1 request as written; the status and JSON body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2] or b"{}")


def as_user(name: str, port: int, token: str = "") -> tuple[int, dict[str, object]]:
    """``raw_request`` POST /ask from a child process running as the user ``name``."""
    body = json.dumps({**ASK, "request_id": os.urandom(4).hex()}).encode()
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (
        f"POST /ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"{auth}Content-Length: {len(body)}\r\nConnection: close\r\n"
    )
    status, data = as_other_user(name, lambda: raw_request(port, head, body))
    return status, data


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = Stack([], brain='allowed_hosts = ["assistant.home"]').start()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")
def test_another_user_is_refused_and_ours_is_served(stack: Stack) -> None:
    asked = len(stack.llm.requests)
    status, data = as_user("nobody", stack.port)
    assert status == 403
    assert "another user (uid" in str(data["error"])
    assert len(stack.llm.requests) == asked  # nothing reached the model
    stack.llm.script(c.text("Hello."))
    with RemoteChat(stack.url, session_id="own") as chat:  # no token: the seed's own client
        assert chat.ask("Hi", client_type="text")[0] == "Hello."


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 421),
        ("evil.example:{port}", 421),
        ("127.0.0.1.nip.io:{port}", 421),
        ("localhost:{port}", 200),
        ("LOCALHOST.", 200),
        ("127.0.0.1:{port}", 200),
        ("[::1]:{port}", 200),
        ("assistant.home:{port}", 200),
    ],
)
def test_only_loopback_and_listed_names_are_served(stack: Stack, host: str, status: int) -> None:
    # a page of the user's browser reaches 127.0.0.1 through a name of its own (DNS
    # rebinding): its Host header says so
    line = f"Host: {host.format(port=stack.port)}\r\n" if host else ""
    got, data = raw_request(
        stack.port, f"GET /health/ready HTTP/1.1\r\n{line}Connection: close\r\n"
    )
    assert got == status, data
    if status == 421:
        assert "is not a name of this brain" in str(data["error"])


def test_docs_pages_are_off_and_the_description_stays(stack: Stack) -> None:
    for page in ("/docs", "/redoc"):
        assert httpx.get(stack.url + page, timeout=10).status_code == 404
    described = httpx.get(stack.url + "/openapi.json", timeout=10)
    assert described.status_code == 200 and "/ask" in described.json()["paths"]


def test_a_non_ascii_authorization_header_is_401() -> None:
    stack = Stack([], brain='token = "s3cret"')
    stack.headers = {"Authorization": "Bearer s3cret"}
    stack.start()
    try:
        for value in ("Bearer s3crét", "Bearer ☃", "Bearér s3cret"):
            refused = httpx.post(
                f"{stack.url}/ask",
                json=ASK,
                headers={"Authorization": value.encode("utf-8")},  # type: ignore[dict-item]
                timeout=10,
            )
            assert refused.status_code == 401, refused.text
            assert refused.json() == {"error": "missing or wrong bearer token"}
        if os.getuid() == 0:  # with the token, any user of the machine may ask
            stack.llm.script(c.text("Welcome."))
            status, data = as_user("nobody", stack.port, token="s3cret")
            assert (status, data["conversation"]) == (200, "Welcome."), data
    finally:
        stack.stop()


def test_a_non_ascii_token_is_refused_by_config_check_and_at_start(tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "config.toml").write_text('[brain]\ntoken = "pässwort"\n', encoding="utf-8")
    for command in (
        [sys.executable, "-m", "desktop_assistant", "config", "check", "--config", str(folder)],
        [sys.executable, "-m", "services.brain", "--config", str(folder)],
    ):
        done = subprocess.run(
            command, cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done.stderr
        assert "[brain] key 'token': the token must be printable ASCII" in done.stderr
        assert "Traceback" not in done.stderr
