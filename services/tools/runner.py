"""Run a tool by name with the model's arguments and turn every ending into the model's text."""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path

from services.tools.arguments import ToolError, parse_arguments, substitute
from services.tools.consent import MAX_CONTENT, Outcome, run_with_consent
from services.tools.process import CannotStart, Finished, Limits, run_sandboxed
from services.tools.sandbox_exec import CANNOT_START
from services.tools.scratch import remove_stale_scratch, scratch_prefix
from settings.actions import ActionLog
from settings.loader import ENV_VAR
from settings.schema import ToolsConfig
from settings.secrets import Redactor
from settings.toolfiles import Tool, resolve_program

log = logging.getLogger(__name__)

MAX_STDERR_LINE = 300


class Runner:
    """Runs the configured tools: argv without a shell, sandboxed, every failure a result."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        tools_dir: Path,
        env: Mapping[str, str],
        defaults: ToolsConfig,
        actions: ActionLog | None = None,
    ) -> None:
        self.tools = dict(tools)
        self.actions = actions
        """Where each run of a tool that modifies is written (None: nowhere, for tests)."""
        self.tools_dir = tools_dir
        self.env = with_own_programs({**os.environ, ENV_VAR: str(tools_dir.parent), **env})
        """The service's own environment plus ``[env]``; the assistant's own programs
        (``desktop-assistant``) last on PATH, and its config folder (the tools folder's
        parent) in ``$DESKTOP_ASSISTANT_CONFIG``, so a tool's ``desktop-assistant remind``
        reaches this assistant's bus."""
        self.redact = Redactor(env, defaults.secret_env)
        """Results, which the model, the bus and the log see, never show a secret ``[env]``
        value; masked before any cut, so that no first part of one is left behind."""
        self.defaults = defaults
        remove_stale_scratch()

    def limits_of(self, tool: Tool) -> Limits:
        own = tool.spec.limits.model_dump(exclude_none=True)
        base = self.defaults.model_dump(include={field.name for field in fields(Limits)})
        return Limits(**{**base, **own})

    async def run(
        self, name: str, arguments: str, confirmed_by: str = "", session: str = ""
    ) -> Outcome:
        """Run ``name``; one that modifies needs ``confirmed_by``, the user's own words that
        said yes, and its run is written to the log of actions (:func:`run_with_consent`)."""
        tool = self.tools.get(name)

        async def call() -> tuple[str, bool]:
            try:
                return await self._run(name, arguments), True
            except ToolError as exc:
                return f"error: {exc}", False

        return await run_with_consent(
            name, arguments, tool is not None and tool.spec.modifies, confirmed_by, session,
            call, self.redact, self.actions, log,
        )

    async def _run(self, name: str, arguments: str) -> str:
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise ToolError(f"unknown tool {name!r} (known: {known})")
        values = parse_arguments(arguments)
        argv = substitute(tool.spec.command, tool.spec.params, values)
        program = resolve_program(argv[0], self.tools_dir, self.env.get("PATH"))
        if program is None:
            where = "tools/" if "/" in argv[0] else "tools/ or PATH"
            raise ToolError(f"cannot start {argv[0]!r}: no executable file in {where}")
        with tempfile.TemporaryDirectory(prefix=scratch_prefix(os.getpid())) as scratch:
            env = {**self.env, "TMPDIR": scratch}
            try:
                finished = await run_sandboxed(
                    [program, *argv[1:]],
                    env=env,
                    cwd=scratch,
                    timeout=tool.spec.timeout,
                    limits=self.limits_of(tool),
                )
            except CannotStart as exc:
                raise ToolError(f"cannot start {argv[0]!r}: {exc}") from None
        return result_text(finished, self.limits_of(tool), self.redact)


def result_text(finished: Finished, limits: Limits, redact: Redactor) -> str:
    """stdout stripped, masked and cut, or raise ToolError with the reason and stderr's last
    line (masked, then cut)."""
    last = last_line(finished.stderr_tail, redact)
    if finished.stopped is not None:
        reason = finished.stopped
    elif finished.returncode in (126, 127) and last.startswith(CANNOT_START):
        raise ToolError(last.removeprefix("sandbox: "))
    elif finished.returncode < 0:
        reason = killed_by(-finished.returncode, limits)
    elif finished.returncode > 0:
        reason = f"exit status {finished.returncode}"
    else:
        return redact(finished.stdout.decode("utf-8", errors="replace").strip())[:MAX_CONTENT]
    raise ToolError(f"{reason}: {last}" if last else reason)


def killed_by(signum: int, limits: Limits) -> str:
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    if signum == signal.SIGXCPU:
        return f"killed by {name}: it used its {limits.cpu_seconds} s of CPU time"
    if signum == signal.SIGXFSZ:
        return f"killed by {name}: it wrote a file larger than {limits.file_size_mb} MiB"
    return f"killed by {name}"


def last_line(tail: bytes, redact: Redactor) -> str:
    lines = tail.decode("utf-8", errors="replace").strip().splitlines()
    return redact(lines[-1].strip())[:MAX_STDERR_LINE] if lines else ""


def with_own_programs(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the folder of this Python's programs at the end of PATH, so that a tool
    finds ``desktop-assistant`` however the service was started (a systemd unit names the
    venv's python without putting its folder on PATH); what PATH had first still wins."""
    own = str(Path(sys.executable).parent)
    folders = env.get("PATH", os.defpath).split(os.pathsep)
    if own not in folders:
        env["PATH"] = os.pathsep.join([*folders, own])
    return env
