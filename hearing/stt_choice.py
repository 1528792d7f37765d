"""Which speech-to-text backend the config leads to, decided in one place.

The STT service acts on it (``services/stt/backends.py``); ``doctor`` reports it and the
Wyoming server lists the model it means. Each used to repeat the rules, and a change to
one (a new backend, another fallback) had to be made three times. Whether a
whisper-server already answers is asked by the caller (over HTTP, async or not): the
rest is the config and what is on disk.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hearing.whisper_languages import CODES
from settings.schema import Config, WhisperConfig

Kind = Literal["answering", "start", "unavailable", "embedded"]
"""``answering``: the whisper-server on the port; ``start``: one started here;
``unavailable``: ``backend = "server"`` and neither (the STT waits for one);
``embedded``: faster-whisper in the STT's own process."""


@dataclass(frozen=True)
class SttChoice:
    kind: Kind
    binary: str | None = None
    """The whisper-server to start (``start``)."""
    missing: tuple[str, ...] = ()
    """Why no whisper-server is started here (``unavailable``, and ``embedded`` for
    ``auto``): the binary or the model file that is not there."""


def server_binary(config: WhisperConfig) -> str | None:
    """The whisper-server to start: ``[whisper] server`` as a path, or looked up in PATH."""
    found = shutil.which(config.server)
    return str(Path(found).resolve()) if found else None


def choose(config: WhisperConfig, answering: bool) -> SttChoice:
    """``server``: one answering on the port, else one started here. ``embedded``:
    faster-whisper. ``auto``: a running server, else a startable one, else embedded.
    ``answering``: whether a whisper-server answers at ``[whisper] host:port`` (not asked
    for ``embedded``)."""
    if config.backend == "embedded":
        return SttChoice("embedded")
    if answering:
        return SttChoice("answering")
    binary = server_binary(config)
    model_there = Path(config.model).is_file()
    if binary and model_there:
        return SttChoice("start", binary)
    missing = [] if binary else [f"no whisper-server binary {config.server!r}"]
    missing += [] if model_there else [f"no model file {config.model}"]
    kind: Kind = "unavailable" if config.backend == "server" else "embedded"
    return SttChoice(kind, binary, tuple(missing))


def spoken_languages(config: Config) -> list[str]:
    """ISO codes of the languages the assistant can speak (``[voice.*]`` and the default):
    the embedded recognizer chooses among these."""
    codes = {table.lang.split("-")[0].lower() for table in config.voice.values()}
    return sorted(codes | {config.audio.default_lang.split("-")[0].lower()})


def recognized_languages(config: Config) -> list[str]:
    """The languages the STT chooses among: the one ``[whisper] language`` names; for
    ``auto``, those of the voices with the embedded model (English alone with an English-only
    model), or all of Whisper's with whisper-server, which detects freely. A whisper-server
    already answering is not asked: what a start would choose is what is listed."""
    language = config.whisper.language
    if language != "auto":
        return [language]
    if choose(config.whisper, answering=False).kind != "embedded":
        return sorted(CODES.values())
    if config.whisper.embedded_model.endswith(".en"):
        return ["en"]
    return [code for code in spoken_languages(config) if code in CODES.values()]
