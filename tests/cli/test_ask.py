"""``desktop-assistant ask`` against a real broker and dialogue process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from bus.client import Bus
from bus.messages import Heartbeat
from services.dialogue.requests import MAX_QUESTION
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.broker import running_broker
from tests.helpers.busrun import with_buses
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.polling import until
from tests.helpers.processes import ROOT, Process, python_env


def ask(folder: ConfigFolder, *args: str) -> subprocess.CompletedProcess[str]:
    return cli(folder, "ask", *args)


def start_ask(folder: ConfigFolder, *args: str) -> subprocess.Popen[str]:
    """``desktop-assistant ask ARGS`` running, its output on pipes."""
    return subprocess.Popen(
        [sys.executable, "-m", "desktop_assistant", "ask", *args, *folder.args()],
        cwd=ROOT,
        env=python_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli(folder: ConfigFolder, *args: str) -> subprocess.CompletedProcess[str]:
    """``desktop-assistant ARGS`` with the config folder, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "desktop_assistant", *args, *folder.args()],
        cwd=ROOT,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def dialogue(
    broker: Process, config_folder: ConfigFolder, llm: ScriptedLLM, log_dir: Path
) -> Iterator[Process]:
    config_folder.write(f'llm = "{llm.url}"\n[dialogue]\nmodel = "m"\n')
    with running_dialogue(config_folder, log_dir) as proc:
        yield proc


