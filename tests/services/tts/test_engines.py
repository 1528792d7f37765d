"""The speaker's engines: one registry line each, loaded only when chosen."""

from __future__ import annotations

import subprocess
import sys

from services.tts.engines import DEFAULT, ENGINES, engine_loader
from tests.helpers.processes import ROOT, python_env


def test_every_engine_names_a_load_function_that_exists() -> None:
    assert DEFAULT in ENGINES
    for name in ENGINES:
        load = engine_loader(name)
        assert callable(load) and load.__name__.startswith("load_"), name


def test_choosing_espeak_imports_nothing_of_kokoro() -> None:
    code = (
        "import sys\n"
        "from services.tts.engines import engine_loader\n"
        "engine_loader('espeak')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('services.tts.kokoro', "
        "'onnxruntime', 'kokoro'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=python_env(),
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_an_unknown_engine_is_refused_before_anything_loads() -> None:
    done = subprocess.run([sys.executable, "-m", "services.tts", "--engine", "festival"],
                          cwd=ROOT, env=python_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "--engine: invalid choice: 'festival'" in done.stderr
    assert "espeak" in done.stderr and "kokoro" in done.stderr
