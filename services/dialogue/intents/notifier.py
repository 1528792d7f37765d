"""Desktop notifications for reminders: the freedesktop Notifications service over D-Bus.

Through jeepney (pure Python, no C library, the client ``keyring`` and
``secretstorage`` use): one short connection per notification, bounded by
:data:`TIMEOUT`, so a hung or missing notification server never holds the
reminder's spoken announcement. Without a session bus (a headless machine, a
systemd system service) the reminder is still spoken; that is logged once.
"""

from __future__ import annotations

import asyncio
import html
import logging

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.asyncio import open_dbus_router

log = logging.getLogger(__name__)

TIMEOUT = 3.0
"""Seconds to connect and have the notification accepted."""
SERVICE = DBusAddress(
    "/org/freedesktop/Notifications",
    bus_name="org.freedesktop.Notifications",
    interface="org.freedesktop.Notifications",
)
APP = "desktop-assistant"
EXPIRE_NEVER = 0
"""A reminder stays on screen until the user closes it (a timeout of -1 would let the
server take it away after a few seconds, perhaps while nobody looked)."""


class Notifier:
    def __init__(self, bus: str = "SESSION") -> None:
        self.bus = bus
        """``SESSION`` (from ``$DBUS_SESSION_BUS_ADDRESS``) or a D-Bus address."""
        self._failing = False

    async def show(self, summary: str, body: str) -> int | None:
        """The notification's id, or None when it could not be shown (logged once per run
        of failures: a desktop without a notification server is not an error each time)."""
        try:
            async with asyncio.timeout(TIMEOUT):
                return await self._notify(summary, body)
        except Exception as exc:  # no bus, no server, a refusal, a timeout: said, not raised
            if not self._failing:
                why = f"no answer within {TIMEOUT:g} s" if isinstance(exc, TimeoutError) else exc
                log.warning("reminder: no desktop notification (%s); it is spoken only", why)
            self._failing = True
            return None

    async def _notify(self, summary: str, body: str) -> int:
        # The body may hold markup where the server shows it (links, images): a reminder's
        # words come from a tool, perhaps from a hostile calendar invite, so they are text.
        call = new_method_call(SERVICE, "Notify", "susssasa{sv}i", (
            APP, 0, "appointment-soon", summary, html.escape(body, quote=False), [],
            {"urgency": ("y", 1)},
            EXPIRE_NEVER,
        ))
        async with open_dbus_router(self.bus) as router:
            reply = await router.send_and_get_reply(call)
        if reply.header.message_type == MessageType.error:
            raise RuntimeError(f"the notification server refused it: {reply.body}")
        self._failing = False
        (notification_id,) = reply.body
        return int(notification_id)
