"""The doctor on a plain ``pip install -e .``: the parts only ``./bootstrap`` installs (and the
wake word's package) are warnings naming the fix, as the services go on without them."""

from __future__ import annotations

import sys

import pytest

from desktop_assistant.doctor import local
from desktop_assistant.doctor.result import Check
from services.tts.kokoro.japanese import PYOPENJTALK
from settings import Config
from settings.schema import ListenConfig, VadConfig


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


def test_without_pyopenjtalk_the_japanese_table_is_a_warning_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pyopenjtalk", None)  # `import pyopenjtalk` fails
    checks = by_name(local.check_tts(Config()))
    assert all(check.ok for check in checks.values()), checks  # the service starts
    ja = checks["voice ja"]
    assert ja.status == "WARN", ja
    assert ja.detail.startswith("jf_alpha×1 in ja: not spoken") and "pyopenjtalk-plus" in ja.detail
    assert "./bootstrap setup" in ja.fix and f"pip install --no-deps '{PYOPENJTALK}'" in ja.fix
    assert checks["voice en"].detail.startswith("jf_alpha×1 in en-us")  # spoken as before


def test_the_wake_word_and_smart_turn_are_checked_as_the_mic_loads_them() -> None:
    checks = by_name(local.check_mic_parts(Config()))
    assert checks["wake word"].status == "ok" and checks["wake word"].detail == (
        'okay_nabu ("Okay Nabu")'
    )
    assert checks["end of turn"].status == "ok"
    assert checks["end of turn"].detail.startswith("Smart Turn v3.2 ")
    neither = Config(listen=ListenConfig(mode="push"), vad=VadConfig(end_of_turn="silence"))
    assert local.check_mic_parts(neither) == []


def test_without_the_wake_word_package_or_smart_turn_the_mic_checks_warn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pymicro_wakeword", None)
    monkeypatch.setitem(sys.modules, "pipecat", None)  # find_spec: not installed
    checks = by_name(local.check_mic_parts(Config()))
    wake, turn = checks["wake word"], checks["end of turn"]
    assert (wake.status, turn.status) == ("WARN", "WARN"), checks
    assert "desktop-assistant listen" in wake.detail
    assert "./bootstrap setup" in wake.fix and "pip install 'pymicro-wakeword>=2.5'" in wake.fix
    assert turn.detail.endswith(f"a turn ends after [vad] silence ({VadConfig().silence:g} s)")
    assert "pip install --no-deps 'pipecat-ai>=1.14,<2'" in turn.fix
