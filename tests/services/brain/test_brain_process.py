"""The brain process on its own terms: readiness from heartbeats, tokens, refusing to start."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack
from tests.helpers.ports import free_port
from tests.helpers.processes import ROOT, python_env


def poll(
    url: str, accept: Callable[[httpx.Response], bool], timeout: float = 20.0
) -> httpx.Response:
    """GET ``url`` until ``accept`` says yes to the response."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            response = httpx.get(url, timeout=2)
            if accept(response):
                return response
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} never answered as expected")
        time.sleep(0.05)


def test_ready_only_while_dialogue_and_tools_beat() -> None:
    stack = Stack([]).start(executor=False, wait=False)
    try:
        health = f"{stack.url}/health/ready"
        response = poll(health, lambda r: r.json().get("services", {}).get("dialogue") == "ready")
        assert response.status_code == 503
        assert response.json()["error"] == "no recent heartbeat from: tools"
        assert response.json()["services"]["tools"] == "absent"

        stack.run("tests.helpers.tool_executor")
        poll(health, lambda r: r.status_code == 200)

        stack.processes["services.dialogue"].stop()
        response = poll(health, lambda r: r.status_code == 503)
        assert response.json()["error"] == "no recent heartbeat from: dialogue"
        asked = httpx.post(
            f"{stack.url}/ask",
            json={"session_id": "s", "request_id": "r", "text": "Hi"},
            timeout=10,
        )
        assert asked.status_code == 503
        assert asked.json() == {
            "error": "the dialogue service is not running (no recent heartbeat on the bus)"
        }
        assert stack.llm.requests == []
    finally:
        stack.stop()


def test_a_token_guards_every_route_off_loopback() -> None:
    stack = Stack([], brain='host = "0.0.0.0"\ntoken = "s3cret"')
    stack.headers = {"Authorization": "Bearer s3cret"}
    stack.start()
    try:
        body = {"session_id": "s", "request_id": "r", "text": "Hi"}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            refused = httpx.post(f"{stack.url}/ask", json=body, headers=headers, timeout=10)
            assert refused.status_code == 401
            assert refused.json() == {"error": "missing or wrong bearer token"}
            assert refused.headers["www-authenticate"] == "Bearer"
        stack.llm.script(c.text("Welcome."))
        allowed = httpx.post(f"{stack.url}/ask", json=body, headers=stack.headers, timeout=10)
        assert allowed.json()["conversation"] == "Welcome."
    finally:
        stack.stop()


def run_brain(folder: ConfigFolder) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "services.brain", *folder.args()],
        cwd=ROOT,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_refuses_to_start_off_loopback_without_a_token(config_folder: ConfigFolder) -> None:
    config_folder.write(f'[brain]\nhost = "0.0.0.0"\nport = {free_port()}\n')
    done = run_brain(config_folder)
    assert done.returncode == 2
    assert "[brain] host '0.0.0.0' is not loopback and no token is set" in done.stderr


def test_a_port_in_use_is_a_clear_error(config_folder: ConfigFolder, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        config_folder.write(f"[brain]\nport = {taken.getsockname()[1]}\n")
        done = run_brain(config_folder)
    assert done.returncode == 2
    assert "cannot listen on 127.0.0.1:" in done.stderr and "in use" in done.stderr
