"""kill -9 each process of the running assistant in the middle of a turn, then restart it.

The interrupted turn ends with a spoken apology (voice) or an error the caller
gets (HTTP, tool results) within a bounded time; the next question is
answered; no other process was restarted (their pids never change). One
assistant for the whole module, faults in the order of a turn.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator

import httpx
import pytest

from bus.errors import ErrorCode
from bus.messages import (
    Error,
    Reply,
    Speaking,
    SpeechEnded,
    Spoken,
    ToolRequest,
    TraceMark,
)
from services.base.phrases import apology
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.system.reliability.whole import QUESTION, Voice, hang_tool, pids

BOUND = 15.0
"""Seconds from the kill to the apology (three heartbeats of 0.5 s, a restart, speaking)."""
KILLED: list[str] = []


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    # Without speculation STT holds the turn from the end of speech to the transcript.
    a = Assistant(config="[whisper]\nspeculative = false\n")
    hang_tool(a)
    with a:
        yield a
    print(f"\nkilled mid-turn: {', '.join(KILLED)}")


def run(assistant: Assistant, body) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with Recorder(assistant) as rec:
            await body(Voice(assistant, rec), rec)

    try:
        asyncio.run(main())
    except BaseException:
        print(assistant.logs())  # shown with the failure
        print("LLM requests:", [r["messages"][1:] for r in assistant.llm.requests[-3:]])
        raise


async def model_asked(assistant: Assistant, rec: Recorder, turn: str) -> None:
    """Until the turn's request has reached the LLM server (not just left the dialogue)."""
    asked = len(assistant.llm.requests)
    await rec.until(TraceMark, lambda m: m.turn == turn and m.stage == "llm.request", 60)
    await asyncio.to_thread(assistant.llm.wait_requests, asked + 1)


def killed(assistant: Assistant, name: str, before: dict[str, int]) -> None:
    """``name`` has a new process now, and every other process is the same as before."""
    KILLED.append(name)
    after = pids(assistant)
    assert after[name] != before[name]
    assert {k: v for k, v in after.items() if k != name} == {
        k: v for k, v in before.items() if k != name
    }


def test_mic(assistant: Assistant) -> None:
    before = pids(assistant)

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        assistant.kill("mic")  # the user is still speaking
        died = time.monotonic()
        error = await rec.until(Error, lambda m: m.turn == turn, BOUND)
        assert error.code == "turn-lost" and "mic" in error.message
        spoken = await voice.apology(turn)
        assert spoken.text == apology(ErrorCode.TURN_LOST, "en", stage="mic")[0]
        assert time.monotonic() - died < BOUND
        await voice.played()
        await asyncio.to_thread(assistant.restart, "mic")
        await voice.answered()

    run(assistant, body)
    killed(assistant, "mic", before)


def test_stt(assistant: Assistant) -> None:
    before = pids(assistant)

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        await rec.until(SpeechEnded, lambda m: m.turn == turn, 30)
        assistant.kill("stt")  # while it transcribes
        died = time.monotonic()
        spoken = await voice.apology(turn)
        assert spoken.text == apology(ErrorCode.TURN_LOST, "en", stage="stt")[0]
        assert time.monotonic() - died < BOUND
        await voice.played()
        await asyncio.to_thread(assistant.restart, "stt")
        await voice.answered()

    run(assistant, body)
    killed(assistant, "stt", before)


def test_dialogue(assistant: Assistant) -> None:
    before = pids(assistant)
    assistant.llm.script({"stream": [{"gate": "dialogue"}, *c.text("Too late.")["stream"]]})

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        await model_asked(assistant, rec, turn)
        assistant.kill("dialogue")  # while the model streams its answer
        died = time.monotonic()
        spoken = await voice.apology(turn)
        assert spoken.text == apology(ErrorCode.TURN_LOST, "en", stage="dialogue")[0]
        assert time.monotonic() - died < BOUND
        assistant.llm.gate("dialogue").set()
        await voice.played()
        await asyncio.to_thread(assistant.restart, "dialogue")
        await voice.answered()

    run(assistant, body)
    killed(assistant, "dialogue", before)


