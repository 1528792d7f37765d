"""The closed registry of message types: encode to frames, decode and validate.

Decoding never imports anything named by a message: a topic either maps to a
class registered here at import time, or the frames are rejected with a
:class:`DecodeError` that says why.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

import msgpack

from bus.message import Message

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Largest body accepted (a 4-minute PCM16 16 kHz utterance is 7.7 MB)."""

_MAX_DEPTH = 32


class DecodeError(ValueError):
    """Frames that are not a valid message; ``reason`` says what is wrong."""

    def __init__(self, reason: str, topic: str = "?") -> None:
        super().__init__(f"{topic}: {reason}")
        self.reason = reason
        self.topic = topic


Checker = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class _Spec:
    cls: type[Message]
    fields: tuple[tuple[str, Checker, bool], ...]  # name, checker, required
    defaults: tuple[tuple[str, Callable[[], Any]], ...]  # filled in when absent


_REGISTRY: dict[str, _Spec] = {}
_SUFFIXED = ("sys.probe.",)
"""Topics that may carry a private suffix (see :func:`encode`)."""


def register(cls: type[Message]) -> type[Message]:
    """Class decorator: add a message type to the closed registry."""
    topic = cls.TOPIC
    if not topic or topic in _REGISTRY:
        raise ValueError(f"{cls.__name__}: missing or duplicate topic {topic!r}")
    hints = typing.get_type_hints(cls)
    specs = []
    defaults = []
    for f in dataclasses.fields(cls):
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        specs.append((f.name, _checker(hints[f.name], f.name), required))
        if f.default_factory is not dataclasses.MISSING:
            defaults.append((f.name, f.default_factory))
        elif f.default is not dataclasses.MISSING:
            defaults.append((f.name, lambda value=f.default: value))
    _REGISTRY[topic] = _Spec(cls, tuple(specs), tuple(defaults))
    return cls


def registered() -> dict[str, type[Message]]:
    """Topic → class, for every registered type."""
    return {topic: spec.cls for topic, spec in _REGISTRY.items()}


def encode(msg: Message, src: str = "", suffix: str = "") -> list[bytes]:
    """The two frames of ``msg``: topic (plus ``.suffix`` if given) and msgpack map.

    A suffix lets a subscriber take a topic of its own (the round-trip probe
    does); decoding maps ``topic.suffix`` back to the type of ``topic``.
    """
    body = {name: getattr(msg, name) for name in _field_names(type(msg))}
    if src and not body["src"]:
        body["src"] = src
    topic = f"{msg.TOPIC}.{suffix}" if suffix else msg.TOPIC
    return [topic.encode(), msgpack.packb(body, use_bin_type=True)]


_FIELD_NAMES: dict[type[Message], tuple[str, ...]] = {}


def _field_names(cls: type[Message]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


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
        data = msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated types
        raise DecodeError(f"not msgpack ({type(exc).__name__})", topic) from None
    if not isinstance(data, dict):
        raise DecodeError("body is not a map", topic)
    values = {}
    for name, check, required in spec.fields:
        if name not in data:
            if required:
                raise DecodeError(f"missing field {name!r}", topic)
            continue
        try:
            values[name] = check(data[name])
        except (TypeError, ValueError) as exc:
            raise DecodeError(f"field {name!r}: {exc}", topic) from None
    for name, default in spec.defaults:
        if name not in values:
            values[name] = default()
    # Every field is validated above: build the frozen instance without
    # running __init__ again (the hot path of every receiver).
    msg = object.__new__(spec.cls)
    msg.__dict__.update(values)
    return msg


def _checker(hint: Any, name: str) -> Checker:
    """A function that validates (and lightly normalises) one field's value."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return _any
    if origin in (types.UnionType, typing.Union):
        options = [_checker(a, name) for a in args if a is not type(None)]
        nullable = type(None) in args
        return _union(options, nullable, hint)
    if origin is list:
        item = _checker(args[0], name) if args else _any
        return lambda v: [item(x) for x in _is(v, list)]
    if origin is dict:
        value = _checker(args[1], name) if args else _any
        return lambda v: {_is(k, str): value(x) for k, x in _is(v, dict).items()}
    if hint is float:
        return _float
    if hint is int:
        return _int
    if hint in (str, bytes, bool):
        return _exact(hint)
    raise TypeError(f"field {name!r}: unsupported annotation {hint!r}")


def _is(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _exact(kind: type) -> Checker:
    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return check


def _float(value: Any) -> float:
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is not int:
        raise TypeError(f"expected float, got {kind.__name__}")
    return float(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected int, got {type(value).__name__}")
    return value


def _any(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, list):
        for item in value:
            _any(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _any(item, depth + 1)
    return value


def _union(options: list[Checker], nullable: bool, hint: Any) -> Checker:
    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        for option in options:
            try:
                return option(value)
            except (TypeError, ValueError):
                continue
        raise TypeError(f"expected {hint}, got {type(value).__name__}")

    return check
