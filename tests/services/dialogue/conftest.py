"""One broker and one scripted LLM server per test module; the LLM's script is reset per test."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.endpoints import Endpoints
from tests.conftest import ConfigFolder, wait_broker
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import Process


@pytest.fixture(scope="module")
def module_broker() -> Iterator[Endpoints]:
    root = Path(tempfile.mkdtemp(prefix="da-"))
    folder = ConfigFolder(root)
    proc = Process("bus", *folder.args(), log_dir=root)
    try:
        asyncio.run(wait_broker(folder.endpoints))
        yield folder.endpoints
    finally:
        proc.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def module_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def llm(module_llm: ScriptedLLM) -> Iterator[ScriptedLLM]:
    module_llm.reset()
    yield module_llm
    module_llm.reset()
