"""Choose the STT backend as ``[whisper] backend`` says, and bring it up."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from services.runner import load_in_thread
from services.stt.engine import Backend
from services.stt.server_client import WhisperServerClient
from services.stt.server_process import ServerProcess
from settings.schema import WhisperConfig

log = logging.getLogger(__name__)

Report = Callable[[str, str], None]
"""``Bus.set_state``: the heartbeat's state and why."""


class ManagedServer(WhisperServerClient):
    """The whisper-server backend with the process this service started and watches."""

    def __init__(self, config: WhisperConfig, binary: str, report: Report) -> None:
        super().__init__(config)
        self.process = ServerProcess(binary, config, self, report)
        self.process.start()

    async def close(self) -> None:
        await self.process.close()
        await super().close()


def server_binary(config: WhisperConfig) -> str | None:
    """The whisper-server to start: ``[whisper] server`` as a path, or looked up in PATH."""
    found = shutil.which(config.server)
    return str(Path(found).resolve()) if found else None


async def open_backend(
    config: WhisperConfig, report: Report, languages: Sequence[str] = ()
) -> Backend:
    """``server``: one answering on the port, else one started here. ``embedded``:
    faster-whisper. ``auto``: a running server, else a startable one, else embedded."""
    if config.backend != "embedded":
        client = WhisperServerClient(config)
        if await client.health() != "down":
            log.info("using the whisper-server that answers at %s", client.url)
            report("ready", "")
            return client
        await client.close()
        binary = server_binary(config)
        model_there = Path(config.model).is_file()
        if binary and model_there:
            report("starting", "whisper-server is loading its model")
            return ManagedServer(config, binary, report)
        missing = [] if binary else [f"no whisper-server binary {config.server!r}"]
        missing += [] if model_there else [f"no model file {config.model}"]
        if config.backend == "server":
            why = "; ".join(missing)
            log.error("[whisper] backend = server: nothing answers at %s; %s", client.url, why)
            report("degraded", f"whisper-server unavailable: {why}"[:200])
            return WhisperServerClient(config)
        log.info("no whisper-server (%s): using the embedded model", "; ".join(missing))
    from services.stt.embedded import EmbeddedWhisper

    return await load_in_thread(EmbeddedWhisper, config, languages)  # SIGTERM does not wait
