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
import types
import typing
from typing import Any

import msgspec

from bus.checks import check_free_form, reason_and_kind
from bus.message import SCHEMA_VERSION, Message

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Largest body accepted (a 4-minute PCM16 16 kHz utterance is 7.7 MB)."""

_SIMPLE = (str, bytes, bool, int, float)


class _Envelope(msgspec.Struct):
    """Only the version of a body, read when the body does not fit our types."""

    v: int = SCHEMA_VERSION


_VERSION = msgspec.msgpack.Decoder(_Envelope)


class DecodeError(ValueError):
    """Frames that are not a valid message; ``reason`` says what is wrong, ``kind`` the
    same without the details that vary from message to message (log rate limits use it)."""

    def __init__(self, reason: str, topic: str = "?", kind: str | None = None) -> None:
        super().__init__(f"{topic}: {reason}")
        self.reason = reason
        self.topic = topic
        self.kind = kind or reason


@dataclasses.dataclass(frozen=True)
class _Spec:
    cls: type[Message]
    decoder: msgspec.msgpack.Decoder[Any]
    free_form: tuple[str, ...]
    """Fields that may hold nested lists and maps: checked by :func:`check_free_form`."""


_REGISTRY: dict[str, _Spec] = {}
_BY_TOPIC: dict[bytes, _Spec] = {}
"""The same, keyed by the topic frame as it arrives: :func:`decode`'s common case."""
_NAMES: dict[type[Message], tuple[str, ...]] = {}
"""Every field of each type, in order: what :func:`encode` sends."""
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
    fields = dataclasses.fields(cls)
    for f in fields:
        if not _supported(hints[f.name]):
            raise TypeError(f"field {f.name!r}: unsupported annotation {hints[f.name]!r}")
    free_form = tuple(f.name for f in fields if _free_form(hints[f.name]))
    _REGISTRY[topic] = _BY_TOPIC[topic.encode()] = _Spec(
        cls, msgspec.msgpack.Decoder(cls), free_form
    )
    _NAMES[cls] = tuple(f.name for f in fields)
    return cls


def _free_form(hint: Any) -> bool:
    if hint is Any or typing.get_origin(hint) in (list, dict):
        return True
    if _is_nested(hint):
        return any(_free_form(h) for h in typing.get_type_hints(hint).values())
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and any(
        _free_form(a) for a in typing.get_args(hint)
    )


def _is_nested(hint: Any) -> bool:
    """A frozen dataclass carried inside a message (a catalog's :class:`ToolSpec`)."""
    return (
        isinstance(hint, type)
        and dataclasses.is_dataclass(hint)
        and hint.__dataclass_params__.frozen  # type: ignore[attr-defined]
        and not issubclass(hint, Message)
    )


def _supported(hint: Any) -> bool:
    """Plain values, ``X | None``, frozen dataclasses of those, and lists and maps of those
    (the bus carries data only; msgspec builds a nested dataclass and runs its checks)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if hint is Any or hint in _SIMPLE:
        return True
    if _is_nested(hint):
        return all(_supported(h) for h in typing.get_type_hints(hint).values())
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
    fields = msg.__dict__
    names = _NAMES[type(msg)]
    if len(fields) != len(names):
        # msgspec leaves fields that have their class default out of a decoded instance's
        # __dict__ (a relayed message would lose its "v", "turn" and "site"): by name.
        fields = {name: getattr(msg, name) for name in names}
    if src and not fields["src"]:
        fields = {**fields, "src": src}  # a new map: the message itself stays as it was
    topic = f"{msg.TOPIC}.{suffix}" if suffix else msg.TOPIC
    return [topic.encode(), _ENCODER.encode(fields)]


def decode(frames: list[bytes | memoryview]) -> Message:
    """Validate and build the message in ``frames``; raise DecodeError if invalid.

    The common case (a registered topic, a body of plain fields) takes as few steps
    as it can: every message of every process comes through here, mostly with cold
    caches, when each step costs ten times what it costs in a loop (docs/performance.md).
    Anything else, and any error, goes the long way, which says what is wrong.
    """
    if len(frames) == 2 and type(frames[0]) is bytes:
        spec = _BY_TOPIC.get(frames[0])
        if spec is not None and not spec.free_form and len(frames[1]) <= MAX_MESSAGE_BYTES:
            try:
                msg: Message = spec.decoder.decode(frames[1])
                if msg.v <= SCHEMA_VERSION:
                    return msg
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                pass
    return _checked_decode(frames)


def _checked_decode(frames: list[bytes | memoryview]) -> Message:
    """:func:`decode` step by step, with a :class:`DecodeError` that says what is wrong."""
    if len(frames) != 2:
        raise DecodeError(f"expected 2 frames, got {len(frames)}", kind="frames")
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
        raise DecodeError(
            f"body of {len(body)} bytes exceeds {MAX_MESSAGE_BYTES}", topic, "too large"
        )
    try:
        msg: Message = spec.decoder.decode(body)
    except msgspec.ValidationError as exc:
        _check_version(body, topic)  # a newer contract's fields: say so, not which one
        reason, kind = reason_and_kind(str(exc))
        raise DecodeError(reason, topic, kind) from None
    except (msgspec.DecodeError, RecursionError) as exc:
        raise DecodeError(f"not msgpack ({exc})", topic, "not msgpack") from None
    _check_version(body, topic, msg.v)
    for name in spec.free_form:
        try:
            check_free_form(getattr(msg, name))
        except ValueError as exc:
            raise DecodeError(f"field {name!r}: {exc}", topic, f"field {name}") from None
    return msg


def _check_version(body: bytes | memoryview, topic: str, version: int | None = None) -> None:
    """Refuse a message of a newer contract than ours: its fields may mean something else.

    An older or equal version is read as it is (an older sender's fields either still
    fit, or the message fails as any invalid one does).
    """
    if version is None:
        try:
            version = _VERSION.decode(body).v
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return
    if version > SCHEMA_VERSION:
        raise DecodeError(
            f"contract version {version} is newer than ours ({SCHEMA_VERSION}): "
            "update this process",
            topic,
            "newer version",
        )
