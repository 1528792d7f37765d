"""``./bootstrap run`` prints the page's address; the page's files ship in the package."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import resources

from services.brain.page.routes import STATIC
from tests.conftest import ConfigFolder
from tests.helpers.processes import ROOT, python_env

COMMAND = "python -m services.brain.page.address"


def address(folder: ConfigFolder) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "services.brain.page.address"], cwd=ROOT, capture_output=True,
        env=python_env({"DESKTOP_ASSISTANT_CONFIG": str(folder.path)}), text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_bootstrap_run_prints_where_the_page_is(config_folder: ConfigFolder) -> None:
    assert COMMAND in (ROOT / "bootstrap").read_text()
    config_folder.write("[brain]\nport = 8999\n")
    assert address(config_folder) == "http://127.0.0.1:8999/"
    config_folder.write('[brain]\nhost = "0.0.0.0"\nport = 8999\ntoken = "s3cret"\n')
    assert address(config_folder) == "http://127.0.0.1:8999/?token=YOUR_TOKEN"  # never the token
    config_folder.write("[brain]\nport = 0\n")
    assert address(config_folder).startswith("(none: the config is invalid:")


def test_the_page_files_ship_in_the_package() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["tool"]["setuptools"]["package-data"]["services.brain.page"] == ["static/*"]
    folder = resources.files("services.brain.page").joinpath("static")
    for name in ("index.html", *STATIC):
        assert folder.joinpath(name).is_file(), name
