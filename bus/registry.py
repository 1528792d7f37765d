"""The closed registry of message types: encode to frames, decode and validate.

Decoding never imports anything named by a message: a topic either maps to a
class registered here at import time, or the frames are rejected with a
:class:`DecodeError` that says why. msgspec does the msgpack and the typed
validation in one pass, in C, straight into the frozen dataclass (a quarter
of what msgpack plus a field-by-field check in Python cost: every message of
every process goes through here).
"""

from __future__ import annotations

import dataclasses
import numbers
import re
import types
import typing
from typing import Any

import msgspec

from bus.message import Message

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Largest body accepted (a 4-minute PCM16 16 kHz utterance is 7.7 MB)."""

_MAX_DEPTH = 32
_SIMPLE = (str, bytes, bool, int, float)


class DecodeError(ValueError):
    """Frames that are not a valid message; ``reason`` says what is wrong."""

    def __init__(self, reason: str, topic: str = "?") -> None:
        super().__init__(f"{topic}: {reason}")
        self.reason = reason
        self.topic = topic


@dataclasses.dataclass(frozen=True)
class _Spec:
    cls: type[Message]
    decoder: msgspec.msgpack.Decoder[Any]
    nested: tuple[str, ...]
    """Fields that may hold nested lists and maps: their depth is checked."""


_REGISTRY: dict[str, _Spec] = {}
_SUFFIXED = ("sys.probe.",)
"""Topics that may carry a private suffix (see :func:`encode`)."""


def _plain_number(value: Any) -> Any:
    """Numbers of other types (numpy's scalars, a float subclass) as plain ones."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"a message cannot carry a {type(value).__name__}")


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_plain_number)


def register(cls: type[Message]) -> type[Message]:
    """Class decorator: add a message type to the closed registry."""
    topic = cls.TOPIC
    if not topic or topic in _REGISTRY:
        raise ValueError(f"{cls.__name__}: missing or duplicate topic {topic!r}")
    hints = typing.get_type_hints(cls)
    nested = []
    for f in dataclasses.fields(cls):
        if not _supported(hints[f.name]):
            raise TypeError(f"field {f.name!r}: unsupported annotation {hints[f.name]!r}")
        if typing.get_origin(hints[f.name]) in (list, dict) or hints[f.name] is Any:
            nested.append(f.name)
    _REGISTRY[topic] = _Spec(cls, msgspec.msgpack.Decoder(cls), tuple(nested))
    return cls


def _supported(hint: Any) -> bool:
    """Plain values, ``X | None``, and lists and maps of those (the bus carries data only)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if hint is Any or hint in _SIMPLE:
        return True
    if typing.get_origin(hint) is dict:
        return args[0] is str and _supported(args[1])
    return typing.get_origin(hint) in (list, typing.Union, types.UnionType) and all(
        _supported(a) for a in args
    )


def registered() -> dict[str, type[Message]]:
    """Topic → class, for every registered type."""
    return {topic: spec.cls for topic, spec in _REGISTRY.items()}


def encode(msg: Message, src: str = "", suffix: str = "") -> list[bytes]:
    """The two frames of ``msg``: topic (plus ``.suffix`` if given) and msgpack map.

    A suffix lets a subscriber take a topic of its own (the round-trip probe
    does); decoding maps ``topic.suffix`` back to the type of ``topic``.
    """
    body: Any = msg
    if src and not msg.src:
        body = dict(msg.__dict__)  # the fields, in order: a frozen dataclass has no others
        body["src"] = src
    topic = f"{msg.TOPIC}.{suffix}" if suffix else msg.TOPIC
    return [topic.encode(), _ENCODER.encode(body)]


def decode(frames: list[bytes]) -> Message:
    """Validate and build the message in ``frames``; raise DecodeError if invalid."""
    if len(frames) != 2:
        raise DecodeError(f"expected 2 frames, got {len(frames)}")
    raw_topic, body = frames
    try:
        topic = bytes(raw_topic).decode()
    except UnicodeDecodeError:
        raise DecodeError("topic is not UTF-8") from None
    spec = _REGISTRY.get(topic)
    if spec is None and topic.startswith(_SUFFIXED):
        spec = _REGISTRY.get(topic.rsplit(".", 1)[0])
    if spec is None:
        raise DecodeError("unknown topic", topic)
    if len(body) > MAX_MESSAGE_BYTES:
        raise DecodeError(f"body of {len(body)} bytes exceeds {MAX_MESSAGE_BYTES}", topic)
    try:
        msg: Message = spec.decoder.decode(body)
    except msgspec.ValidationError as exc:
        raise DecodeError(_reason(str(exc)), topic) from None
    except (msgspec.DecodeError, RecursionError) as exc:
        raise DecodeError(f"not msgpack ({exc})", topic) from None
    for name in spec.nested:
        try:
            _depth(getattr(msg, name))
        except ValueError as exc:
            raise DecodeError(f"field {name!r}: {exc}", topic) from None
    return msg


_MISSING = re.compile(r"Object missing required field `(\w+)`")
_AT_FIELD = re.compile(r"(.*) - at `\$\.(\w+)(.*)`$")


def _reason(error: str) -> str:
    """msgspec's words, said the registry's way: which field, and what is wrong with it."""
    if missing := _MISSING.fullmatch(error):
        return f"missing field {missing[1]!r}"
    if at := _AT_FIELD.fullmatch(error):
        where = f" (at {at[3]})" if at[3] else ""
        return f"field {at[2]!r}: {at[1].replace('`', '')}{where}"
    if error.startswith("Expected `object`"):
        return "body is not a map"
    return error


def _depth(value: Any, depth: int = 0) -> None:
    if depth > _MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, list):
        for item in value:
            _depth(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _depth(item, depth + 1)
