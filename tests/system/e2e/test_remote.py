"""A remote voice UI (``RemoteChat`` and the turn logic of ``examples/remote_ui``) talking to
the whole assistant over the brain's HTTP API: the real tools answer, and the UI speaks, not
this machine."""

from __future__ import annotations

import asyncio
from uuid import uuid4

from bus.messages import (
    ActionRequest,
    QuestionRequest,
    Reply,
    Speaking,
    SpeakRequest,
    ToolResult,
    VolumeState,
)
from examples.remote_ui.app import VoiceApp
from examples.remote_ui.remote_chat import RemoteChat
from examples.remote_ui.volume import VolumeControl
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Recorder
from tests.helpers.hearing import says_time
from tests.system.e2e.world import World, clock, script_tool_turn


def test_a_remote_voice_ui_gets_the_time_and_the_volume_control(world: World) -> None:
    assistant = world.assistant
    session = f"ui-{uuid4()}"
    said: list[tuple[str, float]] = []

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            with RemoteChat(assistant.brain_url, session_id=session) as chat:
                await asyncio.to_thread(chat.health)
                app = VoiceApp(chat, VolumeControl(lang="en"), lambda t, v: said.append((t, v)))

                script_tool_turn(world, "now", "It is {}.")
                asked = clock()
                assert await asyncio.to_thread(app.turn, "What time is it?")
                answered = clock()
                ask = await rec.until(QuestionRequest, lambda a: a.session == f"brain:{session}")
                time_turn = ask.turn or ask.id
                result = await rec.until(ToolResult, lambda r: r.turn == time_turn)
                assert (result.name, result.ok) == ("now", True)
                assert said == [(f"It is {result.content}.", 1.0)]
                assert says_time(said[0][0], asked, answered)

                assistant.llm.reset()
                assistant.llm.script(
                    c.tool_calls([c.call("adjust_volume", direction="up")]), c.text("Okay.")
                )
                assert await asyncio.to_thread(app.turn, "Louder, please.")
                assert said[1] == ("Okay.", 1.1)  # the UI's own volume, applied before speaking
                second = await rec.until(QuestionRequest, lambda a: a.id != ask.id)
                volume_turn = second.turn or second.id

            await rec.drain(1.0)
            for turn in (time_turn, volume_turn):
                (reply,) = [r for r in rec.of(Reply) if r.turn == turn]
                assert reply.session == f"brain:{session}"
                # A remote client speaks its answers itself: nothing is played here, and the
                # local speaker's volume is not the remote one's.
                assert not [
                    m for m in rec.seen
                    if m.turn == turn
                    and isinstance(m, SpeakRequest | Speaking | ActionRequest | VolumeState)
                ]

    asyncio.run(scenario())
