"""Speech-to-text backends behind one door: which one the config leads to, and opening it.

:data:`BACKENDS` lists them; ``[whisper] backend`` names one, and ``auto`` takes the first
that is ready, in the order of the list. :func:`choose` decides, and every user asks it:
the STT service opens what it chose (:func:`open_backend`), ``doctor`` reports it and the
Wyoming server lists its model and languages; nothing else repeats the rules. A backend is
one module with a class that has what :class:`BackendKind` lists (and whose instances are
:class:`~hearing.stt.engine.Backend`), plus its line in :data:`BACKENDS`
(``docs/architecture.md`` shows one).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hearing.stt.engine import Backend
from settings.schema import Config, WhisperConfig

log = logging.getLogger(__name__)

BACKENDS: dict[str, str] = {
    "server": "hearing.stt.whisper_server:WhisperServer",
    "embedded": "hearing.stt.embedded:EmbeddedWhisper",
}
"""``[whisper] backend`` -> the class that opens it (imported only when asked: a backend's
module may load its runtime). ``auto`` tries them in this order: a whisper-server first,
since a user who runs one wants it used, and the embedded model, always there, last."""

Report = Callable[[str, str], None]
"""``Bus.set_state``: the service's state and why (a backend says when it is ready)."""
Load = Callable[..., Awaitable[Any]]
"""How a blocking load runs without holding the service's loop (``load_in_thread``)."""


class UnknownBackend(ValueError):
    """``[whisper] backend`` names none of :data:`BACKENDS`."""


@dataclass(frozen=True)
class Readiness:
    ready: bool
    """It can transcribe here: it answers, or what it needs to start is there."""
    detail: str
    """What ``doctor`` says of it: where it answers, what it loads, or what is missing."""
    fix: str = ""
    """What to change when it is not ready."""


class BackendKind(Protocol):
    """A backend's class, as the door uses it."""

    @classmethod
    def readiness(cls, config: WhisperConfig, live: bool) -> Readiness:
        """Whether it can be used; ``live``: it may ask a running server (briefly)."""
        ...

    @classmethod
    def model_name(cls, config: WhisperConfig) -> str:
        """The model it transcribes with, as the Wyoming server lists it."""
        ...

    @classmethod
    def auto_languages(cls, config: Config) -> list[str]:
        """The ISO codes it chooses among with ``[whisper] language = "auto"``."""
        ...

    @classmethod
    async def open(
        cls, config: WhisperConfig, report: Report, languages: Sequence[str], load: Load
    ) -> Backend:
        """The backend, ready or on its way (it reports ``ready`` through ``report``);
        ``languages``: those the assistant can answer in."""
        ...


@dataclass(frozen=True)
class Choice:
    name: str
    kind: BackendKind
    readiness: Readiness
    passed: tuple[str, ...] = ()
    """With ``auto``: why each backend before it was not taken."""


def backend_kind(name: str) -> BackendKind:
    if name not in BACKENDS:
        known = ", ".join(["auto", *BACKENDS])
        raise UnknownBackend(f"unknown [whisper] backend {name!r}; known: {known}")
    module, _, attribute = BACKENDS[name].partition(":")
    kind: BackendKind = getattr(importlib.import_module(module), attribute)
    return kind


def backend_problems(config: WhisperConfig) -> list[str]:
    """Why the STT would refuse to start (``config check`` says the same first)."""
    if config.backend == "auto":
        return []
    try:
        backend_kind(config.backend)
    except UnknownBackend as exc:
        return [str(exc)]
    return []


def choose(config: WhisperConfig, live: bool = False) -> Choice:
    """The backend ``[whisper] backend`` leads to; ``auto``: the first ready one, else the
    last (opening it says why it cannot work). ``live``: ask a running server whether it
    answers (without, what a start here would choose). Raises :class:`UnknownBackend`."""
    if config.backend != "auto":
        kind = backend_kind(config.backend)
        return Choice(config.backend, kind, kind.readiness(config, live))
    passed: list[str] = []
    for name in BACKENDS:
        kind = backend_kind(name)
        readiness = kind.readiness(config, live)
        if readiness.ready:
            break
        passed.append(f"{name}: {readiness.detail}")
    return Choice(name, kind, readiness, tuple(passed[: len(passed) - (not readiness.ready)]))


async def open_backend(config: Config, report: Report, load: Load) -> Backend:
    """The backend :func:`choose` leads to, opened (a running server is asked first)."""
    choice = await asyncio.to_thread(choose, config.whisper, True)
    if choice.passed:
        log.info("[whisper] backend auto: %s; using %s", "; ".join(choice.passed), choice.name)
    return await choice.kind.open(config.whisper, report, spoken_languages(config), load)


def spoken_languages(config: Config) -> list[str]:
    """ISO codes of the languages the assistant can speak (``[voice.*]`` and the default):
    the embedded recognizer chooses among these."""
    codes = {table.lang.split("-")[0].lower() for table in config.voice.values()}
    return sorted(codes | {config.audio.default_lang.split("-")[0].lower()})


def recognized_languages(config: Config) -> list[str]:
    """The languages the STT chooses among: the one ``[whisper] language`` names, else those
    of the backend a start would choose (a running server is not asked)."""
    if config.whisper.language != "auto":
        return [config.whisper.language]
    return choose(config.whisper).kind.auto_languages(config)
