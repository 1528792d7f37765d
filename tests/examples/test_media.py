"""media.py against a real session bus (dbus-daemon) and an MPRIS player on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.dbus_session import on_bus, session_bus
from tests.helpers.examples import run_example


@pytest.fixture
def bus() -> Iterator[str]:
    with session_bus() as address, on_bus(address, "tests.helpers.mpris_player", "testplayer"):
        yield address


def test_what_plays_and_each_action(bus: str) -> None:
    def media(*args: str) -> str:
        done = run_example("media.py", *args, DBUS_SESSION_BUS_ADDRESS=bus)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert media("now", "") == "testplayer: paused, First Song by The Band"
    assert media("toggle", "") == "testplayer: playing, First Song by The Band"
    assert media("next", "TEST") == "testplayer: playing, Second Song by Other Band, Guest"
    assert media("previous", "") == "testplayer: playing, First Song by The Band"
    assert media("pause", "") == "testplayer: paused, First Song by The Band"
    assert media("play", "") == "testplayer: playing, First Song by The Band"


def test_no_such_player_and_a_bad_action(bus: str) -> None:
    missing = run_example("media.py", "play", "spotify", DBUS_SESSION_BUS_ADDRESS=bus)
    assert (missing.returncode, missing.stderr) == (
        1, "media: no media player like 'spotify' is running\n"
    )
    wrong = run_example("media.py", "louder", "", DBUS_SESSION_BUS_ADDRESS=bus)
    assert wrong.returncode == 2 and "usage: media.py" in wrong.stderr


def test_without_a_session_bus_it_says_why() -> None:
    lost = run_example("media.py", "now", "",
                       DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent/bus")
    assert lost.returncode == 1 and lost.stderr.startswith("media: ")
