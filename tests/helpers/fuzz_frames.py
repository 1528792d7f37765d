"""Hostile bus frames: random bytes, broken msgpack, wrong types, unknown topics, extra frames."""

from __future__ import annotations

import random
import typing
from collections.abc import Iterator

import msgpack

import bus.messages  # noqa: F401
from bus.registry import encode, registered
from tests.bus.test_registry import sample

NASTY_VALUES: list[typing.Any] = [
    None, True, -1, 2**63, 1.5e308, float("nan"), "", "x" * 10_000, b"\xff" * 100,
    [], {}, [[[[1]]]], {"a": {"b": {"c": None}}}, "\udcff".encode("utf-8", "surrogatepass"),
]
HUGE_HEADERS = [
    b"\xdb\xff\xff\xff\xff",  # str 32 with a 4 GiB length
    b"\xc6\xff\xff\xff\xff",  # bin 32
    b"\xdd\xff\xff\xff\xff",  # array 32
    b"\xdf\xff\xff\xff\xff",  # map 32
    b"\xc9\xff\xff\xff\xff\x01",  # ext 32
]


def deep(levels: int) -> bytes:
    return b"\x91" * levels + b"\x00"


def frames(rng: random.Random, count: int) -> Iterator[list[bytes]]:
    """``count`` hostile frame lists, mixing every kind of damage."""
    topics = [t.encode() for t in registered()]
    valid = [encode(sample(cls)) for cls in registered().values()]
    kinds = [
        lambda: [rng.choice(topics), rng.randbytes(rng.randint(0, 300))],
        lambda: [rng.randbytes(rng.randint(0, 40)), rng.randbytes(rng.randint(0, 40))],
        lambda: (lambda f: [f[0], f[1][: rng.randint(0, len(f[1]))]])(rng.choice(valid)),
        lambda: [rng.choice(topics), rng.choice(HUGE_HEADERS) + rng.randbytes(8)],
        lambda: [rng.choice(topics), deep(rng.choice([100, 1000, 5000]))],
        lambda: [rng.choice(topics), wrong_types(rng)],
        lambda: [b"unknown." + rng.randbytes(4).hex().encode(), msgpack.packb({"v": 1})],
        lambda: [*rng.choice(valid), b"extra"],
        lambda: [rng.choice(valid)[0]],
        lambda: [rng.choice(topics), msgpack.packb(rng.choice(NASTY_VALUES))],
        lambda: (lambda f: [f[0], flip(rng, f[1])])(rng.choice(valid)),
    ]
    for _ in range(count):
        yield rng.choice(kinds)()


def wrong_types(rng: random.Random) -> bytes:
    cls = rng.choice(list(registered().values()))
    body = msgpack.unpackb(encode(sample(cls))[1], raw=False)
    key = rng.choice(list(body))
    body[key] = rng.choice(NASTY_VALUES)
    return msgpack.packb(body, use_bin_type=True)


def flip(rng: random.Random, data: bytes) -> bytes:
    raw = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if raw:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
    return bytes(raw)
