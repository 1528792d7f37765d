"""Every service reads the same (``docs/architecture.md``, "One service shape"): a
``__main__.py`` that parses and makes one call, a ``service.py`` with the start and the
class whose handler table routes the bus."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from services.base.service import Service

SERVICES = Path(__file__).resolve().parents[2] / "services"
ENTRY_POINTS = sorted(p.parent.name for p in SERVICES.glob("*/__main__.py"))


def test_every_service_process_has_an_entry_point() -> None:
    expected = {"brain", "dialogue", "mic", "stt", "tools", "tts", "watchdog",
                "wyoming", "satellites"}
    assert set(ENTRY_POINTS) == expected


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_main_parses_then_makes_one_call(name: str) -> None:
    tree = ast.parse((SERVICES / name / "__main__.py").read_text())
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert functions == ["main"], "one main(argv), nothing else defined"
    [main] = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert [a.arg for a in main.args.args] == ["argv"]
    calls = [
        node for node in ast.walk(main)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "run_service"
    ]
    assert len(calls) == 1
    assert [getattr(arg, "id", "") for arg in calls[0].args][2:] == ["start"]
    assert not calls[0].keywords, "one start form: run_service(NAME, args, start)"
    last = main.body[-1]
    assert isinstance(last, ast.Return) and last.value is calls[0]


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_service_module_has_the_start_and_one_service_class(name: str) -> None:
    module = f"services.{name}.service"
    start = getattr(importlib.import_module(module), "start", None)
    assert callable(start), "one start form: start(config, args) returns the main"
    assert list(inspect.signature(start).parameters) in (["config", "args"], ["config", "_"])
    home = importlib.import_module(module)
    classes = [
        value for value in vars(home).values()
        if inspect.isclass(value) and issubclass(value, Service) and value is not Service
        and value.__module__ == home.__name__
    ]
    assert len(classes) == 1, classes
    assert classes[0].HANDLERS, "the table is both the subscriptions and the dispatch"
