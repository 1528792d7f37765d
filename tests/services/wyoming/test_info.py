"""What ``describe`` lists: the languages the STT really chooses among, not all of Whisper's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hearing.stt.languages import CODES
from services.wyoming.info import describe
from settings.schema import Config


def asr_languages(**whisper: Any) -> list[str]:
    info = describe(Config.model_validate({"whisper": whisper}), None)
    return info.asr[0].models[0].languages


def test_the_embedded_model_lists_the_languages_of_the_voices() -> None:
    assert asr_languages(backend="embedded") == ["en", "it", "ja"]


def test_auto_without_a_whisper_server_here_lists_the_embedded_models_languages(
        tmp_path: Path) -> None:
    model = tmp_path / "missing.bin"
    assert asr_languages(backend="auto", model=str(model), server="no-such-server") == [
        "en", "it", "ja"]


def test_the_languages_follow_the_voice_tables_and_the_default_language() -> None:
    config = Config.model_validate({"whisper": {"backend": "embedded"},
                                    "voice": {"de": {"lang": "de", "blend": {"x": 1.0}}}})
    assert describe(config, None).asr[0].models[0].languages == ["de", "en"]


def test_an_english_only_model_lists_english() -> None:
    assert asr_languages(backend="embedded", embedded_model="tiny.en") == ["en"]


def test_a_fixed_language_is_the_only_one() -> None:
    assert asr_languages(backend="embedded", language="it") == ["it"]


def test_whisper_server_detects_among_all_its_languages() -> None:
    assert asr_languages(backend="server") == sorted(CODES.values())
