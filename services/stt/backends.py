"""Choose the STT backend as ``[whisper] backend`` says, and bring it up."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from hearing.stt_choice import choose
from services.base.runner import load_in_thread
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


async def open_backend(
    config: WhisperConfig, report: Report, languages: Sequence[str] = ()
) -> Backend:
    """``server``: one answering on the port, else one started here. ``embedded``:
    faster-whisper. ``auto``: a running server, else a startable one, else embedded."""
    if config.backend != "embedded":
        client = WhisperServerClient(config)
        answering = await client.health() != "down"
        choice = choose(config, answering)
        if choice.kind == "answering":
            log.info("using the whisper-server that answers at %s", client.url)
            report("ready", "")
            return client
        await client.close()
        if choice.kind == "start" and choice.binary:
            report("starting", "whisper-server is loading its model")
            return ManagedServer(config, choice.binary, report)
        why = "; ".join(choice.missing)
        if choice.kind == "unavailable":
            log.error("[whisper] backend = server: nothing answers at %s; %s", client.url, why)
            report("degraded", f"whisper-server unavailable: {why}"[:200])
            return WhisperServerClient(config)
        log.info("no whisper-server (%s): using the embedded model", why)
    from services.stt.embedded import EmbeddedWhisper

    return await load_in_thread(EmbeddedWhisper, config, languages)  # SIGTERM does not wait