def test_tools(assistant: Assistant) -> None:
    before = pids(assistant)
    pid_file = assistant.root / "hang.pid"
    assistant.llm.script(c.tool_calls([c.call("hang")]), c.text("The tool broke, sorry."))

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        await rec.until(ToolRequest, lambda m: m.turn == turn and m.name == "hang", 60)
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.02)  # polling for the tool to start, within the test timeout
        tool_pid = int(pid_file.read_text())
        assistant.kill("tools")  # while the tool runs
        died = time.monotonic()
        reply = await rec.until(Reply, lambda m: m.reply_to == turn, BOUND)
        assert reply.error == "tools-unavailable"
        assert time.monotonic() - died < 3 * 0.5 + 2.0  # the call did not wait out its 30 s
        result = assistant.llm.requests[-1]["messages"][-1]
        assert result["role"] == "tool"
        assert result["content"] == "error: the tool executor stopped while running hang"
        spoken = await rec.until(
            Spoken, lambda m: m.turn == turn and m.text == reply.text, 30
        )
        assert not os.path.exists(f"/proc/{tool_pid}")  # the tool died with its executor
        await voice.played()
        await voice.quiet(spoken.ts)
        await asyncio.to_thread(assistant.restart, "tools")
        assistant.llm.script(c.tool_calls([c.call("now")]))
        await voice.answered()
        now = assistant.llm.requests[-1]["messages"][-1]
        assert now["role"] == "tool" and not now["content"].startswith("error")

    run(assistant, body)
    killed(assistant, "tools", before)


def test_tts(assistant: Assistant) -> None:
    before = pids(assistant)
    long = "It will be sunny in Rome tomorrow. " * 6
    assistant.llm.script(c.text(*[s + "." for s in long.split(".") if s.strip()]))

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        await rec.until(Speaking, lambda m: m.speaking and m.turn == turn, 60)
        assistant.kill("tts")  # while it speaks
        died = time.monotonic()
        await voice.played()
        await asyncio.to_thread(assistant.restart, "tts")
        spoken = await voice.apology(turn)  # spoken by the new speaker
        assert spoken.text == apology(ErrorCode.TURN_LOST, "en", stage="tts")[0]
        assert time.monotonic() - died < BOUND + 60  # a restart of Kokoro included
        await voice.answered()

    run(assistant, body)
    killed(assistant, "tts", before)


def test_brain(assistant: Assistant) -> None:
    before = pids(assistant)
    assistant.llm.script({"stream": [{"gate": "brain"}, *c.text("Too late.")["stream"]]})
    url = f"{assistant.brain_url}/ask"

    async def body(voice: Voice, rec: Recorder) -> None:
        async with httpx.AsyncClient(timeout=30) as client:
            body = {"session_id": "web", "request_id": "r1", "text": "Hello?"}
            asked = asyncio.ensure_future(client.post(url, json=body))
            while not assistant.llm.requests or assistant.llm.requests[-1]["messages"][-1][
                "content"
            ] != "Hello?":
                await asyncio.sleep(0.02)  # polling for the ask to reach the model
            assistant.kill("brain")  # while the question is answered
            died = time.monotonic()
            with pytest.raises(httpx.TransportError):
                await asked
            assert time.monotonic() - died < 2.0
            assistant.llm.gate("brain").set()
            await asyncio.to_thread(assistant.restart, "brain")
            assistant.llm.script(c.text("Hello again."))
            again = await client.post(
                url, json={"session_id": "web", "request_id": "r2", "text": "Still there?"}
            )
            assert again.status_code == 200 and again.json()["conversation"] == "Hello again."
        await voice.answered()

    run(assistant, body)
    killed(assistant, "brain", before)


def test_broker(assistant: Assistant) -> None:
    before = pids(assistant)
    assistant.llm.script({"stream": [{"gate": "broker"}, *c.text("Lost on the way.")["stream"]]})

    async def body(voice: Voice, rec: Recorder) -> None:
        turn = await voice.heard(voice.play(QUESTION))
        await model_asked(assistant, rec, turn)
        streamed = assistant.llm.streamed
        assistant.kill("broker")  # while the model streams its answer
        died = time.monotonic()
        assistant.llm.gate("broker").set()  # the answer goes out while no broker carries it
        while assistant.llm.streamed == streamed:
            await asyncio.sleep(0.02)  # polling for the stream's end, within the test timeout
        await asyncio.to_thread(assistant.restart, "broker")
        # Everyone reconnects by themselves. ZeroMQ keeps what was published meanwhile in
        # the publishers' queues and delivers it to the subscribers back by then: the turn
        # ends with its answer, or (what the speaker missed) with the watchdog's apology.
        spoken = await rec.until(Spoken, lambda m: m.turn == turn, BOUND)
        lost = apology(ErrorCode.TURN_LOST, "en", stage="broker")[0]
        assert spoken.text in ("Lost on the way.", lost)
        assert time.monotonic() - died < BOUND
        await voice.quiet(spoken.ts)
        await voice.played()
        await assistant.wait_ready(assistant.services)
        await voice.answered()

    run(assistant, body)
    killed(assistant, "broker", before)
