"""Tool files: ``tools/<name>.toml`` in the config folder, one tool each.

The file name is the tool name. Parsed with ``tomllib`` and validated by
pydantic models that forbid unknown keys, so every problem names the file and
the key. The tools service, ``desktop-assistant tools`` and ``config check``
all read tool files through this module.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from settings.loader import ConfigError, describe_errors, load_config, read_toml
from settings.schema import MAX_CPU_SECONDS, MAX_MB, MAX_OUTPUT_BYTES, MAX_PROCESSES, Table
from settings.toolrules import PLACEHOLDER, announce_problem, confirm_problem, name_problem

log = logging.getLogger(__name__)

PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ParamSpec(Table):
    type: Literal["string", "integer", "number", "boolean"]
    """The JSON schema type the model is asked for."""
    description: str
    """What the model reads to fill the parameter in."""


class LimitsSpec(Table):
    """Per-tool overrides of the ``[tools]`` limits in config.toml (same keys)."""

    cpu_seconds: int | None = Field(None, ge=1, le=MAX_CPU_SECONDS)
    memory_mb: int | None = Field(None, ge=16, le=MAX_MB)
    file_size_mb: int | None = Field(None, ge=0, le=MAX_MB)
    processes: int | None = Field(None, ge=1, le=MAX_PROCESSES)
    output_bytes: int | None = Field(None, ge=2000, le=MAX_OUTPUT_BYTES)


INTENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


class IntentSpec(Table):
    """``[intent]``: the local intent this tool answers without the model."""

    name: str
    """A Home Assistant intent (``HassGetWeather``) the templates recognize."""
    slots: dict[str, str] = Field(default_factory=dict)
    """Tool parameter → the intent slot that fills it (``place = "place"``)."""

    @field_validator("name")
    @classmethod
    def _intent_name(cls, name: str) -> str:
        if not INTENT_NAME.match(name):
            raise ValueError(f"intent name {name!r} is not a plain identifier")
        return name


class ToolFile(Table):
    """One tool file."""

    description: str = Field(min_length=1)
    command: list[str] = Field(min_length=1)
    """argv, run without a shell; ``{param}`` in an element is replaced by its value."""
    timeout: float = Field(10.0, gt=0, le=600)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    announce: dict[str, list[str]] = Field(default_factory=dict)
    """Language code → phrases, one of which is spoken before the tool runs."""
    limits: LimitsSpec = LimitsSpec()
    intent: IntentSpec | None = None
    modifies: bool = False
    """It changes something (adds an event, sends a message, controls the desktop): the
    assistant asks the user and runs it only after their own yes."""
    confirm: dict[str, str] = Field(default_factory=dict)
    """Language code → the question asked before it runs, with ``{param}`` placeholders;
    without one the assistant builds a plain question from the description."""

    @field_validator("command")
    @classmethod
    def _program_named(cls, command: list[str]) -> list[str]:
        if not command[0]:
            raise ValueError("command[0] (the program) must not be empty")
        return command

    @field_validator("announce")
    @classmethod
    def _spoken(cls, announce: dict[str, list[str]]) -> dict[str, list[str]]:
        problem = announce_problem(announce)
        if problem is not None:
            raise ValueError(problem)
        return announce

    @field_validator("params")
    @classmethod
    def _param_names(cls, params: dict[str, ParamSpec]) -> dict[str, ParamSpec]:
        for name in params:
            if not PARAM_NAME.match(name):
                raise ValueError(f"parameter name {name!r} is not a plain identifier")
        return params


class Tool:
    """A validated tool: its name, its spec and the file it came from."""

    def __init__(self, name: str, spec: ToolFile, path: Path) -> None:
        self.name = name
        self.spec = spec
        self.path = path

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the parameters, as the model receives it."""
        return {
            "type": "object",
            "properties": {
                name: {"type": param.type, "description": param.description}
                for name, param in self.spec.params.items()
            },
        }

    def catalog_entry(self) -> dict[str, Any]:
        """The fields of the bus contract's catalog entry (``bus.messages.tools.ToolSpec``,
        built by the tools service: settings sit below the bus and do not import it)."""
        return {
            "name": self.name,
            "description": self.spec.description,
            "parameters": self.schema(),
            "announce": {lang: list(phrases) for lang, phrases in self.spec.announce.items()},
            "timeout": self.spec.timeout,
            "intent": self.spec.intent.name if self.spec.intent else "",
            "slots": dict(self.spec.intent.slots) if self.spec.intent else {},
            "modifies": self.spec.modifies,
            "confirm": dict(self.spec.confirm),
        }


