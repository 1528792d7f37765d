"""The mic and speaker commands of a real ``wyoming-satellite`` in tests (stdlib only).

``satellite_peer.py mic FIFO``: the satellite's mic, what the test writes into the
FIFO (16 kHz mono PCM16), as it comes; opened read-write, so it never sees an end
when a writer closes. ``satellite_peer.py snd FILE``: the satellite's speaker; each
answer's PCM is added to FILE and, when the satellite closes it after the answer,
a line ``START END FIRST_LOUD`` (byte offsets in FILE, and the epoch time its first
loud sample arrived, or 0) is added to ``FILE.log``. ``satellite_peer.py note FILE``:
an event command (``--detection-command``); what the satellite gives it on stdin (the
wake word's name) is added to FILE as a line.
"""

from __future__ import annotations

import os
import sys
import time

LOUD = 300
"""A PCM16 sample above this (about -40 dBFS) is sound, not the silence before it."""


def mic(fifo: str) -> None:
    source = os.open(fifo, os.O_RDWR)
    out = sys.stdout.buffer
    while data := os.read(source, 4096):
        out.write(data)
        out.flush()


def loud(data: bytes) -> bool:
    samples = memoryview(data[: len(data) // 2 * 2]).cast("h")
    return any(abs(sample) > LOUD for sample in samples)


def snd(path: str) -> None:
    first = 0.0
    with open(path, "ab") as out:
        start = out.tell()
        while data := os.read(0, 4096):  # what has come so far, not a full 4096 bytes
            if not first and loud(data):
                first = time.time()
            out.write(data)
            out.flush()
        end = out.tell()
    with open(f"{path}.log", "a") as log:
        log.write(f"{start} {end} {first}\n")


def note(path: str) -> None:
    with open(path, "a") as out:
        out.write(sys.stdin.read().strip() + "\n")


if __name__ == "__main__":
    {"mic": mic, "snd": snd, "note": note}[sys.argv[1]](sys.argv[2])
