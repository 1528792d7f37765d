"""A media player on the session bus for the tests: MPRIS's Player methods and the
``PlaybackStatus`` and ``Metadata`` properties, over jeepney (pure-Python D-Bus).

``python -m tests.helpers.mpris_player NAME`` owns ``org.mpris.MediaPlayer2.NAME`` on
``$DBUS_SESSION_BUS_ADDRESS`` and serves until killed; it prints ``ready`` once the name
is its own.
"""

from __future__ import annotations

import sys
from typing import Any

from jeepney import new_error, new_method_return

from tests.helpers.dbus_session import serve_names

PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"
TRACKS = [("First Song", ["The Band"]), ("Second Song", ["Other Band", "Guest"])]


def main(name: str) -> None:
    state = {"status": "Paused", "track": 0}

    def answer(msg: Any, interface: str, member: str) -> Any:
        status, track = state["status"], int(state["track"])
        if interface == PROPERTIES and member == "Get":
            _, prop = msg.body
            if prop == "PlaybackStatus":
                return new_method_return(msg, "v", (("s", status),))
            if prop == "Metadata":
                title, artists = TRACKS[track]
                metadata = {"xesam:title": ("s", title), "xesam:artist": ("as", artists)}
                return new_method_return(msg, "v", (("a{sv}", metadata),))
            return new_error(msg, "org.freedesktop.DBus.Error.UnknownProperty", "s", (prop,))
        if interface == PLAYER and member in ("Play", "Pause", "PlayPause", "Next", "Previous"):
            if member == "PlayPause":
                state["status"] = "Paused" if status == "Playing" else "Playing"
            elif member in ("Play", "Pause"):
                state["status"] = "Playing" if member == "Play" else "Paused"
            else:
                state["track"] = (track + (1 if member == "Next" else -1)) % len(TRACKS)
            return new_method_return(msg)
        return None

    serve_names(f"org.mpris.MediaPlayer2.{name}", answer)


if __name__ == "__main__":
    main(sys.argv[1])