@contextlib.contextmanager
def running_dialogue(
    config_folder: ConfigFolder, log_dir: Path, env: dict[str, str] | None = None
) -> Iterator[Process]:
    """``python -m services.dialogue`` on the folder's config, once it reported ready."""
    proc = Process("services.dialogue", *config_folder.args(), log_dir=log_dir, env=env)

    async def ready(bus: Bus) -> None:
        await bus.wait_for(Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", 20)

    try:
        with_buses(config_folder.endpoints, ["probe"], ready)
        yield proc
    finally:
        proc.stop()


def test_ask_prints_the_reply_and_keeps_the_session(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Hello ", "there."), c.text("Still here."), c.text("New."))
    done = ask(config_folder, "Hi", "you")
    assert (done.returncode, done.stdout) == (0, "Hello there.\n")
    done = ask(config_folder, "--json", "Again")
    assert json.loads(done.stdout) == {
        "conversation": "Still here.", "control": [], "confirmation": ""
    }
    ask(config_folder, "--session", "other", "Who?")
    assert [m["content"] for m in llm.requests[1]["messages"][1:]] == [
        "Hi you",
        "Hello there.",
        "Again",
    ]
    assert [m["content"] for m in llm.requests[2]["messages"][1:]] == ["Who?"]


def test_a_failed_turn_prints_the_apology_and_exits_1(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    llm.script(c.http_error(500, "boom"))
    done = ask(config_folder, "--lang", "it", "Ciao")
    assert done.returncode == 1
    assert done.stdout.startswith("Scusa")
    assert "llm-error" in done.stderr


def test_a_question_longer_than_the_dialogue_reads_is_refused_with_exit_2(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    """The dialogue's cap, the one /ask and /v1/chat/completions meet too: the words on
    stderr, nothing on stdout, the LLM not asked."""
    llm.script(c.text("Read it all."))
    done = ask(config_folder, "x" * (MAX_QUESTION + 1))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"ask: the question is {MAX_QUESTION + 1:,} characters long, more than the "
        f"{MAX_QUESTION:,} the assistant reads: ask it in fewer words\n"
    )
    assert llm.requests == []


def test_without_a_dialogue_service_it_says_so(
    broker: Process, config_folder: ConfigFolder
) -> None:
    done = ask(config_folder, "Hi")
    assert done.returncode == 3
    assert "no dialogue service on the bus" in done.stderr


def test_without_a_broker_it_says_so(config_folder: ConfigFolder) -> None:
    done = ask(config_folder, "Hi")
    assert done.returncode == 3
    assert "no bus broker answers" in done.stderr


def test_an_empty_question_is_refused(config_folder: ConfigFolder) -> None:
    done = ask(config_folder, "  ")
    assert done.returncode == 2 and "empty" in done.stderr


def test_a_dialogue_that_dies_while_answering_is_an_error_at_once(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    llm.script({"stream": [{"gate": "held"}, *c.text("Too late.")["stream"]]})
    asking = start_ask(config_folder, "Hi")
    llm.wait_requests(1, timeout=30)
    dialogue.kill()
    out, err = asking.communicate(timeout=30)  # not the 120 s of [brain] timeout
    llm.gate("held").set()
    assert asking.returncode == 3, err
    # Killed before the CLI heard its first heartbeat (a loaded machine), the dialogue
    # counts as never seen; either way the CLI gives up at once instead of waiting.
    assert ("the dialogue service sent no heartbeat" in err and "ask again" in err) or (
        "no dialogue service on the bus" in err
    )


def answered_in_history(state: Path, text: str) -> bool:
    """The dialogue saved ``text`` in a session's history (it does so before the Reply)."""
    folder = state / "desktop-assistant" / "history"
    return folder.is_dir() and any(text in f.read_text() for f in folder.iterdir())


def test_an_answer_lost_in_a_broker_restart_is_asked_for_again(
    dialogue: Process,
    broker: Process,
    config_folder: ConfigFolder,
    llm: ScriptedLLM,
    log_dir: Path,
) -> None:
    """The broker dies while the dialogue answers, and the CLI is stopped until the new broker
    has passed on (to nobody) the Reply the dialogue queued meanwhile: the answer is lost.
    After the restart the CLI sends the same question again and the dialogue, which answers a
    repeated id once, sends the Reply it kept; before, the CLI blamed the dialogue's silence
    during the outage or waited out the whole timeout."""
    llm.script({"stream": [{"gate": "held"}, *c.text("Answered anyway.")["stream"]]})
    asking = start_ask(config_folder, "Hi")
    try:
        llm.wait_requests(1, timeout=30)
        with_buses(config_folder.endpoints, ["probe"], heard_beating)  # the CLI heard them too
        os.kill(asking.pid, signal.SIGSTOP)
        broker.kill()
        llm.gate("held").set()
        answered = lambda: answered_in_history(log_dir / "state", "Answered anyway.")  # noqa: E731
        asyncio.run(until(answered, "the dialogue answered", timeout=30))
        with running_broker(config_folder.path, config_folder.endpoints, log_dir):
            # the dialogue beats through the new broker: what it queued before went by
            with_buses(config_folder.endpoints, ["probe"], heard_beating)
            os.kill(asking.pid, signal.SIGCONT)
            out, err = asking.communicate(timeout=60)  # [brain] timeout is 120 s
    finally:
        asking.kill()
    assert (asking.returncode, out) == (0, "Answered anyway.\n"), err
    assert len(llm.requests) == 1  # the resent question was not asked of the LLM again


async def heard_beating(bus: Bus) -> None:
    """Until a heartbeat of the broker and one of the dialogue have come by."""
    for service in ("broker", "dialogue"):
        await bus.wait_for(Heartbeat, lambda h, s=service: h.service == s, timeout=10)


def test_a_broker_that_stops_while_asking_is_named(
    dialogue: Process, broker: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    llm.script({"stream": [{"gate": "held"}, *c.text("Too late.")["stream"]]})
    asking = start_ask(config_folder, "Hi")
    try:
        llm.wait_requests(1, timeout=30)
        with_buses(config_folder.endpoints, ["probe"], heard_beating)  # the CLI heard them too
        broker.kill()
        out, err = asking.communicate(timeout=60)
    finally:
        asking.kill()
        llm.gate("held").set()
    assert asking.returncode == 3, err
    assert "the bus broker sent no heartbeat" in err and "not running" in err
    assert "dialogue service sent no heartbeat" not in err


def read_until(stream: IO[str], text: str, timeout: float = 30.0) -> str:
    """What ``stream`` (a pipe) gave until ``text`` was in it, read as it comes."""
    fd = stream.fileno()
    got = b""
    while text.encode() not in got:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"no {text!r} within {timeout:g} s, only {got!r}"
        chunk = os.read(fd, 4096)
        assert chunk, f"the output ended before {text!r}: {got!r}"
        got += chunk
    return got.decode()


def test_the_reply_is_printed_as_it_is_written(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    """The first words are on the screen while the model still holds the rest."""
    first = c.text_items("Hello ")  # the role, then the first words
    rest = c.text("there.")["stream"][1:]
    llm.script({"stream": [*first, {"gate": "held"}, *rest]})
    asking = start_ask(config_folder, "Hi")
    try:
        assert asking.stdout is not None
        early = read_until(asking.stdout, "Hello")
        assert early == "Hello"  # its trailing space held back until more words come
        llm.gate("held").set()
        out, err = asking.communicate(timeout=60)
    finally:
        asking.kill()
        llm.gate("held").set()
    assert (asking.returncode, early + out) == (0, "Hello there.\n"), err


def test_no_stream_prints_the_whole_reply_once(
    dialogue: Process, config_folder: ConfigFolder, llm: ScriptedLLM
) -> None:
    llm.script(c.text("Hello ", "there."), c.text("Ciao."))
    done = ask(config_folder, "--no-stream", "Hi")
    assert (done.returncode, done.stdout) == (0, "Hello there.\n")
