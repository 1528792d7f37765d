"""Every registered type round-trips; malformed frames are rejected with a reason."""

from __future__ import annotations

import dataclasses
import typing

import msgpack
import pytest

import bus.messages  # noqa: F401
from bus.message import SCHEMA_VERSION, Message
from bus.messages import ToolSpec
from bus.registry import (
    MAX_MESSAGE_BYTES,
    DecodeError,
    _checked_decode,
    decode,
    encode,
    registered,
)

SAMPLES: dict[type, object] = {
    str: "héllo",
    int: 7,
    float: 1.5,
    bool: True,
    bytes: b"\x00\x01" * 10,
}


def sample_value(hint: typing.Any) -> typing.Any:
    origin = typing.get_origin(hint)
    if origin is list and dataclasses.is_dataclass(typing.get_args(hint)[0]):
        return [ToolSpec(name="now", announce={"en": ["One moment."]})]
    if origin is list:
        return [{"type": "adjust_volume", "direction": "up"}]
    if origin is dict:
        return {"k": 0.5}
    if typing.get_args(hint) and type(None) in typing.get_args(hint):
        return sample_value(next(a for a in typing.get_args(hint) if a is not type(None)))
    return SAMPLES[hint]


def sample(cls: type[Message]) -> Message:
    hints = typing.get_type_hints(cls)
    kwargs = {
        f.name: sample_value(hints[f.name])
        for f in dataclasses.fields(cls)
        if f.name not in ("v", "id", "ts", "src")
    }
    return cls(**kwargs)


def test_registry_is_populated() -> None:
    assert len(registered()) >= 20
    for topic, cls in registered().items():
        assert cls.TOPIC == topic
        assert dataclasses.is_dataclass(cls)
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", list(registered().values()), ids=lambda c: c.TOPIC)
def test_round_trip(cls: type[Message]) -> None:
    msg = sample(cls)
    frames = encode(msg, src="test")
    assert frames[0] == cls.TOPIC.encode()
    back = decode(frames)
    assert type(back) is cls
    assert back == dataclasses.replace(msg, src="test")
    assert _checked_decode(frames) == back  # the long way agrees with the short one


def test_audio_is_msgpack_bin() -> None:
    from bus.messages import Utterance

    frames = encode(Utterance(pcm=b"\x01\x02", rate=16000, duration=0.0, speech_end=0.0))
    body = msgpack.unpackb(frames[1], raw=False)
    assert body["pcm"] == b"\x01\x02"
    assert frames[1].find(b"\xc4\x02\x01\x02") >= 0  # bin 8 header, not an array


