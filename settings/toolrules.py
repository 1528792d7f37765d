"""What makes a tool valid: one set of rules for the tool files and the bus catalog.

``tools check``, the tools service (both through :mod:`settings.toolfiles`) and
the catalog entry on the bus (``bus.messages.tools.ToolSpec``, which the dialogue
decodes) apply these same functions, so a tool that the check passes is never
dropped by the dialogue afterwards.
"""

from __future__ import annotations

import re

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What OpenAI-style servers accept as a function name."""
VOLUME_TOOL = "adjust_volume"
"""Built into the dialogue: the voice side owns the volume, so no tool file may take it."""
BUILT_IN = frozenset({VOLUME_TOOL})
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``{param}`` in a command element or a confirmation question."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a tool's name, or None."""
    if not TOOL_NAME.fullmatch(name):
        return f"{name!r} is not a valid tool name (letters, digits, '_' and '-', at most 64)"
    if name in BUILT_IN:
        return f"{name!r} is the name of a built-in tool: give the tool another name"
    return None


def confirm_problem(
    modifies: bool, confirm: dict[str, str], parameters: set[str] | None = None
) -> str | None:
    """Why a ``confirm`` table cannot be asked, or None: it belongs to a tool that
    ``modifies``, each question has words, and its ``{placeholders}`` are parameters
    (when ``parameters`` is known)."""
    if confirm and not modifies:
        return "confirm is asked only before a tool that modifies: add modifies = true"
    for lang, question in confirm.items():
        if not question.strip():
            return f"confirm.{lang} is blank: the question must have words to speak"
        unknown = [p for p in PLACEHOLDER.findall(question)
                   if parameters is not None and p not in parameters]
        if unknown:
            return f"confirm.{lang} uses {{{unknown[0]}}} but there is no [params.{unknown[0]}]"
    return None


def announce_problem(announce: dict[str, list[str]]) -> str | None:
    """Why an ``announce`` table cannot be spoken (a blank phrase), or None."""
    for lang, phrases in announce.items():
        for i, phrase in enumerate(phrases):
            if not phrase.strip():
                return f"announce.{lang}[{i}] is blank: every phrase must have words to speak"
    return None
