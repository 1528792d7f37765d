"""The whisper-server backend: one answering at ``[whisper] host:port``, else one started here.

whisper.cpp's server (``server_client.py`` speaks its HTTP API, ``server_process.py`` keeps
the one started here alive). Registered in :data:`hearing.stt.backends.BACKENDS` as
``server``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

import httpx

from hearing.stt.backends import Load, Readiness, Report
from hearing.stt.engine import Backend
from hearing.stt.languages import CODES
from hearing.stt.server_client import WhisperServerClient
from hearing.stt.server_process import ServerProcess
from settings.schema import Config, WhisperConfig

log = logging.getLogger(__name__)

FIX = 'set [whisper] server and model, or backend = "auto"'


def server_binary(config: WhisperConfig) -> str | None:
    """The whisper-server to start: ``[whisper] server`` as a path, or looked up in PATH."""
    found = shutil.which(config.server)
    return str(Path(found).resolve()) if found else None


def missing(config: WhisperConfig) -> list[str]:
    """What a start here lacks: the binary, the model file."""
    gone = [] if server_binary(config) else [f"no whisper-server binary {config.server!r}"]
    return gone + ([] if Path(config.model).is_file() else [f"no model file {config.model}"])


def health(url: str) -> str:
    """``ready``, ``loading its model`` (503) or empty when nothing answers (2 s at most)."""
    try:
        answer = httpx.get(f"{url}/health", timeout=2.0)
    except httpx.HTTPError:
        return ""
    if answer.status_code == 200:
        return "ready"
    return "loading its model" if answer.status_code == 503 else ""


class ManagedServer(WhisperServerClient):
    """The client of the whisper-server this service started and watches."""

    def __init__(self, config: WhisperConfig, binary: str, report: Report) -> None:
        super().__init__(config)
        self.process = ServerProcess(binary, config, self, report)
        self.process.start()

    async def close(self) -> None:
        await self.process.close()
        await super().close()


class WhisperServer:
    """The ``server`` backend's door (see :class:`hearing.stt.backends.BackendKind`)."""

    @classmethod
    def readiness(cls, config: WhisperConfig, live: bool) -> Readiness:
        url = f"http://{config.host}:{config.port}"
        answering = health(url) if live else ""
        if answering:
            return Readiness(True, f"whisper-server answers at {url} ({answering})")
        lacking = missing(config)
        if not lacking:
            return Readiness(True, f"whisper-server {server_binary(config)} with {config.model}")
        where = f"nothing answers at {url}; " if live else ""
        return Readiness(False, where + "; ".join(lacking), FIX)

    @classmethod
    def model_name(cls, config: WhisperConfig) -> str:
        return Path(config.model).stem

    @classmethod
    def auto_languages(cls, config: Config) -> list[str]:
        return sorted(CODES.values())  # whisper-server detects among all of Whisper's

    @classmethod
    async def open(
        cls, config: WhisperConfig, report: Report, languages: Sequence[str], load: Load
    ) -> Backend:
        client = WhisperServerClient(config)
        if await client.health() != "down":
            log.info("using the whisper-server that answers at %s", client.url)
            report("ready", "")
            return client
        binary, lacking = server_binary(config), missing(config)
        if binary and not lacking:
            await client.close()
            report("starting", "whisper-server is loading its model")
            return ManagedServer(config, binary, report)
        why = "; ".join(lacking)
        log.error("[whisper] backend = server: nothing answers at %s; %s", client.url, why)
        report("degraded", f"whisper-server unavailable: {why}"[:200])
        return client  # asked again at each utterance: a server started later is used
