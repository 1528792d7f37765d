"""A desktop notification server for the tests: ``org.freedesktop.Notifications`` on the
session bus, over jeepney, as a desktop's (GNOME Shell, dunst, mako) answers it.

``python -m tests.helpers.notification_service FILE`` owns the name on
``$DBUS_SESSION_BUS_ADDRESS``, answers ``Notify`` with a new id and appends each
notification to FILE as a JSON line (app, summary, body, hints' urgency, timeout), and
answers ``GetServerInformation`` and ``GetCapabilities``; it prints ``ready`` once the
name is its own and serves until killed.
"""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

from jeepney import new_method_return

from tests.helpers.dbus_session import serve_names

INTERFACE = "org.freedesktop.Notifications"


def main(record: str) -> None:
    ids = itertools.count(1)

    def answer(msg: Any, interface: str, member: str) -> Any:
        if interface != INTERFACE:
            return None
        if member == "Notify":
            app, _, _, summary, body, _, hints, timeout = msg.body
            urgency = hints.get("urgency", ("y", None))[1]
            with open(record, "a", encoding="utf-8") as out:
                out.write(json.dumps({"app": app, "summary": summary, "body": body,
                                      "urgency": urgency, "timeout": timeout}) + "\n")
            return new_method_return(msg, "u", (next(ids),))
        if member == "GetServerInformation":
            return new_method_return(msg, "ssss", ("test", "tests", "1", "1.2"))
        if member == "GetCapabilities":
            return new_method_return(msg, "as", (["body"],))
        return None

    serve_names(INTERFACE, answer)


if __name__ == "__main__":
    main(sys.argv[1])
