"""The dialogue's heartbeat follows the LLM server's health from start-up, without questions."""

from __future__ import annotations

import asyncio

from bus.endpoints import Endpoints
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, until


def test_a_loading_server_is_degraded_until_it_answers(
    module_broker: Endpoints, llm: ScriptedLLM
) -> None:
    llm.loading = True  # llama-server answers 503 everywhere while it loads its model

    async def body() -> None:
        async with Harness(module_broker, llm.url) as h:
            bus = h.service.bus
            await until(lambda: bus.state == "degraded", what="degraded at start-up")
            assert bus.detail == f"LLM: llm-loading at {llm.url}"
            llm.loading = False
            await until(lambda: bus.state == "ready", timeout=10, what="ready once it answers")
            assert not llm.requests  # nobody had to ask a question for that
            llm.script(c.text("Loaded."))
            record = await h.voice("Hello?")
            assert record.reply.text == "Loaded."

    asyncio.run(body())
