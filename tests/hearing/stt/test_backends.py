"""The one door to the speech-to-text backends: which one the config leads to, and why."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from hearing.stt.backends import BACKENDS, UnknownBackend, choose, recognized_languages
from hearing.stt.embedded import EmbeddedWhisper
from hearing.stt.languages import CODES
from hearing.stt.whisper_server import WhisperServer
from settings.schema import Config, WhisperConfig
from tests.helpers.httpdouble import HttpDouble, closed_port_url, json_answer


def server(tmp_path: Path) -> Path:
    binary = tmp_path / "whisper-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binary


def startable(tmp_path: Path) -> dict[str, str]:
    model = tmp_path / "ggml.bin"
    model.write_bytes(b"x")
    return {"server": str(server(tmp_path)), "model": str(model)}


def nothing_there(tmp_path: Path) -> dict[str, object]:
    port = int(closed_port_url().rsplit(":", 1)[1])
    return {"server": str(tmp_path / "nowhere"), "model": str(tmp_path / "none.bin"), "port": port}


def test_the_registry_names_each_backend_class() -> None:
    assert BACKENDS == {"server": "hearing.stt.whisper_server:WhisperServer",
                        "embedded": "hearing.stt.embedded:EmbeddedWhisper"}
    chosen = choose(WhisperConfig(backend="embedded"))
    assert (chosen.name, chosen.kind, chosen.readiness.ready) == ("embedded", EmbeddedWhisper, True)


def test_auto_takes_a_startable_server_before_the_embedded_model(tmp_path: Path) -> None:
    start = choose(WhisperConfig(backend="auto", **startable(tmp_path)))
    assert (start.name, start.kind, start.passed) == ("server", WhisperServer, ())
    assert start.readiness.detail.startswith(f"whisper-server {(tmp_path / 'whisper-server')}")


def test_auto_takes_a_server_that_answers_when_asked_live(tmp_path: Path) -> None:
    health = {"/health": lambda query: json_answer(200, {"status": "ok"})}
    with HttpDouble(health) as double:
        port = int(double.url.rsplit(":", 1)[1])
        config = WhisperConfig(backend="auto", **(nothing_there(tmp_path) | {"port": port}))
        live = choose(config, live=True)
        offline = choose(config)
    assert live.name == "server"
    assert live.readiness.detail == f"whisper-server answers at {double.url} (ready)"
    # Not asked (the Wyoming server's listing): what a start here would choose.
    assert offline.name == "embedded" and "no whisper-server binary" in offline.passed[0]


def test_nothing_to_start_auto_falls_back_and_server_waits_both_saying_why(tmp_path: Path) -> None:
    gone = nothing_there(tmp_path)
    auto = choose(WhisperConfig(backend="auto", **gone), live=True)
    waits = choose(WhisperConfig(backend="server", **gone), live=True)
    assert (auto.name, auto.readiness.ready) == ("embedded", True)
    assert (waits.name, waits.readiness.ready) == ("server", False)
    assert auto.passed == (f"server: {waits.readiness.detail}",)
    assert "nothing answers at http://127.0.0.1:" in waits.readiness.detail
    assert "no whisper-server binary" in waits.readiness.detail
    assert "none.bin" in waits.readiness.detail and 'backend = "auto"' in waits.readiness.fix


def test_an_unknown_backend_is_named_with_the_known_ones() -> None:
    with pytest.raises(UnknownBackend, match="unknown \\[whisper\\] backend 'vosk'; known: "
                                             "auto, server, embedded"):
        choose(WhisperConfig(backend="vosk"))


def test_the_languages_listed_are_those_the_chosen_backend_chooses_among(tmp_path: Path) -> None:
    embedded = Config.model_validate({"whisper": {"backend": "embedded"}})
    assert recognized_languages(embedded) == ["en", "it", "ja"]
    english = Config.model_validate({"whisper": {"backend": "embedded",
                                                 "embedded_model": "tiny.en"}})
    assert recognized_languages(english) == ["en"]
    served = Config.model_validate({"whisper": {"backend": "auto", **startable(tmp_path)}})
    assert recognized_languages(served) == sorted(CODES.values())
    fixed = Config.model_validate({"whisper": {"language": "it"}})
    assert recognized_languages(fixed) == ["it"]
