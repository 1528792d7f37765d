"""Japanese readings without Sudachi's dictionary, and a clear error without pyopenjtalk."""

from __future__ import annotations

import subprocess
import sys

import pytest

from services.tts.kokoro.japanese import PYOPENJTALK, japanese_g2p
from services.tts.voices import VoiceError
from tests.helpers.processes import ROOT

WITHOUT_DICTIONARY = """
import importlib.abc, sys

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "sudachidict_core":
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, NotInstalled())
from services.tts.kokoro.japanese import japanese_g2p

print(japanese_g2p()(sys.argv[1]))
"""


def test_a_kanji_missing_from_openjtalk_is_read_without_sudachis_dictionary() -> None:
    # 龘 is not in OpenJTalk's dictionary: pyopenjtalk-plus read it with Sudachi's, which
    # ./bootstrap does not install (a ModuleNotFoundError before); Unihan reads it "tō".
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_DICTIONARY, "龘の字。"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "toː no ʥi."


def test_without_pyopenjtalk_the_japanese_voice_names_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pyopenjtalk", None)  # as after a plain pip install -e .
    with pytest.raises(VoiceError, match="pyopenjtalk-plus") as raised:
        japanese_g2p()
    assert f"pip install --no-deps '{PYOPENJTALK}'" in str(raised.value)
    assert "./bootstrap setup" in str(raised.value)


def test_bootstrap_installs_the_pyopenjtalk_this_message_names() -> None:
    assert f'"{PYOPENJTALK}"' in (ROOT / "bootstrap").read_text()
