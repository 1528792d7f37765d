"""The broker keeps its sockets in a private folder and never changes a folder it did not make."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from bus.broker import Broker
from bus.endpoints import EndpointError, resolve
from bus.process import endpoints_of
from settings.schema import BusConfig, Config


@pytest.fixture
def ctx() -> Iterator[zmq.Context]:
    context = zmq.Context()
    yield context
    context.term()


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def sockets_in(folder: Path) -> tuple[str, str]:
    return f"ipc://{folder}/pub.sock", f"ipc://{folder}/sub.sock"


@pytest.mark.parametrize("mode", [0o755, 0o775, 0o1777])
def test_a_shared_folder_is_refused_and_left_as_it_was(
    tmp_path: Path, ctx: zmq.Context, mode: int
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)  # a working directory, a group folder, /tmp
    broker = Broker(resolve(*sockets_in(shared)), ctx)
    with pytest.raises(EndpointError, match=f"{shared} is shared \\(mode {mode:04o}\\)"):
        broker.start()
    assert mode_of(shared) == mode
    assert list(shared.iterdir()) == []


def test_a_folder_it_creates_is_private_and_it_starts(tmp_path: Path, ctx: zmq.Context) -> None:
    os.umask(old := os.umask(0o022))
    folder = tmp_path / "new" / "bus"
    broker = Broker(resolve(*sockets_in(folder)), ctx)
    broker.start()
    try:
        assert mode_of(folder) == 0o700
        assert (folder / "pub.sock").exists()
    finally:
        broker.stop()
    assert old == os.umask(old)
    # a restart finds its own folder as it left it
    again = Broker(resolve(*sockets_in(folder)), ctx)
    again.start()
    again.stop()


def test_its_default_folder_loses_read_bits_others_gained(
    tmp_path: Path, ctx: zmq.Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = tmp_path / "desktop-assistant"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    broker = Broker(resolve(), ctx)
    broker.start()
    broker.stop()
    assert mode_of(folder) == 0o700


def test_an_abstract_endpoint_is_refused_by_default() -> None:
    with pytest.raises(EndpointError, match="any local user can connect.*allow_abstract_ipc"):
        resolve("ipc://@da-pub", "ipc://@da-sub")


def test_an_allowed_abstract_endpoint_warns_and_touches_no_folder(
    tmp_path: Path, ctx: zmq.Context, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    workdir = tmp_path / "cwd"
    workdir.mkdir(mode=0o755)
    workdir.chmod(0o755)
    monkeypatch.chdir(workdir)  # the parent of "@name" was the working directory
    name = f"@da-test-{os.getpid()}"
    bus = BusConfig(pub=f"ipc://{name}-pub", sub=f"ipc://{name}-sub", allow_abstract_ipc=True)
    with caplog.at_level(logging.WARNING):
        endpoints = endpoints_of(Config(bus=bus))
    assert "any local user can connect" in caplog.text
    broker = Broker(endpoints, ctx)
    broker.start()
    broker.stop()
    assert mode_of(workdir) == 0o755
