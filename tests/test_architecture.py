"""The layers of ``docs/architecture.md`` hold: no package imports one above it.

Ground floor ``settings/`` and ``bus/``, the cores beside them (``hearing/``, ``speaking/``,
``network/``: no bus code), then ``services/``, then the command line (``desktop_assistant/``);
``examples/`` stand alone because users copy them. Within ``services/`` every folder is
one service but ``services/base/``, the shared service base: a service imports the base
and the cores, never another service, and the base imports no service. Imports are
read with ``ast`` from the tracked files, also those inside functions and
``TYPE_CHECKING`` blocks: each is a dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.processes import ROOT
from tests.helpers.tracked import tracked_files

OURS = {"bus", "settings", "hearing", "speaking", "network", "services", "desktop_assistant",
        "bench", "examples", "tests", "docs"}

# What each layer may import of ours (third-party and the standard library are free).
ALLOWED = {
    "settings": {"settings"},
    "bus": {"bus", "settings"},
    "hearing": {"hearing", "settings"},
    "speaking": {"speaking", "settings"},
    "network": {"network", "settings"},
    "services": {"services", "hearing", "speaking", "network", "bus", "settings"},
    "desktop_assistant": {
        "desktop_assistant", "services", "hearing", "speaking", "network", "bus", "settings"
    },
    "examples": {"examples"},
}


def imported_packages(source: str, own: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in ``source``; relative ones are ``own``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            top = own if node.level else (node.module or "").split(".")[0]
            found.append((node.lineno, top))
    return found


def layer_violations(path: Path) -> list[str]:
    """Each import in the file at ``path`` that reaches a layer above its own."""
    relative = path.relative_to(ROOT)
    layer = relative.parts[0]
    allowed = ALLOWED[layer]
    return [
        f"{relative}:{line} imports {package}"
        for line, package in imported_packages(path.read_text(), layer)
        if package in OURS and package not in allowed
    ]


def test_the_reader_finds_plain_from_relative_and_nested_imports() -> None:
    source = (
        "import bus.client, numpy\n"
        "from services.base.names import BRAIN\n"
        "from . import sibling\n"
        "def later():\n"
        "    from desktop_assistant import cli\n"
    )
    assert imported_packages(source, "settings") == [
        (1, "bus"),
        (1, "numpy"),
        (2, "services"),
        (3, "settings"),
        (5, "desktop_assistant"),
    ]


def test_every_layer_imports_only_itself_and_the_layers_below() -> None:
    files = [path for path in tracked_files("*.py") if path.relative_to(ROOT).parts[0] in ALLOWED]
    layers_seen = {path.relative_to(ROOT).parts[0] for path in files}
    assert layers_seen == set(ALLOWED)  # every layer was read, so no rule passes unchecked
    violations = [violation for path in files for violation in layer_violations(path)]
    assert violations == []


BASE = "base"
"""``services/base/``: what every service may import (``docs/architecture.md``)."""


def service_imports(path: Path) -> set[tuple[str, str]]:
    """(this package, a service) for each import in a file under ``services/`` of a
    service's modules (``services.X.*``, where ``services/X/`` is a folder other than the
    base) that is not its own."""
    relative = path.relative_to(ROOT)
    own = relative.parts[1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        for name in names:
            parts = name.split(".")
            if (len(parts) > 1 and parts[0] == "services" and parts[1] not in (own, BASE)
                    and (ROOT / "services" / parts[1]).is_dir()):
                found.add((own, parts[1]))
    return found


def test_a_service_never_imports_another_and_the_base_imports_none() -> None:
    files = [path for path in tracked_files("*.py")
             if path.relative_to(ROOT).parts[0] == "services"
             and len(path.relative_to(ROOT).parts) > 2]
    assert any(path.relative_to(ROOT).parts[1] == BASE for path in files)
    pairs = {pair for path in files for pair in service_imports(path)}
    assert pairs == set()


def test_nothing_but_services_and_their_base_is_under_services() -> None:
    """A module at the top of ``services/`` would be shared without being the base: what
    two services share goes into ``services/base/`` (bus code) or a core (no bus)."""
    top = {path.name for path in tracked_files("*.py")
           if path.relative_to(ROOT).parts[0] == "services"
           and len(path.relative_to(ROOT).parts) == 2}
    assert top == {"__init__.py"}
