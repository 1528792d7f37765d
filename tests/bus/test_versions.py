"""The contract version: a message of a newer contract is refused, an older one is read."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest

from bus.client import Bus
from bus.message import SCHEMA_VERSION
from bus.messages import Speaking
from bus.registry import DecodeError, decode, encode
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def speaking(version: int, **extra: object) -> list[bytes]:
    """A ``tts.speaking`` message as a sender of ``version`` would write it."""
    fields = {"v": version, "id": "x", "ts": 1.0, "src": "tts", "speaking": True, **extra}
    return [b"tts.speaking", msgpack.packb(fields, use_bin_type=True)]


def test_a_newer_version_is_refused_with_a_reason_that_says_so() -> None:
    with pytest.raises(DecodeError) as info:
        decode(speaking(SCHEMA_VERSION + 1))
    assert info.value.kind == "newer version"
    assert f"contract version {SCHEMA_VERSION + 1} is newer than ours" in info.value.reason


def test_a_newer_version_whose_fields_do_not_fit_is_refused_for_its_version() -> None:
    # A newer contract renamed "speaking": the missing field is not what is wrong.
    frames = speaking(SCHEMA_VERSION + 1)
    body = msgpack.unpackb(frames[1])
    del body["speaking"]
    with pytest.raises(DecodeError) as info:
        decode([frames[0], msgpack.packb({**body, "playing": True})])
    assert info.value.kind == "newer version"


@pytest.mark.parametrize("version", [1, SCHEMA_VERSION])
def test_an_older_or_equal_version_is_read(version: int) -> None:
    msg = decode(speaking(version))
    assert isinstance(msg, Speaking) and msg.speaking and msg.v == version


def test_a_relayed_older_message_keeps_its_version() -> None:
    older = decode(speaking(1))
    assert msgpack.unpackb(encode(older)[1])["v"] == 1


def test_through_the_broker_a_newer_message_is_dropped_and_the_next_one_read(
    broker: Process, config_folder: ConfigFolder
) -> None:
    refused: list[DecodeError] = []

    async def body(sender: Bus, receiver: Bus) -> None:
        receiver.subscribe(Speaking.TOPIC)
        await receiver.wait_path(sender)
        sender.send_raw(speaking(SCHEMA_VERSION + 1))
        sender.publish(Speaking(speaking=False))
        msg = await receiver.recv(timeout=5)
        assert isinstance(msg, Speaking) and not msg.speaking  # the newer one never came in

    with_buses(
        config_folder.endpoints,
        ["sender", "receiver"],
        body,
        on_invalid=lambda frames, error: refused.append(error),
    )
    assert [(e.topic, e.kind) for e in refused] == [("tts.speaking", "newer version")]


def test_every_message_we_send_carries_our_version() -> None:
    sent = msgpack.unpackb(encode(Speaking(speaking=True))[1])
    assert sent["v"] == SCHEMA_VERSION == dataclasses.fields(Speaking)[0].default
