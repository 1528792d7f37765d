"""The mic service replaying files (``--wav --fast``) on a real bus: what it published."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bus.client import Bus
from bus.message import Message
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def replayed(config_folder: ConfigFolder, files: list[Path], log_dir: Path) -> list[Message]:
    """Every ``audio.`` message the mic publishes while it replays ``files`` (it must exit 0)."""

    async def body(bus: Bus) -> list[Message]:
        bus.subscribe("audio.")
        mic = Process("services.mic", *config_folder.args(), "--wav", *map(str, files),
                      "--fast", log_dir=log_dir)
        assert await asyncio.to_thread(mic.popen.wait, 60) == 0, mic.output()
        got: list[Message] = []
        while (msg := await bus.recv(timeout=2)) is not None:
            got.append(msg)
        return got

    return with_buses(config_folder.endpoints, ["test"], body)
