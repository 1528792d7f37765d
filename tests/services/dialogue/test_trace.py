"""One snapshot of everything a voice turn with a tool round publishes, in order."""

from __future__ import annotations

from bus.endpoints import Endpoints
from bus.message import Message
from bus.messages import ActionRequest, Reply, SpeakRequest, ToolRequest, ToolResult, TraceMark
from tests.helpers import llm_chunks as c
from tests.helpers.llm_server import ScriptedLLM
from tests.services.dialogue.harness import Harness, run
from tests.services.dialogue.test_announce_history import WEATHER


def summary(msg: Message) -> str:
    if isinstance(msg, TraceMark):
        return f"mark {msg.stage} {msg.detail}".rstrip()
    if isinstance(msg, SpeakRequest):
        return f"say {msg.seq} {msg.kind} {msg.text!r}{' final' if msg.final else ''}"
    if isinstance(msg, ActionRequest):
        return f"control {msg.actions[0]['direction']}"
    if isinstance(msg, ToolRequest):
        return f"call {msg.name} {msg.arguments}"
    if isinstance(msg, ToolResult):
        return f"result {msg.name} {msg.content!r}"
    if isinstance(msg, Reply):
        return f"reply {msg.text!r} {msg.control}"
    return msg.TOPIC


def test_snapshot_of_a_voice_turn(module_broker: Endpoints, llm: ScriptedLLM) -> None:
    llm.script(
        c.tool_calls([c.call("weather", place="Rome"), c.call("adjust_volume", direction="up")]),
        c.text("Sunny in Rome, ", "24 degrees. ", "Louder now."),
    )

    async def body(h: Harness) -> None:
        h.client.subscribe("tools.")
        await h.client.wait_path(h.service.bus)
        h.audio_output_alive()
        turn = h.say("Weather in Rome, and louder please")
        record = await h.reply(turn)
        await h.next(TraceMark, lambda m: m.turn == turn and m.stage == "turn.done")
        messages = [m for m in h.seen if m.turn == turn and m.TOPIC != "tools.catalog"]
        assert [summary(m) for m in messages[:-1]] == [
            "mark llm.request round 0",
            "mark llm.first_token round 0",
            "mark llm.done round 0 tool_calls",
            "say 0 announce 'Let me look outside.'",  # random.choice, seeded
            'call weather {"place": "Rome"}',
            "result weather 'Rome: sunny'",
            "control up",
            "mark llm.request round 1",
            "mark llm.first_token round 1",
            "say 1 answer 'Sunny in Rome, 24 degrees.'",
            "mark llm.done round 1 stop",
            "say 2 answer 'Louder now.' final",
            "reply 'Sunny in Rome, 24 degrees. Louder now.' "
            "[{'type': 'adjust_volume', 'direction': 'up'}]",
        ]
        done = messages[-1]
        assert isinstance(done, TraceMark) and record.reply is messages[-2]
        assert done.stage == "turn.done"
        assert {"overhead_ms", "overhead_cpu_ms", "llm_ms", "tools_ms", "queue_ms"} == {
            part.split("=")[0] for part in done.detail.split()
        }

    run(module_broker, llm, body, tools=[WEATHER], results={"weather": "Rome: sunny"})
