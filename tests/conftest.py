"""Fixtures: a private config folder, a real broker process on ipc, bus clients."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.endpoints import Endpoints
from tests.helpers.broker import running_broker
from tests.helpers.processes import Process
from tests.helpers.service_stack import always_listening


class ConfigFolder:
    """A config folder under a short temp path (ipc paths are limited to 107 characters)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / "config"
        self.path.mkdir()
        (self.path / "tools").mkdir()
        self.runtime = root / "run"
        self.endpoints = Endpoints(
            pub=f"ipc://{self.runtime}/pub.sock", sub=f"ipc://{self.runtime}/sub.sock"
        )
        self.write("")

    def write(self, body: str) -> None:
        """Write config.toml: the [bus] table for this test, then ``body``."""
        head = f'[bus]\npub = "{self.endpoints.pub}"\nsub = "{self.endpoints.sub}"\n'
        if body.lstrip().startswith("[bus]"):
            raise ValueError("pass extra [bus] keys through write_bus")
        top, tables = _split_top(body)
        (self.path / "config.toml").write_text(top + head + tables + always_listening(tables))

    def args(self) -> list[str]:
        return ["--config", str(self.path)]


def _split_top(body: str) -> tuple[str, str]:
    """Top-level keys must precede the first table header."""
    lines = body.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.lstrip().startswith("["):
            return "".join(lines[:i]), "".join(lines[i:])
    return body if body.endswith("\n") or not body else body + "\n", ""


@pytest.fixture
def config_folder() -> Iterator[ConfigFolder]:
    root = Path(tempfile.mkdtemp(prefix="da-"))
    try:
        yield ConfigFolder(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def broker(config_folder: ConfigFolder, log_dir: Path) -> Iterator[Process]:
    """A real broker process (``python -m bus``) on this test's ipc endpoints."""
    with running_broker(config_folder.path, config_folder.endpoints, log_dir) as proc:
        yield proc


@pytest.fixture(scope="module")
def module_broker() -> Iterator[Endpoints]:
    """One real broker shared by a test module (on its own config folder), for modules whose
    tests each start their own clients and need no fresh broker."""
    root = Path(tempfile.mkdtemp(prefix="da-"))
    folder = ConfigFolder(root)
    try:
        with running_broker(folder.path, folder.endpoints, root):
            yield folder.endpoints
    finally:
        shutil.rmtree(root, ignore_errors=True)
