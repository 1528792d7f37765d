"""``desktop-assistant models``: pulls from a double of the real hosts, and the services
find what was pulled."""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from desktop_assistant.cli import main
from desktop_assistant.doctor.voices import check_tts
from services.stt.packaged import PackagedModelError, model_source
from services.tts.kokoro import blends
from services.tts.kokoro.blends import voice_problems
from services.tts.kokoro.embedded import voices_file
from settings import Config
from settings.models_catalog import CATALOG, SOURCE_ENV
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


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelHost]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with ModelHost(FILES) as double:
        monkeypatch.setenv(SOURCE_ENV, double.url)
        yield double


def folder(tmp_path: Path, name: str) -> Path:
    return tmp_path / "desktop-assistant" / "models" / name


def test_a_pull_follows_the_redirect_checks_the_servers_sha256_and_shows_progress(
    host: ModelHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "pull", "whisper-small"]) == 0
    err = capsys.readouterr().err
    pulled = folder(tmp_path, "whisper-small")
    for path, body in FILES.items():
        if path.startswith(SMALL):
            assert (pulled / path.removeprefix(SMALL)).read_bytes() == body
    assert "  50% of 1.0 MB" in err and "  100% of 1.0 MB" in err
    assert "model.bin: ok (server's sha256 checked)" in err
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
        "SHA256SUMS", "config.json"
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
