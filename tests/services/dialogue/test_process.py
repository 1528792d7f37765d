"""The real ``python -m services.dialogue`` process: no LLM at first, then one appears."""

from __future__ import annotations

from pathlib import Path

from bus.client import Bus
from bus.message import new_id
from bus.messages import Heartbeat, QuestionRequest, Reply, SpeakRequest, Transcript
from tests.conftest import ConfigFolder
from tests.helpers import llm_chunks as c
from tests.helpers.busrun import with_buses
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.ports import free_port
from tests.helpers.processes import Process


async def ask(bus: Bus, text: str) -> Reply:
    request = QuestionRequest(session="cli", text=text)
    return await bus.request(request, Reply, 10)


def test_the_service_process_waits_for_an_llm_without_restarting(
    broker: Process, config_folder: ConfigFolder, log_dir: Path
) -> None:
    port = free_port()
    config_folder.write(f'llm = "http://127.0.0.1:{port}/v1"\n[dialogue]\nmodel = "m"\n')
    service = Process("services.dialogue", *config_folder.args(), log_dir=log_dir)

    async def body(client: Bus) -> None:
        client.subscribe("tts.say")
        started = await client.wait_for(
            Heartbeat, lambda h: h.service == "dialogue" and h.state == "degraded", 20
        )
        assert f"127.0.0.1:{port}" in started.detail  # found by the start-up check
        reply = await ask(client, "Hello?")
        assert reply.error == "llm-unavailable"
        assert f"port {port}" in reply.text
        degraded = await client.wait_for(Heartbeat, lambda h: h.service == "dialogue", 5)
        assert degraded.state == "degraded" and f"127.0.0.1:{port}" in degraded.detail
        with ScriptedLLM(port=port) as llm:
            llm.script(c.text("Here. ", "Now."), c.text("Spoken."))
            reply = await ask(client, "Hello?")
            assert (reply.text, reply.error) == ("Here. Now.", None)
            await client.wait_for(  # and it says so: the degraded state ends
                Heartbeat, lambda h: h.service == "dialogue" and h.state == "ready", 10
            )
            turn = new_id()
            client.publish(Transcript(text="Speak", lang="en", turn=turn))
            say = await client.wait_for(SpeakRequest, lambda s: s.turn == turn and s.final, 10)
            assert say.text == "Spoken."

    try:
        with_buses(config_folder.endpoints, ["client"], body)
    finally:
        code = service.stop()
    log = service.log_path.read_text()
    assert code == 0, log
    # What the user reads in the log to fix it: the key and the file to set it in.
    assert f"set `llm` in {config_folder.path / 'config.toml'}" in log
