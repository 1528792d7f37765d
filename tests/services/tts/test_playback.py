"""The playback queue as the audio callback drains it: order, events, the yielding gap."""

from __future__ import annotations

import time

from services.tts.playback import PlaybackEvent, PlaybackQueue, Segment

RATE = 1000  # samples a second: 2 bytes each


def drain(queue: PlaybackQueue, blocks: int, nbytes: int = 20) -> bytes:
    played = bytearray()
    for _ in range(blocks):
        out = bytearray(nbytes)
        queue.fill(out, nbytes, RATE)
        played += out
    return bytes(played)


def events(queue: PlaybackQueue) -> list[tuple[str, str]]:
    got: list[tuple[str, str]] = []
    while not queue.events.empty():
        event = queue.events.get()
        assert isinstance(event, PlaybackEvent)
        got.append((event.kind, event.segment.tag))
    return got


def test_the_gap_after_the_tone_gives_way_to_speech_that_is_ready() -> None:
    queue = PlaybackQueue()
    queue.put(Segment(b"\x01\x00" * 10, "tone"))
    queue.put(Segment(bytes(200), "gap", yields=True))  # 0.1 s of silence
    queue.put(Segment(b"\x02\x00" * 10, "speech"))
    played = drain(queue, 2)
    assert played == b"\x01\x00" * 10 + b"\x02\x00" * 10  # no silence between
    assert events(queue) == [("started", "tone"), ("finished", "tone"), ("finished", "gap"),
                             ("started", "speech"), ("finished", "speech")]


def test_the_gap_plays_until_speech_comes() -> None:
    queue = PlaybackQueue()
    queue.put(Segment(b"\x01\x00" * 10, "tone"))
    queue.put(Segment(bytes(200), "gap", yields=True))
    assert drain(queue, 3) == b"\x01\x00" * 10 + bytes(40)  # the tone, then the gap
    queue.put(Segment(b"\x02\x00" * 10, "speech"))  # speech ready while the gap plays
    assert drain(queue, 1) == b"\x02\x00" * 10  # the rest of the gap is skipped
    assert ("finished", "gap") in events(queue)


def test_silence_that_does_not_yield_is_played_in_full() -> None:
    queue = PlaybackQueue()
    queue.put(Segment(bytes(40), "pause"))
    queue.put(Segment(b"\x02\x00" * 10, "speech"))
    assert drain(queue, 3) == bytes(40) + b"\x02\x00" * 10


def test_a_rewind_takes_back_what_reached_the_device_but_not_the_ear() -> None:
    queue = PlaybackQueue()
    queue.put(Segment(b"\x01\x00" * RATE, "speech"))  # 1 s
    out = bytearray(200)  # 0.1 s
    before = time.time()
    queue.fill(out, len(out), RATE, delay=0.2)  # its first sample heard 0.2 s after the fill
    after = time.time()
    back = queue.rewind(after + 0.24)  # 0.04 s of it heard then (more if the fill was slow)
    assert 0.06 - (after - before) - 0.001 <= back <= 0.06 + 0.001
    assert abs(queue.queued_seconds(RATE) - (1.0 - 0.1 + back)) < 1e-9
    assert drain(queue, 1, 2 * round(back * RATE)) == b"\x01\x00" * round(back * RATE)


def test_nothing_is_rewound_between_segments_or_past_a_segment_start() -> None:
    queue = PlaybackQueue()
    assert queue.rewind(time.time()) == 0.0
    queue.put(Segment(b"\x01\x00" * 50, "speech"))
    drain(queue, 1, 40)  # 20 of its 50 samples, reaching the device in the future
    assert queue.rewind(time.time() - 10) == 0.02  # back to its start, not before
    assert queue.queued_seconds(RATE) == 0.05
