"""``[dialogue] api_key`` against a server that wants one (as ``vllm --api-key`` does): the
dialogue and doctor send it as a bearer token, say which key is missing, and never log it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import Heartbeat, QuestionRequest, Reply
from desktop_assistant.doctor import llm as doctor_llm
from services.dialogue.llm import LLMClient, LLMError
from services.dialogue.timing import Waits
from settings import Config
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.busrun import with_buses
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import Process

KEY = "sk-test-0123456789abcdef"


def answer(url: str, key_setting: str) -> str:
    async def main() -> str:
        client = LLMClient(url, model="m", timeout=5, key_setting=key_setting)
        try:
            deltas = [d async for d in client.stream([{"role": "user", "content": "hi"}], None,
                                                     Waits())]
        finally:
            await client.aclose()
        return "".join(d.content for d in deltas)

    return asyncio.run(main())


def test_the_key_goes_as_a_bearer_token(llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    llm.api_key = KEY
    llm.script(c.text("Written."), c.text("From the environment."))
    assert answer(llm.url, KEY) == "Written."
    monkeypatch.setenv("LLM_KEY_FOR_TEST", KEY)
    assert answer(llm.url, "env:LLM_KEY_FOR_TEST") == "From the environment."
    assert llm.authorizations == [f"Bearer {KEY}"] * 2


def test_without_the_key_the_error_names_the_key_to_set(llm: ScriptedLLM) -> None:
    llm.api_key = KEY
    with pytest.raises(LLMError) as caught:
        answer(llm.url, "")
    assert caught.value.detail.startswith(f"HTTP 401 from {llm.url}/chat/completions: ")
    assert "the server wants an API key: set [dialogue] api_key" in caught.value.detail
    with pytest.raises(LLMError) as wrong:
        answer(llm.url, "sk-wrong")
    assert "the server refused the key of [dialogue] api_key" in wrong.value.detail
    assert "sk-wrong" not in wrong.value.detail


def test_an_unset_variable_is_named_and_nothing_is_sent(
    llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLM_KEY_FOR_TEST", raising=False)
    with pytest.raises(LLMError) as caught:
        answer(llm.url, "env:LLM_KEY_FOR_TEST")
    assert "reads the environment variable LLM_KEY_FOR_TEST, which is not set" \
        in caught.value.detail
    assert llm.requests == []


def doctor(url: str, key_setting: str) -> tuple[bool, str, str]:
    config = Config.model_validate({"llm": url, "dialogue": {"api_key": key_setting}})
    (check,) = asyncio.run(doctor_llm.check_llm(config))
    return check.ok, check.detail, check.fix


def test_doctor_asks_with_the_key_and_says_when_it_is_missing(
    llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm.api_key = KEY
    llm.script(c.text("ok"))
    assert doctor(llm.url, KEY) == (True, f"{llm.url}: scripted-model", "")
    assert set(llm.authorizations) == {f"Bearer {KEY}"}
    ok, detail, fix = doctor(llm.url, "")
    assert not ok and detail == f"{llm.url}/models answered 401"
    assert fix.startswith("the server wants an API key: set [dialogue] api_key")
    monkeypatch.delenv("LLM_KEY_FOR_TEST", raising=False)
    ok, detail, _ = doctor(llm.url, "env:LLM_KEY_FOR_TEST")
    assert not ok and "LLM_KEY_FOR_TEST, which is not set" in detail


def test_the_dialogue_answers_with_the_key_and_never_logs_it(
    broker: Process, config_folder: ConfigFolder, log_dir: Path
) -> None:
    with ScriptedLLM() as llm:
        llm.api_key = KEY
        llm.script(c.text("Answered."))
        config_folder.write(
            f'llm = "{llm.url}"\n[intents]\nmode = "off"\n'
            f'[dialogue]\nmodel = "m"\napi_key = "env:LLM_KEY_FOR_TEST"\n'
        )
        service = Process("services.dialogue", *config_folder.args(), "--log-level", "DEBUG",
                          log_dir=log_dir, env={"LLM_KEY_FOR_TEST": KEY})

        async def body(client: Bus) -> Reply:
            await client.wait_for(
                Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", 20
            )
            return await client.request(QuestionRequest(session="cli", text="Hi?"), Reply, 20)

        try:
            reply = with_buses(config_folder.endpoints, ["client"], body)
        finally:
            code = service.stop()
    log = service.log_path.read_text()
    assert code == 0, log
    assert (reply.text, reply.error) == ("Answered.", None)
    assert llm.authorizations[-1] == f"Bearer {KEY}"
    assert KEY not in log and KEY[:12] not in log
