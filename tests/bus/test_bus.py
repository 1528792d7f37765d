"""The bus through a real broker process on ipc: delivery, bad input, restarts, requests."""

from __future__ import annotations

import asyncio
import dataclasses

import msgpack
import pytest

from bus.client import Bus, RequestTimeout
from bus.messages import QuestionRequest, Reply, SpeakRequest, ToolRequest, ToolResult, Utterance
from bus.registry import registered
from tests.bus.test_registry import sample
from tests.conftest import ConfigFolder
from tests.helpers.broker import wait_broker
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def test_every_type_round_trips_through_the_broker(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(sender: Bus, receiver: Bus) -> None:
        receiver.subscribe("")
        await receiver.wait_path(sender)
        sent = [sample(cls) for cls in registered().values() if cls.TOPIC != "sys.probe"]
        for msg in sent:
            sender.publish(msg)
        got = []
        while len(got) < len(sent):
            msg = await receiver.recv(timeout=5)
            assert msg is not None, f"only {len(got)} of {len(sent)} arrived"
            if msg.TOPIC != "sys.heartbeat" or msg.src == "sender":
                got.append(msg)
        assert got == [dataclasses.replace(m, src="sender") for m in sent]

    with_buses(config_folder.endpoints, ["sender", "receiver"], body)


MALFORMED = [
    [b"tools.call"],
    [b"tools.call", b"{}", b"extra"],
    [b"nope.topic", msgpack.packb({})],
    [b"tools.call", b"\xc1\xc1"],
    [b"tools.call", msgpack.packb({"id": 5, "name": "x", "arguments": "{}"})],
    [b"tools.call", msgpack.packb({"name": "x"})],
    [b"tools.call", b"\x00" * (9 * 1024 * 1024)],
]


def test_malformed_messages_are_reported_and_dropped(
    broker: Process, config_folder: ConfigFolder
) -> None:
    invalid: list[str] = []

    async def body(sender: Bus, receiver: Bus) -> None:
        receiver.subscribe("tools.call", "nope")
        await receiver.wait_path(sender)
        for frames in MALFORMED:
            sender.send_raw(frames)
            sender.publish(ToolRequest(name="ok", arguments="{}"))
        valid = []
        while len(valid) < len(MALFORMED):
            msg = await receiver.recv(timeout=5)
            assert msg is not None
            valid.append(msg)
        assert all(isinstance(m, ToolRequest) and m.name == "ok" for m in valid)

    with_buses(
        config_folder.endpoints,
        ["sender", "receiver"],
        body,
        on_invalid=lambda frames, err: invalid.append(err.reason),
    )
    # The oversized message never reaches the subscriber: the broker cuts the
    # publisher off at MAXMSGSIZE, and the publisher reconnects.
    assert len(invalid) >= len(MALFORMED) - 1


def test_broker_restart_resumes_publishers_and_subscribers(
    config_folder: ConfigFolder, log_dir: object
) -> None:
    first = Process("bus", *config_folder.args(), log_dir=log_dir)  # type: ignore[arg-type]
    asyncio.run(wait_broker(config_folder.endpoints))

    async def body(sender: Bus, receiver: Bus) -> None:
        receiver.subscribe("tts.say")
        await receiver.wait_path(sender)
        sender.publish(SpeakRequest(text="before"))
        before = await receiver.recv(timeout=5)
        assert before is not None and before.text == "before"  # type: ignore[attr-defined]
        first.kill()
        second = Process("bus", *config_folder.args(), log_dir=log_dir)  # type: ignore[arg-type]
        try:
            await receiver.wait_path(sender, timeout=15)
            sender.publish(SpeakRequest(text="after"))
            after = await receiver.recv(timeout=5)
            assert after is not None and after.text == "after"  # type: ignore[attr-defined]
        finally:
            second.stop()

    with_buses(config_folder.endpoints, ["sender", "receiver"], body)


def test_request_answered_in_time(broker: Process, config_folder: ConfigFolder) -> None:
    async def body(caller: Bus, responder: Bus) -> None:
        responder.subscribe("dialogue.ask")
        await responder.wait_path(caller)

        async def answer() -> None:
            ask = await responder.recv(timeout=5)
            assert isinstance(ask, QuestionRequest)
            responder.publish(Reply(reply_to=ask.id, session="s", text="hi!"))

        task = asyncio.ensure_future(answer())
        reply = await caller.request(
            QuestionRequest(session="s", text="hi"),
            Reply,
            timeout=5,
        )
        await task
        assert reply.text == "hi!"

    with_buses(config_folder.endpoints, ["caller", "responder"], body)


def test_request_without_answerer_times_out_clearly(
    broker: Process, config_folder: ConfigFolder
) -> None:
    async def body(caller: Bus) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(RequestTimeout, match="nobody answered tools.call with tools.result"):
            await caller.request(
                ToolRequest(name="now", arguments="{}"),
                ToolResult,
                timeout=0.3,
            )
        assert loop.time() - start < 2

    with_buses(config_folder.endpoints, ["caller"], body)


def test_large_audio_travels_as_bytes(broker: Process, config_folder: ConfigFolder) -> None:
    pcm = bytes(range(256)) * 625  # 5 s at 16 kHz PCM16

    async def body(sender: Bus, receiver: Bus) -> None:
        receiver.subscribe("audio.utterance")
        await receiver.wait_path(sender)
        sender.publish(Utterance(pcm=pcm, rate=16000, duration=5.0, speech_end=1.0))
        got = await receiver.recv(timeout=5)
        assert isinstance(got, Utterance) and got.pcm == pcm

    with_buses(config_folder.endpoints, ["sender", "receiver"], body)


def test_second_broker_refuses_to_steal_the_socket(
    broker: Process, config_folder: ConfigFolder, log_dir: object
) -> None:
    second = Process("bus", *config_folder.args(), log_dir=log_dir)  # type: ignore[arg-type]
    assert second.popen.wait(30) == 1
    assert "a broker is already running on ipc://" in second.output()
    second.stop()
    # The first broker still carries traffic.
    asyncio.run(wait_broker(config_folder.endpoints, timeout=5))


def test_broker_stops_cleanly_on_sigterm(config_folder: ConfigFolder, log_dir: object) -> None:
    proc = Process("bus", *config_folder.args(), log_dir=log_dir)  # type: ignore[arg-type]
    asyncio.run(wait_broker(config_folder.endpoints))
    assert proc.stop(timeout=3) == 0
    assert not (config_folder.runtime / "pub.sock").exists()


def test_socket_folder_is_private(broker: Process, config_folder: ConfigFolder) -> None:
    import stat

    mode = stat.S_IMODE(config_folder.runtime.stat().st_mode)
    assert mode == 0o700
