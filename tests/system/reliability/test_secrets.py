"""Secrets never appear in logs, on the bus (the tap) or in error messages.

The assistant runs with an ``[env]`` API key that a tool prints (on success
and in its error), a brain token, and an LLM URL with a password; turns go
right and wrong (tool failure, LLM 500, LLM gone). Every log file, the tap's
text and JSON output, every HTTP answer and doctor's report are searched.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant
from tests.helpers.processes import ROOT, python_env
from tests.helpers.tap import TapProcess, poll

API_KEY = "sk-live-4f9a1c2e7b3d"
TOKEN = "brain-token-8d2f6a"
LLM_PASSWORD = "llm-pass-7c1e9d"
SECRETS = (API_KEY, TOKEN, LLM_PASSWORD)


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    a = Assistant(
        sound=False,
        services=["dialogue", "tools", "brain", "watchdog"],
        config=f'[env]\nAPI_KEY = "{API_KEY}"\n',
    )
    config = a.folder / "config.toml"
    text = config.read_text()
    text = text.replace("[brain]\n", f'[brain]\ntoken = "{TOKEN}"\n')
    text = text.replace('llm = "http://', f'llm = "http://bob:{LLM_PASSWORD}@')
    config.write_text(text)
    tools = a.folder / "tools"
    (tools / "leaky.py").write_text(
        f"#!{sys.executable}\nimport os, sys\nkey = os.environ['API_KEY']\n"
        "if sys.argv[1:] == ['fail']:\n"
        "    print(f'leaky: the server refused key {key}', file=sys.stderr)\n    sys.exit(1)\n"
        "print(f'called with key {key}')\n"
    )
    (tools / "leaky.py").chmod(0o755)
    (tools / "leaky.toml").write_text(
        'description = "Leaks."\ncommand = ["leaky.py", "{how}"]\n'
        '[params.how]\ntype = "string"\ndescription = "fail or not"\n'
    )
    with a:
        yield a


def ask(assistant: Assistant, request_id: str, token: str = TOKEN) -> httpx.Response:
    body = {"session_id": "s", "request_id": request_id, "text": "Do it."}
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.post(f"{assistant.brain_url}/ask", json=body, headers=headers, timeout=30)


def test_no_secret_leaves_the_assistant(assistant: Assistant) -> None:
    taps = [TapProcess(assistant.folder), TapProcess(assistant.folder, "--json")]
    seen: list[str] = []
    try:
        taps[0].wait("LIVENESS dialogue up")
        taps[1].wait('"liveness": "up", "service": "dialogue"')
        llm = assistant.llm
        llm.script(c.tool_calls([c.call("leaky", how="ok")]), c.text("It worked."))
        answer = ask(assistant, "r1")
        assert answer.json()["conversation"] == "It worked."
        assert llm.requests[-1]["messages"][-1]["content"] == "called with key [env API_KEY]"

        llm.script(c.tool_calls([c.call("leaky", how="fail")]), c.text("It failed."))
        ask(assistant, "r2")
        tool_error = llm.requests[-1]["messages"][-1]["content"]
        assert tool_error == "error: exit status 1: leaky: the server refused key [env API_KEY]"

        llm.script(c.http_error(500, "boom"))
        failed = ask(assistant, "r3")
        assert failed.json()["error"] == "llm-error"

        port = llm.port
        llm.stop()
        gone = ask(assistant, "r4")
        assert gone.json()["error"] == "llm-unavailable"
        def health() -> httpx.Response:
            return httpx.get(
                f"{assistant.brain_url}/health/ready",
                headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10,
            )

        degraded = "llm-unavailable at http://***@127.0.0.1"  # the state's detail, no password
        poll(lambda: degraded in health().json()["services"]["dialogue"])
        refused = ask(assistant, "r5", token="wrong")
        assert refused.status_code == 401
        seen += [r.text for r in (answer, failed, gone, health(), refused)]
        doctor = subprocess.run(
            [sys.executable, "-m", "desktop_assistant", "doctor", "--listen", "1",
             "--config", str(assistant.folder)],
            cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
        )
        assert f"127.0.0.1:{port}" in doctor.stdout
        seen += [doctor.stdout, doctor.stderr]
        poll(lambda: all("turn.done" in "".join(t.seen) for t in taps))
    finally:
        for tap in taps:
            tap.close()
    seen += ["".join(tap.seen) for tap in taps]
    seen += [proc.output() for proc in assistant.processes.values()]
    assert "tools.result" in seen[-len(assistant.processes) - 2]  # the tap saw the results
    for text in seen:
        for secret in SECRETS:
            assert secret not in text
