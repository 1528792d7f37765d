"""Driving the whole assistant in fault tests: spoken questions, their answers, the pids."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bus.messages import Speaking, SpeakRequest, SpeechStarted, Spoken, Transcript
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.speech import padded
from tests.helpers.words import words

QUESTION = "What is the weather like in Rome tomorrow?"
SECOND = "Set a timer for ten minutes."


def hang_tool(assistant: Assistant, seconds: int = 60, timeout: int = 30) -> Path:
    """A tool that writes its pid to ``hang.pid`` in the state folder and sleeps."""
    pid_file = assistant.root / "hang.pid"
    tools = assistant.folder / "tools"
    (tools / "hang.py").write_text(
        "#!/usr/bin/env python3\nimport os, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep({seconds})\n"
    )
    (tools / "hang.py").chmod(0o755)
    (tools / "hang.toml").write_text(
        f'description = "Waits."\ncommand = ["hang.py"]\ntimeout = {timeout}\n'
    )
    return pid_file


class Voice:
    """Questions played into the virtual card, and what the assistant did with them."""

    def __init__(self, assistant: Assistant, rec: Recorder) -> None:
        assert assistant.card is not None
        self.assistant = assistant
        self.card = assistant.card
        self.rec = rec
        self.playing: asyncio.Future[None] | None = None

    def play(self, question: str) -> float:
        """Start playing ``question`` (after some silence); the time it started."""
        wav, _ = padded(question, self.assistant.root)
        self.playing = asyncio.ensure_future(asyncio.to_thread(self.card.play, wav))
        return time.time()

    async def heard(self, since: float, timeout: float = 30.0) -> str:
        """The turn of the first speech heard after ``since``."""
        started = await self.rec.until(SpeechStarted, lambda m: m.ts >= since, timeout)
        assert started.turn is not None
        return started.turn

    async def played(self) -> None:
        if self.playing is not None:
            await self.playing
            self.playing = None

    async def quiet(self, after: float, timeout: float = 60.0) -> None:
        """Until the speaker reports silence after ``after`` (the mic listens again)."""
        await self.rec.until(Speaking, lambda m: not m.speaking and m.ts > after, timeout)

    async def apology(self, turn: str, timeout: float = 30.0) -> Spoken:
        """The watchdog's apology for ``turn``, spoken in full."""
        say = await self.rec.until(
            SpeakRequest,
            lambda m: m.turn == turn and m.kind == "error" and m.src == "watchdog",
            timeout,
        )
        assert say.final
        spoken = await self.rec.until(
            Spoken, lambda m: m.turn == turn and m.text == say.text, timeout
        )
        await self.quiet(spoken.ts)
        return spoken

    async def answered(
        self, question: str = QUESTION, answer: str = "Sunny, twenty degrees."
    ) -> str:
        """A question that goes right: heard, transcribed, answered, spoken; its turn."""
        self.assistant.llm.script(c.text(answer))
        turn = await self.heard(self.play(question))
        transcript = await self.rec.until(Transcript, lambda m: m.turn == turn, 60)
        # The words, not Whisper's accuracy on a machine loaded by the other tests, are checked.
        heard = set(words(transcript.text)) & set(words(question))
        assert len(heard) >= len(set(words(question))) / 2, transcript.text
        spoken = await self.rec.until(Spoken, lambda m: m.turn == turn and m.text == answer, 60)
        await self.played()
        await self.quiet(spoken.ts)
        asked = [m for m in self.assistant.llm.requests[-1]["messages"] if m["role"] == "user"]
        assert asked[-1]["content"] == transcript.text
        return turn


def pids(assistant: Assistant) -> dict[str, int]:
    return {name: proc.pid for name, proc in assistant.processes.items()}
