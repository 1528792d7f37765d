"""A second copy of a service refuses to start; a copy killed with SIGKILL blocks nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bus.client import Bus
from bus.messages import Heartbeat
from tests.conftest import ConfigFolder
from tests.helpers.busrun import with_buses
from tests.helpers.processes import Process


def wait_ready(folder: ConfigFolder, name: str, pid: int) -> None:
    async def ready(bus: Bus) -> None:
        await bus.wait_for(
            Heartbeat,
            lambda h: (h.service, h.pid) == (name, pid) and h.state in ("ready", "degraded"),
            30,
        )

    with_buses(folder.endpoints, ["probe"], ready)


@pytest.mark.parametrize(
    ("module", "name"), [("services.dialogue", "dialogue"), ("services.tools", "tools")]
)
def test_a_second_copy_refuses_and_a_killed_one_leaves_no_lock(
    module: str, name: str, broker: Process, config_folder: ConfigFolder, log_dir: Path
) -> None:
    first = Process(module, *config_folder.args(), log_dir=log_dir)
    copies = [first]
    try:
        wait_ready(config_folder, name, first.pid)
        second = Process(module, *config_folder.args(), log_dir=log_dir)
        copies.append(second)
        assert second.popen.wait(30) == 2
        refusal = second.output()
        assert f"{name}: another copy is running already" in refusal
        assert f"(pid {first.pid};" in refusal
        assert "Traceback" not in refusal

        first.kill()  # SIGKILL: no clean-up of its own ran
        third = Process(module, *config_folder.args(), log_dir=log_dir)
        copies.append(third)
        wait_ready(config_folder, name, third.pid)
    finally:
        for proc in copies:
            proc.stop()
