"""Home Assistant's response templates (Jinja) rendered with the slots of an answer.

Sandboxed and immutable: the templates come from a package, but nothing they do
may reach outside the values they are given.
"""

from __future__ import annotations

import logging
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

log = logging.getLogger(__name__)

_ENV = ImmutableSandboxedEnvironment()


def render(template: str | None, slots: dict[str, Any]) -> str | None:
    """The response on one line, or None when there is no template or it fails."""
    if not template:
        return None
    try:
        text = _ENV.from_string(template).render(slots=slots)
    except (TemplateError, TypeError, ValueError, AttributeError) as exc:
        log.warning("a response template failed: %s", exc)
        return None
    return " ".join(text.split()) or None


def timer_slots(left: float, seconds: float) -> dict[str, Any]:
    """One timer as Home Assistant's timer status templates read it."""
    whole = round(left)
    return {
        "is_active": True,
        "total_seconds_left": whole,
        "hours_left": whole // 3600,
        "minutes_left": whole % 3600 // 60,
        "seconds_left": whole % 60,
        "rounded_hours_left": whole // 3600,
        "rounded_minutes_left": whole % 3600 // 60,
        "rounded_seconds_left": whole % 60,
        "start_hours": round(seconds) // 3600,
        "start_minutes": round(seconds) % 3600 // 60,
        "start_seconds": round(seconds) % 60,
        "name": None,
        "area": None,
    }
