"""Faults of what the assistant talks to, with the whole assistant running.

The LLM server refuses connections, answers 500, answers past the deadline,
breaks its stream, sends garbage; whisper-server (the stand-in, speaking the
real protocol) does the same; a tool hangs, floods its output, exits non-zero.
Each question gets a short spoken answer about the failure, and the system
stays up: no process restarts, and the next spoken question is answered.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bus.message import new_id
from bus.messages import Error, Reply, SpeakRequest, Spoken, Transcript, Utterance
from hearing.convert import decode_file
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.speech import spoken
from tests.helpers.whisper_process import Whisper
from tests.system.reliability.whole import QUESTION, Voice, pids

FAULTS: list[str] = []


@pytest.fixture(scope="module")
def assistant() -> Iterator[Assistant]:
    a = Assistant(
        tools=("now",),
        config="WHISPER\n[dialogue]\ntimeout = 3\n",
    )
    whisper = Whisper(a.root, text=f" {QUESTION}\n")
    config = a.folder / "config.toml"
    config.write_text(config.read_text().replace("WHISPER\n", whisper.config(2)))
    tools = a.folder / "tools"
    for name, body, timeout in [
        ("hang", "import time\ntime.sleep(60)\n", 2),
        ("flood", "import sys\nsys.stdout.write('x' * 10_000_000)\n", 10),
        ("fail", "import sys\nprint('fail: the service said no', file=sys.stderr)\nsys.exit(3)\n",
         10),
    ]:
        (tools / f"{name}.py").write_text(f"#!{sys.executable}\n{body}")
        (tools / f"{name}.py").chmod(0o755)
        (tools / f"{name}.toml").write_text(
            f'description = "{name}"\ncommand = ["{name}.py"]\ntimeout = {timeout}\n'
        )
    whisper.start()
    a.whisper = whisper  # type: ignore[attr-defined]
    try:
        with a:
            yield a
    finally:
        whisper.stop()
        print(f"\nfaults injected with the whole assistant running: {', '.join(FAULTS)}")


def run(assistant: Assistant, body) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with Recorder(assistant) as rec:
            await body(Voice(assistant, rec), rec)

    before = pids(assistant)
    try:
        asyncio.run(main())
    except BaseException:
        print(assistant.logs())  # shown with the failure
        raise
    assert pids(assistant) == before  # nothing had to restart


class Faults:
    """Turns put on the bus where the faulty outside server is met, each ending in an error
    the user hears: an utterance for STT (as the mic sends it), a transcript for the dialogue
    (as STT sends it). The spoken apologies queue up at the speaker meanwhile."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self.turns: dict[str, SpeakRequest] = {}
        pcm = b"".join(decode_file(spoken(QUESTION)))
        self.utterance = Utterance(pcm=pcm, rate=16000, duration=len(pcm) / 32000, speech_end=0.0)

    async def fault(self, name: str, src: str, code: str, text: bool = False) -> SpeakRequest:
        """Inject ``name``'s turn; return once ``src`` said its error ``code`` for it."""
        FAULTS.append(name)
        turn = new_id()
        if text:
            self.rec.bus.publish(Transcript(text=QUESTION, lang="en", turn=turn))
        else:
            self.rec.bus.publish(replace(self.utterance, speech_end=time.time(), turn=turn))
        error = await self.rec.until(Error, lambda m: m.turn == turn, 30)
        assert error.code == code, error
        say = await self.rec.until(SpeakRequest, lambda m: m.turn == turn and m.kind == "error", 10)
        assert (say.src, say.final) == (src, True)
        self.turns[turn] = say
        return say

    async def all_spoken(self) -> float:
        """Every error was spoken (and by the stage itself, not the watchdog); the last time."""
        last = 0.0
        for turn, say in self.turns.items():
            spoken = await self.rec.until(
                Spoken, lambda m, t=turn, s=say: m.turn == t and m.text == s.text, 60
            )
            last = max(last, spoken.ts)
            assert not [m for m in self.rec.of(SpeakRequest, turn) if m.src == "watchdog"]
        return last


