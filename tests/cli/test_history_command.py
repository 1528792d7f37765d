"""``desktop-assistant history clear`` against a real broker and dialogue process."""

from __future__ import annotations

import subprocess

from bus.client import Bus
from bus.message import new_id
from bus.messages import Reply, Transcript
from tests.cli.test_ask import ask, cli, dialogue, llm  # noqa: F401 (fixtures)
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.busrun import with_buses
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import Process


def history(folder: ConfigFolder, *args: str) -> subprocess.CompletedProcess[str]:
    return cli(folder, "history", *args)


def voice_turn(folder: ConfigFolder, text: str) -> None:
    """A transcript as the STT would send it; returns once its turn is answered."""

    async def body(stt: Bus) -> None:
        stt.subscribe(Reply.TOPIC)
        await stt.wait_connected()
        turn = new_id()
        stt.publish(Transcript(text=text, lang="en", turn=turn))
        await stt.wait_for(Reply, lambda r: r.reply_to == turn, 20)

    with_buses(folder.endpoints, ["stt"], body)


def contents(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages[1:]]


def test_clear_forgets_the_voice_session_by_default(
    dialogue: Process,  # noqa: F811
    config_folder: ConfigFolder,
    llm: ScriptedLLM,  # noqa: F811
) -> None:
    llm.script(c.text("One."), c.text("Two."), c.text("Three."))
    voice_turn(config_folder, "First")
    ask(config_folder, "--session", "cli", "Typed")
    done = history(config_folder, "clear")
    assert (done.returncode, done.stdout) == (0, "history of session local cleared\n")
    voice_turn(config_folder, "Again")
    assert contents(llm.requests[2]) == ["Again"]  # "First" and "One." are forgotten

    done = history(config_folder, "clear", "--session", "cli")
    assert done.returncode == 0
    llm.script(c.text("Four."))
    ask(config_folder, "--session", "cli", "Typed again")
    assert contents(llm.requests[3]) == ["Typed again"]


def test_without_a_dialogue_service_it_says_so(
    broker: Process, config_folder: ConfigFolder
) -> None:
    done = history(config_folder, "clear", "--http", "s1")
    assert done.returncode == 3
    assert "no dialogue service confirmed" in done.stderr
