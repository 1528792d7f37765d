"""The one decision of which speech-to-text backend the config leads to."""

from __future__ import annotations

import stat
from pathlib import Path

from hearing.stt_choice import choose, recognized_languages
from hearing.whisper_languages import CODES
from settings.schema import Config, WhisperConfig


def server(tmp_path: Path) -> Path:
    binary = tmp_path / "whisper-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binary


def test_each_backend_setting_leads_where_it_says(tmp_path: Path) -> None:
    model = tmp_path / "ggml.bin"
    model.write_bytes(b"x")
    binary = server(tmp_path)
    ready = {"server": str(binary), "model": str(model)}
    assert choose(WhisperConfig(backend="embedded", **ready), answering=True).kind == "embedded"
    assert choose(WhisperConfig(backend="auto", **ready), answering=True).kind == "answering"
    start = choose(WhisperConfig(backend="auto", **ready), answering=False)
    assert (start.kind, start.binary) == ("start", str(binary.resolve()))
    # Nothing to start: auto falls back to the embedded model, server waits for one; both say why.
    gone = {"server": str(tmp_path / "nowhere"), "model": str(tmp_path / "none.bin")}
    auto = choose(WhisperConfig(backend="auto", **gone), answering=False)
    waits = choose(WhisperConfig(backend="server", **gone), answering=False)
    assert (auto.kind, waits.kind) == ("embedded", "unavailable")
    assert auto.missing == waits.missing and len(waits.missing) == 2
    assert "no whisper-server binary" in waits.missing[0] and "none.bin" in waits.missing[1]


def test_the_languages_listed_are_those_the_chosen_backend_chooses_among(tmp_path: Path) -> None:
    embedded = Config.model_validate({"whisper": {"backend": "embedded"}})
    assert recognized_languages(embedded) == ["en", "it", "ja"]
    english = Config.model_validate({"whisper": {"backend": "embedded",
                                                 "embedded_model": "tiny.en"}})
    assert recognized_languages(english) == ["en"]
    model = tmp_path / "ggml.bin"
    model.write_bytes(b"x")
    served = Config.model_validate(
        {"whisper": {"backend": "auto", "server": str(server(tmp_path)), "model": str(model)}})
    assert recognized_languages(served) == sorted(CODES.values())
    fixed = Config.model_validate({"whisper": {"language": "it"}})
    assert recognized_languages(fixed) == ["it"]