def test_whisper_server_faults(assistant: Assistant) -> None:
    whisper: Whisper = assistant.whisper  # type: ignore[attr-defined]

    async def body(voice: Voice, rec: Recorder) -> None:
        faults = Faults(rec)
        whisper.stop()
        say = await faults.fault("whisper refused", "stt", "stt-unavailable")
        assert say.text == "Sorry, I could not understand that."
        whisper.start()
        whisper.script(status=500, error="failed to process audio")
        await faults.fault("whisper 500", "stt", "stt-failed")
        whisper.script(text=" Late.\n", delay=4)
        await faults.fault("whisper slow", "stt", "stt-unavailable")
        while whisper.answered() < 2:  # the slow one holds whisper's one inference slot
            await asyncio.sleep(0.05)  # polling its log, within the test's timeout
        whisper.script(cut=True)
        await faults.fault("whisper broken answer", "stt", "stt-unavailable")
        whisper.script(raw="<html><body>502 Bad Gateway</body></html>")
        await faults.fault("whisper garbage", "stt", "stt-failed")
        whisper.script(text=f" {QUESTION}\n")
        await voice.quiet(await faults.all_spoken())
        await voice.answered()

    run(assistant, body)


def test_llm_server_faults(assistant: Assistant) -> None:
    async def body(voice: Voice, rec: Recorder) -> None:
        faults = Faults(rec)
        port = assistant.llm.port
        assistant.llm.stop()
        say = await faults.fault("LLM refused", "dialogue", "llm-unavailable", text=True)
        assert f"port {port}" in say.text
        assistant.llm = ScriptedLLM(port=port)
        assistant.llm.start()
        assistant.llm.script(c.http_error(500, "boom"))
        await faults.fault("LLM 500", "dialogue", "llm-error", text=True)
        assistant.llm.script({"stream": [{"gate": "slow"}, *c.text("Too late.")["stream"]]})
        say = await faults.fault("LLM slow", "dialogue", "llm-timeout", text=True)
        assert "too long" in say.text
        assistant.llm.gate("slow").set()
        assistant.llm.script({"stream": [*c.text_items("It is sunny. And then"), {"cut": True}]})
        broken = await faults.fault("LLM stream broken", "dialogue", "llm-error", text=True)
        assistant.llm.script({"stream": [{"raw": "data: {this is not json\n\n"}]})
        await faults.fault("LLM garbage", "dialogue", "llm-error", text=True)
        await voice.quiet(await faults.all_spoken())
        pieces = [m.text for m in rec.of(Spoken, broken.turn)]
        assert pieces == ["It is sunny.", broken.text]  # the half sentence is not spoken
        await voice.answered()

    run(assistant, body)


def test_tool_faults(assistant: Assistant) -> None:
    cases = [
        ("hang", "error: timed out after 2 s"),
        ("flood", "error: output passed 65536 bytes, the tool was stopped"),
        ("fail", "error: exit status 3: fail: the service said no"),
    ]

    async def body(voice: Voice, rec: Recorder) -> None:
        last = 0.0
        for name, error in cases:
            FAULTS.append(f"tool {name}")
            answer = f"Sorry, the {name} tool failed."
            assistant.llm.script(c.tool_calls([c.call(name)]), c.text(answer))
            turn = new_id()
            rec.bus.publish(Transcript(text=QUESTION, lang="en", turn=turn))
            reply = await rec.until(Reply, lambda m, t=turn: m.reply_to == t, 30)
            assert (reply.text, reply.error) == (answer, None)  # the model said it
            result = assistant.llm.requests[-1]["messages"][-1]
            assert (result["role"], result["content"]) == ("tool", error)
            spoken = await rec.until(
                Spoken, lambda m, t=turn, a=answer: m.turn == t and m.text == a, 60
            )
            last = spoken.ts
        await voice.quiet(last)
        await voice.answered()

    run(assistant, body)
