"""The playback queue as the audio callback drains it: order, events, the yielding gap."""

from __future__ import annotations

from services.speaker.playback import PlaybackEvent, PlaybackQueue, Segment

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
