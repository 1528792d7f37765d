"""One scripted LLM server per test module (the broker: ``module_broker``); its script is reset
per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.llm_server import ScriptedLLM


@pytest.fixture(scope="module")
def module_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def llm(module_llm: ScriptedLLM) -> Iterator[ScriptedLLM]:
    module_llm.reset()
    yield module_llm
    module_llm.reset()
