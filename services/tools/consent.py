"""The rule a tool that modifies keeps, whoever runs it: the tools service for the
dialogue, or ``desktop-assistant tools run`` on the terminal. It runs only after the
user's own yes, and each run is written to the log of actions. One function, so that
the two doors cannot come to differ on it."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from settings.actions import Action, ActionLog
from settings.secrets import Redactor

log = logging.getLogger(__name__)

MAX_CONTENT = 2000
"""Characters of a result the model receives."""
NEEDS_YES = (
    "this tool changes something and runs only after the user's own yes: ask them, "
    "and call it again once they said yes"
)


@dataclass(frozen=True)
class Outcome:
    """What the model receives (``content``), whether the tool succeeded, and how long it took."""

    content: str
    ok: bool
    duration: float


async def run_with_consent(
    name: str, arguments: str, modifies: bool, confirmed_by: str, session: str,
    call: Callable[[], Awaitable[tuple[str, bool]]], redact: Redactor,
    actions: ActionLog | None, logger: logging.Logger = log,
) -> Outcome:
    """Run the tool ``name`` through ``call`` (which gives its text and whether it
    succeeded), unless it ``modifies`` and ``confirmed_by``, the user's words that said
    yes, is empty. The text comes back masked and cut, as the model receives it; the run of
    one that modifies goes to ``actions``, with ``arguments`` as the JSON it was called
    with. An exception from ``call`` passes through, and nothing is written: the caller
    reports it. ``logger``: whose log names the call (the caller's)."""
    started = time.monotonic()
    confirmed = bool(confirmed_by.strip())
    if modifies and not confirmed:
        content, ok = f"error: {NEEDS_YES}", False
    else:
        content, ok = await call()
    content = redact(content)[:MAX_CONTENT]
    duration = time.monotonic() - started
    logger.info("%s: %s in %.2f s", name, "ok" if ok else content, duration)
    if modifies and confirmed:
        record_action(actions, name, arguments, confirmed_by, session, ok, content)
    return Outcome(content, ok, duration)


def record_action(
    actions: ActionLog | None, name: str, arguments: str, confirmed_by: str, session: str,
    ok: bool, content: str,
) -> None:
    """Write the run of a tool that modifies to the log of actions (when there is one)."""
    if actions is None:
        return
    try:
        values = json.loads(arguments)
    except ValueError:
        values = None
    action = Action(name, values if isinstance(values, dict) else {"unread": arguments[:200]},
                    confirmed_by[:200], ok, content, session)
    try:
        actions.record(action)
    except OSError as exc:  # the action ran: say so loudly, do not hide its result
        log.error("%s ran, but the log of actions could not be written: %s", name, exc)