def deep(levels: int) -> dict[str, typing.Any]:
    value: dict[str, typing.Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def body(**fields: typing.Any) -> bytes:
    return msgpack.packb(fields, use_bin_type=True)


@pytest.mark.parametrize(
    ("frames", "reason"),
    [
        ([b"tools.call"], "expected 2 frames"),
        ([b"tools.call", b"x", b"y"], "expected 2 frames"),
        ([b"\xff\xfe", b""], "topic is not UTF-8"),
        ([b"no.such.topic", body()], "unknown topic"),
        ([b"tools.call", b"\xc1"], "not msgpack"),
        ([b"tools.call", msgpack.packb([1, 2])], "body is not a map"),
        ([b"tools.call", body(name="x")], "missing field 'arguments'"),
        ([b"tools.call", body(id=1, name="x", arguments="{}")], "field 'id'"),
        ([b"tts.speaking", body(speaking="yes")], "field 'speaking'"),
        ([b"sys.heartbeat", body(service="a", pid=True, state="r", version="1")], "field 'pid'"),
        ([b"tools.call", b"\xdb\xff\xff\xff\xff"], "not msgpack"),
        ([b"tools.call", b"\x91" * 5000], "body is not a map"),
        ([b"control.action", body(actions=b"\x91" * 5000)], "field 'actions'"),
        ([b"tools.call", body(name="x", arguments={})[:-1]], "not msgpack"),
        ([b"control.action", body(actions=[deep(40)])], "nested"),
        ([b"control.action", body(actions=[{1: "up"}])], "field 'actions': a map key at [0]"),
        ([b"tools.catalog", body(tools=[{"name": "x", "parameters": {"a": {(1, 2): 1}}}])],
         "not a string"),
        ([b"control.action", body(actions=[{"t": msgpack.ExtType(5, b"x")}])], "of type Ext"),
        ([b"tts.speaking", msgpack.packb({b"speaking": True})], "field name"),
        ([b"tools.call", b"\x00" * (MAX_MESSAGE_BYTES + 1)], "exceeds"),
        # valid but too large: refused before it is decoded, on the short path too
        ([b"tts.speaking", body(speaking=True, padding="b" * MAX_MESSAGE_BYTES)], "exceeds"),
    ],
)
def test_malformed_is_rejected(frames: list[bytes], reason: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode(frames)
    assert reason in str(info.value)


def test_extra_fields_are_ignored_for_forward_compatibility() -> None:
    from bus.messages import Speaking

    msg = decode([b"tts.speaking", body(speaking=True, added_in_v2=1)])
    assert msg == Speaking(id=msg.id, ts=msg.ts, speaking=True)


def test_int_accepted_for_float_and_bool_not_for_int() -> None:

    assert decode([b"tts.volume.state", body(volume=1)]).volume == 1.0  # type: ignore[attr-defined]
    with pytest.raises(DecodeError):
        decode([b"tts.volume.state", body(volume=True)])


def test_numbers_of_other_types_travel_as_plain_numbers() -> None:
    import numpy as np

    from bus.messages import Spoken

    msg = Spoken(text="x", duration=np.float32(1.5), seq=np.int64(3))  # type: ignore[arg-type]
    back = decode(encode(msg))
    assert (back.duration, back.seq) == (1.5, 3)  # type: ignore[attr-defined]
    assert (type(back.duration), type(back.seq)) == (float, int)  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="cannot carry a complex"):
        encode(Spoken(text="x", duration=1j))  # type: ignore[arg-type]


def test_a_relayed_message_keeps_every_field() -> None:
    from bus.messages import ToolResult

    received = decode([b"tools.result", body(reply_to="1", name="now", content="noon", src="x")])
    relayed = msgpack.unpackb(encode(received, src="relay")[1])
    fields = [f.name for f in dataclasses.fields(ToolResult)]
    assert list(relayed) == fields  # "v", "turn", "site" and the defaults too, in order
    assert relayed["src"] == "x" and relayed["v"] == SCHEMA_VERSION and relayed["turn"] is None


def test_encoding_fills_the_source_but_leaves_the_message_as_it_was() -> None:
    from bus.messages import Spoken

    msg = Spoken(text="x", duration=1.0, seq=1)
    assert msgpack.unpackb(encode(msg, src="me")[1])["src"] == "me"
    assert msg.src == ""  # the caller's message is not changed
    sent = Spoken(text="x", duration=1.0, seq=1, src="first")
    assert msgpack.unpackb(encode(sent, src="me")[1])["src"] == "first"


@pytest.mark.parametrize("kind", [memoryview, bytearray])
def test_a_topic_in_another_buffer_decodes_the_same(kind: type) -> None:
    from bus.messages import Speaking

    frames = encode(Speaking(speaking=True))
    assert decode([kind(frames[0]), frames[1]]) == decode(frames)
    with pytest.raises(DecodeError, match="speaking"):
        decode([kind(frames[0]), body(speaking="yes")])


def test_the_kind_of_a_problem_does_not_vary_with_the_bytes() -> None:
    kinds = set()
    for extra in (b"\x00", b"\x00\x00\x00"):
        with pytest.raises(DecodeError) as info:
            decode([b"tts.speaking", body(speaking=True) + extra])
        kinds.add(info.value.kind)
    assert kinds == {"not msgpack"}
    with pytest.raises(DecodeError) as info:
        decode([b"tools.catalog", body(tools=[{"name": "a"}, [1]])])
    assert "(at [1])" in info.value.reason and info.value.kind == "field tools"


def test_optional_free_form_fields_are_checked_too() -> None:
    from bus.registry import _free_form

    assert _free_form(list[dict[str, typing.Any]] | None)
    assert _free_form(typing.Any) and not _free_form(str | None)


def test_probe_suffix_maps_back_to_probe() -> None:
    from bus.messages import Probe

    frames = encode(Probe(id="n"), suffix="n")
    assert frames[0] == b"sys.probe.n"
    assert decode(frames) == Probe(id="n", ts=decode(frames).ts)
