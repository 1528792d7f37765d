"""Fixtures: a private config folder, a real broker process on ipc, bus clients."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.endpoints import Endpoints
from tests.helpers.alone import Turns
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


SHARED_BY_A_PACKAGE = ("tests/system/e2e/",)
"""Packages whose tests share one package-scoped fixture (a whole assistant): one worker
runs them all, in their order."""


def worker_group(path: str) -> str:
    """The share of the suite one pytest-xdist worker runs whole and in order: a module
    (its module-scoped fixtures start once), or a package of :data:`SHARED_BY_A_PACKAGE`."""
    for package in SHARED_BY_A_PACKAGE:
        if path.startswith(package):
            return package
    return path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``-n`` (``--dist loadgroup``, as ``./bootstrap test`` runs the suite), each
    group goes to one worker. The whole-system tests go first: they are the longest, and a
    long group handed out last would leave the other workers idle at the end."""
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(worker_group(path)))
    items.sort(key=lambda item: not item.nodeid.startswith("tests/system/"))


_turns: list[Turns] = []


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Under ``-n``, a module of ``tests/helpers/alone.py``'s ``ALONE`` runs with no other
    test beside it. Outside pytest-timeout's timer: waiting for the turn is no test's time."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    module = item.nodeid.split("::", 1)[0]
    if run:
        if not _turns:
            _turns.append(Turns(run))
        _turns[0].take(module)
    yield
    if run and (nextitem is None or nextitem.nodeid.split("::", 1)[0] != module):
        _turns[0].give_back()
