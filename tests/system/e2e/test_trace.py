"""``desktop-assistant tap --turns`` on the whole system: one line per spoken turn, with the
time of each stage from the end of speech, built from bus messages alone."""

from __future__ import annotations

import asyncio
import json
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bus.messages import SpeechEnded, ToolCatalog, ToolCatalogRequest, ToolResult
from tests.helpers.assistant import Assistant, Recorder
from tests.helpers.processes import ROOT, python_env
from tests.system.e2e.world import VoiceTurn, World, script_tool_turn, voice_turn


class Tap:
    """``desktop-assistant tap ARGS`` as a process, its stdout read line by line."""

    def __init__(self, assistant: Assistant, *args: str) -> None:
        self.proc = subprocess.Popen(
            assistant.cli_command("tap", *args), cwd=ROOT,
            env={**python_env(assistant.env()), "PYTHONFAULTHANDLER": "1"},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.errors: queue.SimpleQueue[str] = queue.SimpleQueue()
        for stream, into in ((self.proc.stdout, self.lines), (self.proc.stderr, self.errors)):
            threading.Thread(target=_pump, args=(stream, into), daemon=True).start()

    def wait_listening(self, timeout: float = 30.0) -> None:
        """Until the tap says it is subscribed and connected (so it misses nothing)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.errors.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the tap never said it was listening") from None
            if line.startswith("tap: listening"):
                return

    def next_line(self, timeout: float = 30.0) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the tap printed nothing within {timeout} s") from None

    def stop(self) -> int:
        started = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler: where it hangs, on stderr
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            time.sleep(0.5)  # the pump thread's last lines
            errors = []
            while not self.errors.empty():
                errors.append(self.errors.get())
            raise AssertionError("the tap did not stop on SIGINT:\n" + "\n".join(errors)) from None
        self.stop_seconds = time.monotonic() - started
        return code


def _pump(stream: object, into: queue.SimpleQueue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line.rstrip("\n"))


def json_lines_until(tap: Tap, last: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The tap's lines, each read as JSON (a liveness line has no topic: left out), up to the
    first that is ``last``."""
    read: list[dict[str, Any]] = []
    while not read or not last(read[-1]):
        message = json.loads(tap.next_line())
        if "topic" in message:
            read.append(message)
    return read


@contextmanager
def tapping(assistant: Assistant, *args: str) -> Iterator[Tap]:
    tap = Tap(assistant, *args)
    try:
        tap.wait_listening()
        yield tap
    finally:
        assert tap.stop() == 0


def test_tap_turns_shows_each_stage_of_a_spoken_turn(world: World) -> None:
    assistant = world.assistant
    script_tool_turn(world, "now", "It is {}.")
    with (tapping(assistant, "--turns") as text, tapping(assistant, "--turns", "--json") as js,
          tapping(assistant, "--json") as every):

        async def scenario() -> tuple[VoiceTurn, SpeechEnded, ToolResult, str]:
            async with Recorder(assistant) as rec:
                turn = await voice_turn(assistant, rec, "What time is it?", quiet=0.5)
                ended = await rec.until(SpeechEnded, lambda m: m.turn == turn.turn)
                result = await rec.until(ToolResult, lambda m: m.turn == turn.turn)
                # A tool catalog for the plain JSON tap, which died on the first one it saw.
                request = ToolCatalogRequest()
                rec.bus.publish(request)
                await rec.until(ToolCatalog, lambda m: m.reply_to == request.id)
                return turn, ended, result, request.id

        spoken, ended, result, asked = asyncio.run(scenario())
        turn = spoken.turn
        line = text.next_line()
        record = json.loads(js.next_line())
        traced = json_lines_until(every, lambda m: m.get("reply_to") == asked)

    # Every message of the turn, and the tool catalog, as JSON objects with their fields.
    topics = {m["topic"] for m in traced if m.get("turn") == turn}
    assert {"stt.transcript", "tools.call", "tools.result", "dialogue.reply",
            "tts.spoken"} <= topics, topics
    catalog = traced[-1]
    assert catalog["topic"] == "tools.catalog" and any(
        spec["name"] == "now" for spec in catalog["tools"]), catalog

    assert line.startswith(f"turn {turn} 'What time is it?': "), line
    stages = record["stages"]
    assert record["turn"] == turn and record["text"] == "What time is it?"
    assert record["error"] is None
    if "speculation.confirmed" in stages:  # answered from the STT's guess: in the window
        assert stages["guess"] < stages["transcript"]
        assert stages["guess"] < stages["llm.first_token"]
    else:  # the guess came after the window closed (a busy machine): none was used
        assert stages["transcript"] < stages["llm.first_token"]
    # Everything the user hears waited for the transcript.
    order = ["transcript", "say", "playing", "quiet"]
    assert [s for s in stages if s in order] == order, stages
    times = [stages[s] for s in order]
    assert times == sorted(times) and times[0] > 0, stages
    ((tool),) = record["tools"]
    assert (tool["name"], tool["ok"]) == ("now", True)
    assert stages["llm.first_token"] <= tool["start"] <= stages["say"], record
    assert stages["transcript"] <= tool["start"], record  # no tool runs on a guess
    assert abs(tool["duration"] - result.duration) < 0.002
    # Times count from the end of speech, which the mic stamped.
    assert ended.speech_end == spoken.transcript.speech_end > 0
    since_speech = spoken.transcript.ts - ended.speech_end
    assert abs(stages["transcript"] - since_speech) < 0.002, (stages, since_speech)

    # The text line says the same, in the order things happened.
    shown = re.findall(r"(tool now|[a-z_.]+) (\d+\.\d\d)s", line)
    names = [name for name, _ in shown]
    assert names.index("transcript") < names.index("tool now")
    if "guess" in names:  # a guess before the end of speech shows a negative time
        assert names.index("guess") < names.index("transcript")
    assert names.index("llm.first_token") < names.index("tool now")
    assert names.index("tool now") < names.index("say") < names.index("playing")
    for name, seconds in shown:
        expected = tool["start"] if name == "tool now" else stages[name]
        assert abs(float(seconds) - expected) < 0.006, (name, seconds, line)
