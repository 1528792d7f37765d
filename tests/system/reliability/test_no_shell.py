"""No shell and no string-built command lines anywhere in the project."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.processes import ROOT

FORBIDDEN_CALLS = {"system", "popen", "getoutput", "getstatusoutput", "spawnlp", "spawnvp"}
FOLDERS = ["bus", "services", "desktop_assistant", "examples", "bench", "tests", "docs"]


def python_files() -> list[Path]:
    return [p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")]


def offences(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg == "shell" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                found.append(f"{path}:{node.lineno}: shell=")
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_CALLS:
            if isinstance(func.value, ast.Name) and func.value.id in ("os", "subprocess"):
                found.append(f"{path}:{node.lineno}: {func.value.id}.{func.attr}")
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and (func.value.id == "subprocess" or func.attr == "create_subprocess_exec")
        ):
            if node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr | ast.BinOp):
                found.append(f"{path}:{node.lineno}: command line built as a string")
        if isinstance(func, ast.Attribute) and func.attr == "create_subprocess_shell":
            found.append(f"{path}:{node.lineno}: create_subprocess_shell")
    return found


def test_the_scanner_catches_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    shell_keyword = "shell" + "=True"  # spelled apart so that source greps stay clean
    bad.write_text(
        f"import os, subprocess\nsubprocess.run(['ls'], {shell_keyword})\nos.system('x')\n"
        "subprocess.Popen(f'rm {x}')\n"
    )
    assert len(offences(bad)) == 3


def test_no_shell_anywhere() -> None:
    files = python_files()
    assert len(files) > 20
    found = [o for path in files for o in offences(path)]
    assert found == []
