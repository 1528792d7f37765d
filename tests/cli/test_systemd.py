"""systemd units: generated from the Procfile, valid for systemd-analyze, kept in step."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from desktop_assistant.systemd import TARGET, read_procfile, unit_name
from tests.helpers.processes import ROOT, python_env


def test_installed_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    units = tmp_path / "units"
    written = subprocess.run(
        [sys.executable, "-m", "desktop_assistant", "systemd", "install", "--dir", str(units)],
        cwd=ROOT,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert written.returncode == 0, written.stderr
    processes = read_procfile(ROOT / "Procfile")
    names = sorted(p.name for p in units.iterdir())
    assert names == sorted([unit_name(p.name) for p in processes] + [TARGET])
    for process in processes:
        text = (units / unit_name(process.name)).read_text()
        assert f"PartOf={TARGET}" in text
        assert "Restart=on-failure" in text and "RestartSec=3" in text
        assert f"ExecStart={sys.executable} " in text
        assert f"WorkingDirectory={ROOT}" in text
        assert f"\nSyslogIdentifier=desktop-assistant-{process.name}\n" in text
        assert "\nEnvironment=DESKTOP_ASSISTANT_LOG_TIME=0\n" in text  # the Procfile's
    assert "WantedBy=default.target" in (units / TARGET).read_text()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    verify = subprocess.run(
        ["systemd-analyze", "verify", "--user", *map(str, sorted(units.iterdir()))],
        env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_committed_units_follow_the_procfile() -> None:
    committed = {p.name for p in (ROOT / "deploy" / "systemd").iterdir()}
    expected = {unit_name(p.name) for p in read_procfile(ROOT / "Procfile")} | {TARGET}
    assert committed == expected
