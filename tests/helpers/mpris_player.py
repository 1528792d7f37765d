"""A media player on the session bus for the tests: MPRIS's Player methods and the
``PlaybackStatus`` and ``Metadata`` properties, over jeepney (pure-Python D-Bus).

``python -m tests.helpers.mpris_player NAME`` owns ``org.mpris.MediaPlayer2.NAME`` on
``$DBUS_SESSION_BUS_ADDRESS`` and serves until killed; it prints ``ready`` once the name
is its own.
"""

from __future__ import annotations

import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"
TRACKS = [("First Song", ["The Band"]), ("Second Song", ["Other Band", "Guest"])]


def main(name: str) -> None:
    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName(f"org.mpris.MediaPlayer2.{name}"))
    print("ready", flush=True)
    status, track = "Paused", 0
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        interface = msg.header.fields.get(HeaderFields.interface)
        member = msg.header.fields.get(HeaderFields.member)
        if interface == PROPERTIES and member == "Get":
            _, prop = msg.body
            if prop == "PlaybackStatus":
                reply = new_method_return(msg, "v", (("s", status),))
            elif prop == "Metadata":
                title, artists = TRACKS[track]
                metadata = {"xesam:title": ("s", title), "xesam:artist": ("as", artists)}
                reply = new_method_return(msg, "v", (("a{sv}", metadata),))
            else:
                reply = new_error(msg, "org.freedesktop.DBus.Error.UnknownProperty", "s",
                                  (prop,))
        elif interface == PLAYER and member in ("Play", "Pause", "PlayPause", "Next",
                                                "Previous"):
            if member == "PlayPause":
                status = "Paused" if status == "Playing" else "Playing"
            elif member in ("Play", "Pause"):
                status = "Playing" if member == "Play" else "Paused"
            else:
                track = (track + (1 if member == "Next" else -1)) % len(TRACKS)
            reply = new_method_return(msg)
        else:
            reply = new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s",
                              (f"{interface}.{member}",))
        conn.send(reply)


if __name__ == "__main__":
    main(sys.argv[1])
