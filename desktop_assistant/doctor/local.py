"""Checks that need no running service: config, tool files, audio devices, models."""

from __future__ import annotations

import os
import shutil
from typing import Any

from desktop_assistant.doctor.result import Check
from settings import Config, ConfigError, load_config
from settings.checks import extra_checks


def check_config(folder: str | None) -> tuple[Config | None, list[Check]]:
    try:
        config, root = load_config(folder)
    except ConfigError as exc:
        first = str(exc).splitlines()[0]
        return None, [Check("config", False, first, "edit the file; see docs/config.md")]
    checks = [Check("config", True, f"{root / 'config.toml'} (or defaults)")]
    problems = extra_checks(root)
    tools_dir = root / "tools"
    if problems:
        checks.append(
            Check("tool files", False, problems[0], "fix the tool file; see docs/tools.md")
        )
    else:
        count = len(list(tools_dir.glob("*.toml"))) if tools_dir.is_dir() else 0
        checks.append(Check("tool files", True, f"{count} tool(s) in {tools_dir}"))
    return config, checks + check_mcp(config)


def check_mcp(config: Config) -> list[Check]:
    """Each enabled ``[mcp.*]`` stdio server's program is there (the running tools service
    reports whether each server is up in its heartbeat, which the bus check shows)."""
    checks = []
    for name, server in config.mcp.items():
        if not server.enabled:
            continue
        if server.url:
            checks.append(Check(f"mcp {name}", True, f"{server.url} (the tools service connects)"))
            continue
        path = config.env.get("PATH") or os.environ.get("PATH", os.defpath)
        program = shutil.which(server.command[0], path=path)
        if program is None:
            checks.append(Check(f"mcp {name}", False, f"{server.command[0]!r} is not on PATH",
                                "install the server (.venv/bin/pip install ...) or fix "
                                f"[mcp.{name}] command"))
        else:
            checks.append(Check(f"mcp {name}", True, program))
    return checks


def check_audio(config: Config) -> list[Check]:
    """The input ``card`` matches and the output device, as the mic and the speaker pick them;
    then the parts the mic loads besides (:func:`check_mic_parts`)."""
    return _check_devices(config) + check_mic_parts(config)


def _check_devices(config: Config) -> list[Check]:
    try:
        import sounddevice as sd

        from services.mic.card import CardError, find_card

        sd.query_devices()
    except Exception as exc:  # PortAudio missing or failing: report, don't crash
        return [
            Check(
                "audio devices",
                False,
                f"PortAudio unavailable: {exc}",
                "install libportaudio2 (./bootstrap does) and check the sound server",
            )
        ]
    checks = []
    try:
        device = sd.query_devices(find_card(config.card))
        card = repr(config.card) if config.card else "'' (the system's default input)"
        checks.append(Check("audio input", True, f"card {card} → {device['name']!r}"))
    except CardError as exc:
        checks.append(
            Check(
                "audio input",
                False,
                _one_line(str(exc)),
                "set `card` in config.toml to a unique part of one input's name, "
                "or to \"\" for the system's default input",
            )
        )
    checks.append(_check_output(sd, config.audio.output))
    return checks


def check_mic_parts(config: Config) -> list[Check]:
    """The wake word (in wake mode) and the Smart Turn model (``[vad] end_of_turn``), loaded
    as the mic loads them. Either missing, the mic still runs without it: a warning."""
    checks = []
    if config.listen.mode == "wake":
        checks.append(_check_wake(config))
    if config.vad.end_of_turn != "silence":
        checks.append(_check_turn_model(config))
    return checks


def _check_wake(config: Config) -> Check:
    from hearing.micro_wake_word import PACKAGE
    from hearing.wake import WakeWordMissing, open_wake

    try:
        detector = open_wake(config.wake)
    except WakeWordMissing:
        return Check(
            "wake word", True,
            "pymicro-wakeword is not installed: the mic opens only for `desktop-assistant "
            "listen` (push-to-talk)",
            f"run ./bootstrap setup, or pip install '{PACKAGE}', then restart the mic",
            warning=True,
        )
    except Exception as exc:  # a model file that does not load: the mic would stop on it
        return Check(
            "wake word", False, f"[wake] model {config.wake.model!r}: {type(exc).__name__}: {exc}",
            "set [wake] model to a shipped model (okay_nabu...) or a model's JSON file",
        )
    return Check("wake word", True, f"{detector.model} (\"{detector.word}\")")


def _check_turn_model(config: Config) -> Check:
    from hearing.smart_turn import PACKAGE, SmartTurnMissing, model_path

    try:
        path = model_path()
    except SmartTurnMissing:
        return Check(
            "end of turn", True,
            f"the Smart Turn model (pipecat-ai) is not installed: a turn ends after "
            f"[vad] silence ({config.vad.silence:g} s)",
            f"run ./bootstrap setup, or pip install --no-deps '{PACKAGE}', then restart the "
            "mic; or set [vad] end_of_turn = \"silence\"",
            warning=True,
        )
    return Check("end of turn", True,
                 f"Smart Turn v3.2 {path} ([vad] end_of_turn = \"{config.vad.end_of_turn}\")")


def _one_line(text: str) -> str:
    first, *rest = text.splitlines()
    return " ".join([first, " | ".join(line.strip() for line in rest)]).strip()


def _check_output(sd: Any, wanted: str) -> Check:
    """PortAudio's own matching, which the speaker uses: a substring of "name, host API"."""
    outputs = [d["name"] for d in sd.query_devices() if d["max_output_channels"] > 0]
    if not outputs:
        return Check(
            "audio output", False, "no output device",
            "start PulseAudio/PipeWire or plug in a speaker",
        )
    try:
        device = sd.query_devices(wanted or None, kind="output")
    except (ValueError, sd.PortAudioError) as exc:
        what = f"[audio] output {wanted!r}" if wanted else "the default output"
        return Check(
            "audio output", False, f"{what}: {exc}; outputs: {', '.join(outputs)}",
            "set [audio] output to a unique part of one output's name (empty: the default)",
        )
    return Check("audio output", True, f"{wanted or 'the default'} → {device['name']!r}")


def check_stt(config: Config) -> list[Check]:
    """The backend the STT service would choose (``hearing/stt/backends.py``), asked as the
    service asks it: a running whisper-server first."""
    from hearing.stt.backends import UnknownBackend, choose

    try:
        choice = choose(config.whisper, live=True)
    except UnknownBackend as exc:
        return [Check("stt", False, str(exc), "set [whisper] backend to one of those")]
    readiness = choice.readiness
    detail = readiness.detail if readiness.ready else f"backend {choice.name}: {readiness.detail}"
    return [Check("stt", readiness.ready, detail, readiness.fix)]


def check_tts(config: Config) -> list[Check]:
    """The TTS model and voices file, and every voice named in ``[voice.*]``."""
    from desktop_assistant.doctor.voices import check_tts as check

    return check(config)