def tool_files(folder: Path) -> list[Path]:
    """``tools/*.toml`` of a config folder, sorted; none when ``tools/`` is missing.

    Editors' lock and backup files (``.#x.toml``, ``#x.toml#``, ``x.toml~``, ``.x.toml.swp``)
    are left out with a note: one open in an editor must not stop the start."""
    tools_dir = folder / "tools"
    if not tools_dir.is_dir():
        return []
    files = []
    for path in sorted(tools_dir.glob("*.toml")):
        if path.name.startswith((".", "#")):
            log.info("%s: ignored (an editor's lock or hidden file, not a tool)", path)
        else:
            files.append(path)
    return files


def parse_tool(path: Path) -> Tool:
    """Read and validate one tool file, or raise ConfigError naming the file and key."""
    name = path.stem
    problem = name_problem(name)
    if problem is not None:
        raise ConfigError(f"{path}: the file name: {problem}")
    raw = read_toml(path)
    try:
        spec = ToolFile.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, path)) from None
    undeclared = [
        f"{path}: top level, key 'command': command[{i}] uses {{{ph}}} but there is "
        f"no [params.{ph}]"
        for i, part in enumerate(spec.command)
        for ph in PLACEHOLDER.findall(part)
        if ph not in spec.params
    ]
    problem = confirm_problem(spec.modifies, spec.confirm, set(spec.params))
    if problem is not None:
        undeclared.append(f"{path}: {problem}")
    undeclared += [
        f"{path}: [intent.slots] fills {param!r} but there is no [params.{param}]"
        for param in (spec.intent.slots if spec.intent else {})
        if param not in spec.params
    ]
    if undeclared:
        raise ConfigError("\n".join(undeclared))
    return Tool(name, spec, path)


def load_tools(folder: Path) -> dict[str, Tool]:
    """Every tool of the config folder; ConfigError lists every bad file."""
    tools: dict[str, Tool] = {}
    problems: list[str] = []
    for path in tool_files(folder):
        try:
            tool = parse_tool(path)
        except ConfigError as exc:
            problems.append(str(exc))
        else:
            tools[tool.name] = tool
    if problems:
        raise ConfigError("\n".join(problems))
    return tools


def resolve_program(program: str, tools_dir: Path, path_var: str | None) -> str | None:
    """``command[0]``: a name without a slash in ``tools/`` first, then ``PATH``.

    A name with a slash is taken relative to ``tools/`` (or as is, when
    absolute). Returns None when nothing executable is found.
    """
    if "/" in program:
        candidate = tools_dir / program
        return str(candidate) if _executable(candidate) else None
    local = tools_dir / program
    if _executable(local):
        return str(local)
    return shutil.which(program, path=path_var if path_var is not None else os.defpath)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def check_tool_files(folder: Path) -> list[str]:
    """``config check``: every problem of the tool files, including unrunnable programs."""
    problems: list[str] = []
    try:
        env_path = load_config(folder)[0].env.get("PATH", os.environ.get("PATH"))
    except ConfigError:
        env_path = os.environ.get("PATH")  # config.toml itself is reported by its own check
    for path in tool_files(folder):
        try:
            tool = parse_tool(path)
        except ConfigError as exc:
            problems.extend(str(exc).splitlines())
            continue
        program = tool.spec.command[0]
        if resolve_program(program, folder / "tools", env_path) is None:
            where = "tools/" if "/" in program else "tools/ or PATH"
            problems.append(
                f"{path}: top level, key 'command': program {program!r} is not an "
                f"executable file in {where}"
            )
    return problems
