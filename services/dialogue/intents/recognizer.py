"""Which known request a question is: Home Assistant's sentence templates, parsed by hassil.

The templates come from ``home-assistant-intents`` (50+ languages), with ours in
``sentences/<lang>.yaml`` added where they fall short for a desktop assistant (no
devices to name, Japanese beyond the time, "what can you do"). Only the intents
that something here answers are kept, and only the languages the config has voices
for are loaded: the rest would cost memory and start-up time for nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import home_assistant_intents
import yaml
from hassil import Intents, SlotList, TextSlotList, recognize

log = logging.getLogger(__name__)

SENTENCES = Path(__file__).with_name("sentences")
CONTEXT = {"area": "here"}
"""Home Assistant's device-free volume sentences ask for an area in the context: the
assistant's own loudspeaker is the one "here"."""
NO_DEVICES = ("name", "area", "floor")
"""Lists of Home Assistant's entities and places: none here, so none match."""


@dataclass(frozen=True)
class Match:
    intent: str
    slots: dict[str, Any]
    """Slot name → value (a number for numbers, the words for a wildcard)."""
    texts: dict[str, str]
    """Slot name → the words that filled it, as said."""
    lang: str
    response: str | None
    """The intent's response template in ``lang`` (Jinja), when the package has one."""


class Recognizer:
    def __init__(self, langs: list[str], intents: set[str]) -> None:
        self._by_lang: dict[str, Intents] = {}
        self._responses: dict[str, dict[str, Any]] = {}
        for lang in sorted(set(langs)):
            data = _load(lang, intents)
            if data is not None:
                self._by_lang[lang] = Intents.from_dict(data)
                self._responses[lang] = data.get("responses", {}).get("intents", {})
        empty = TextSlotList.from_strings([])
        self._empty: dict[str, SlotList] = {name: empty for name in NO_DEVICES}
        log.info("intents: %s", ", ".join(self._by_lang) or "no language")

    @property
    def langs(self) -> list[str]:
        return list(self._by_lang)

    def recognize(self, text: str, lang: str) -> Match | None:
        base = lang.split("-")[0].lower()
        intents = self._by_lang.get(base)
        if intents is None or not text.strip():
            return None
        result = recognize(text, intents, slot_lists=self._empty, intent_context=CONTEXT)
        if result is None:
            return None
        name = result.intent.name
        slots = {k: e.value for k, e in result.entities.items() if k not in CONTEXT}
        texts = {k: (e.text or str(e.value)).strip() for k, e in result.entities.items()}
        response = self._responses[base].get(name, {}).get(result.response or "default")
        return Match(name, slots, texts, base, response)


def _load(lang: str, wanted: set[str]) -> dict[str, Any] | None:
    """The package's data for ``lang`` and ours merged, cut down to ``wanted`` intents."""
    data = home_assistant_intents.get_intents(lang)
    ours_file = SENTENCES / f"{lang}.yaml"
    ours = yaml.safe_load(ours_file.read_text(encoding="utf-8")) if ours_file.exists() else None
    if data is None and ours is None:
        log.info("intents: no sentence templates for %r", lang)
        return None
    data = data or {"language": lang, "intents": {}}
    data["intents"] = {k: v for k, v in data["intents"].items() if k in wanted}
    for name, intent in (ours or {}).get("intents", {}).items():
        if name in wanted:
            data["intents"].setdefault(name, {"data": []})["data"].extend(intent["data"])
    for key in ("lists", "expansion_rules"):
        data[key] = {**data.get(key, {}), **(ours or {}).get(key, {})}
    responses = data.setdefault("responses", {}).setdefault("intents", {})
    for name, templates in (ours or {}).get("responses", {}).get("intents", {}).items():
        responses[name] = {**responses.get(name, {}), **templates}  # ours win
    return data
