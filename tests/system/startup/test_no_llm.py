"""The whole assistant without a language model server: it starts, says where it expects one
and how to point it elsewhere (log, heartbeat, doctor, and aloud for a spoken question), and
answers as soon as one appears, without a restart."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from bus.messages import Heartbeat, SpeakRequest, Spoken, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import SERVICES, Assistant, Recorder
from tests.helpers.hearing import transcribe
from tests.helpers.words import recall, words
from tests.system.e2e.world import voice_turn


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    started = Assistant(sound=True, llm_up=False)
    try:
        started.start(wait=False)
        asyncio.run(started.wait_ready([s for s in SERVICES if s != "dialogue"]))
        asyncio.run(started.wait_ready(["dialogue"], states=("degraded",)))
        yield started
    finally:
        started.close()


def test_without_an_llm_it_starts_and_says_where_it_expects_one(assistant: Assistant) -> None:
    url = assistant.llm.url
    port = assistant.llm.port
    # What the user reads to fix it (the rest is on the bus, below): the address tried, and
    # the key and the file to set another in.
    log = assistant.processes["dialogue"].output()
    assert url in log and f"set `llm` in {assistant.folder / 'config.toml'}" in log, log

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            beat = await rec.until(Heartbeat, lambda h: h.service == "dialogue")
            assert (beat.state, beat.detail) == ("degraded", f"LLM: llm-unavailable at {url}")
            turn = await voice_turn(assistant, rec, "What time is it?")
            assert len(rec.of(Transcript)) == 1
            assert turn.reply.error == "llm-unavailable"
            (say,) = [m for m in turn.messages(rec.seen) if isinstance(m, SpeakRequest)]
            assert (say.kind, say.final) == ("error", True)
            assert say.text == (
                f"Sorry, I can't reach the language model server at 127.0.0.1, port {port}. "
                "Start one there, or set llm in the config file to another address."
            )
            spoken = " ".join(m.text for m in turn.messages(rec.seen) if isinstance(m, Spoken))
            assert spoken == say.text
            # And it was played, all of it: Whisper hears the sentence in the answer's part of
            # the sink (tiny.en has heard "server" as "so for": a word or two may go).
            _, answer = turn.question_and_answer()
            heard = words(transcribe(answer))
            assert recall(words(say.text), heard) >= 0.8, heard

    asyncio.run(scenario())

    doctor = assistant.cli("doctor")
    assert doctor.returncode == 1
    lines = doctor.stdout.splitlines()
    (llm,) = [line for line in lines if re.match(r"FAIL\s+llm\s", line)]
    assert f"{url} unreachable (ConnectError)" in llm
    fix = lines[lines.index(llm) + 1].strip()
    # Then the usual local servers: the line for one that answers, or how to start one.
    assert fix.startswith("fix: start llama-server/Ollama/vLLM there; or ")
    assert re.search(r'llm = "http://127\.0\.0\.1:\d+/v1"', fix), fix
    (dialogue,) = [line for line in lines if "service dialogue" in line]
    assert dialogue.startswith("WARN") and f"LLM: llm-unavailable at {url}" in dialogue


def test_it_answers_as_soon_as_a_server_appears(assistant: Assistant) -> None:
    dialogue = assistant.processes["dialogue"]
    llm = assistant.start_llm()
    llm.script(c.text("Here I am."))

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            # The dialogue notices by itself, before anyone asks.
            await rec.until(
                Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", timeout=15
            )
            reply = await rec.ask("Are you there?")
            assert (reply.text, reply.error) == ("Here I am.", None)

    asyncio.run(scenario())
    assert dialogue.popen.poll() is None and assistant.processes["dialogue"] is dialogue
