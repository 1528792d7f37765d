"""A tab that stops reading is dropped at its queue's bound, never buffered without end."""

from __future__ import annotations

from services.brain.page.feed import Feed


def test_a_tab_that_stops_reading_is_dropped_and_its_stream_ends() -> None:
    feed = Feed(size=4)
    slow, fast = feed.open(), feed.open()
    for n in range(4):
        feed.publish("turn", {"n": n})
        assert fast.queue.get_nowait() is not None  # this one reads as they come
    assert slow.queue.qsize() == 4 and not slow.dropped
    feed.publish("turn", {"n": 4})
    assert slow.dropped and slow not in feed.tabs
    assert slow.queue.get_nowait() is None  # the end of its stream; nothing else held
    assert slow.queue.empty()
    assert fast in feed.tabs and '"n": 4' in str(fast.queue.get_nowait())
    feed.publish("turn", {"n": 5})
    assert slow.queue.empty()  # a dropped tab gets nothing more
