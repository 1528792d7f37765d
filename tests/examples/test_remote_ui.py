"""The remote voice UI example against a running brain (real processes), and its volume rules."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from examples.remote_ui.app import VoiceApp
from examples.remote_ui.remote_chat import RemoteChat
from examples.remote_ui.volume import VolumeControl
from tests.helpers import llm_chunks as c
from tests.helpers.dialogue_stack import Stack, fresh, running
from tests.helpers.ports import free_port


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with running([]) as started:
        yield started


@pytest.fixture
def brain(stack: Stack) -> Iterator[Stack]:
    with fresh(stack):
        yield stack


class LoseFirstResponse(httpx.HTTPTransport):
    """The first request reaches the brain, but its response is lost on the way back."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[bytes] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.bodies.append(request.read())
        if len(self.bodies) == 1:
            response.read()
            raise httpx.ReadError("connection reset", request=request)
        return response


def test_ask_health_and_clear_history(brain: Stack) -> None:
    brain.llm.script(c.text("Hello."), c.text("Again."))
    with RemoteChat(brain.url, session_id="ui") as chat:
        chat.health()
        assert chat.ask("Hi") == ("Hello.", [])
        chat.clear_history()
        assert chat.ask("Hi") == ("Again.", [])
    assert brain.llm.requests[1]["messages"][1:] == [{"role": "user", "content": "Hi"}]
    assert brain.llm.requests[0]["tools"][0]["function"]["name"] == "adjust_volume"


def test_a_lost_response_is_retried_with_the_same_request_id(brain: Stack) -> None:
    brain.llm.script(c.text("Only once."))
    transport = LoseFirstResponse()
    with RemoteChat(brain.url, session_id="ui", transport=transport) as chat:
        assert chat.ask("Hi") == ("Only once.", [])
    first, second = transport.bodies
    assert first == second  # same request_id
    assert len(brain.llm.requests) == 1  # the brain answered the retry without a second turn


def test_two_failures_raise_the_last_error() -> None:
    with RemoteChat(f"http://127.0.0.1:{free_port()}", session_id="ui") as chat:
        with pytest.raises(httpx.ConnectError):
            chat.ask("Hi")


def test_volume_by_voice_through_the_brain(brain: Stack) -> None:
    up = c.tool_calls([c.call("adjust_volume", direction="up")])
    brain.llm.script(up, c.text("大きくしました。"), up, c.text(""), up, c.text("大きくしました。"))
    spoken: list[tuple[str, float]] = []
    with RemoteChat(brain.url, session_id="vol") as chat:
        volume = VolumeControl(volume=1.8)
        app = VoiceApp(chat, volume, lambda text, vol: spoken.append((text, vol)))
        assert app.turn("もっと大きく")
        assert app.turn("もっと大きく")  # an empty reply with a control: silent, and it goes on
        assert app.volume.volume == 2.0
        assert app.turn("もっと大きく")  # clamped: the model's words would be wrong
    assert spoken == [("大きくしました。", 1.9), ("これ以上大きくできません", 2.0)]


def test_volume_steps_clamp_and_ignore_bad_actions() -> None:
    volume = VolumeControl(volume=0.1, lang="en")
    assert volume.apply_control_actions([{"type": "adjust_volume", "direction": "down"}]) is None
    assert volume.volume == 0.0
    assert volume.apply_control_actions([{"type": "adjust_volume", "direction": "down"}]) == (
        "It can't go any quieter."
    )
    for _ in range(20):
        volume.apply_control_actions([{"type": "adjust_volume", "direction": "up"}])
    assert volume.volume == 2.0
    assert (
        volume.apply_control_actions(
            [{"type": "dim_lights"}, {"type": "adjust_volume", "direction": "sideways"}, "junk"]
        )
        is None
    )
    assert volume.volume == 2.0


def test_an_unreachable_brain_is_spoken_and_ends_the_conversation() -> None:
    spoken: list[str] = []
    with RemoteChat(f"http://127.0.0.1:{free_port()}", session_id="x") as chat:
        app = VoiceApp(chat, VolumeControl(), lambda text, vol: spoken.append(text))
        assert not app.turn("Hi")
    assert spoken == ["The assistant is not reachable (ConnectError)."]
