"""``desktop-assistant doctor`` against the whole running assistant, as a user runs it."""

from __future__ import annotations

import json
import re

from tests.helpers import llm_chunks as c
from tests.system.e2e.world import TOOLS, World

ACCENTED = {"voice en", "voice it"}
"""The rows doctor warns on here: the install has only the embedded Japanese voices, so
jf_alpha speaks English and Italian, with an accent (a warning: every voice still speaks)."""


def rows(output: str) -> dict[str, tuple[str, str]]:
    """``name → (status, detail)`` from the doctor's table."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"^(ok|WARN|FAIL)\s+(.+?)\s{2,}(.*)$", line)
        if match:
            found[match[2]] = (match[1], match[3])
    return found


def answering(world: World) -> None:
    """The LLM answers doctor's one-token question, as a working server does."""
    world.assistant.llm.default = c.text("ok")


def test_all_is_well_on_a_running_default_install(world: World) -> None:
    answering(world)
    done = world.assistant.cli("doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    table = rows(done.stdout)
    assert {name for name, (status, _) in table.items() if status != "ok"} == ACCENTED, done.stdout
    assert {table[name][0] for name in ACCENTED} == {"WARN"}, done.stdout
    assert table["audio input"][1] == "card 'pulse' → 'pulse'"
    assert table["tool files"][1].startswith(f"{len(TOOLS)} tool(s)")
    assert table["stt"][1].startswith("embedded faster-whisper whisper-base, multilingual")
    # The built-in voice tables with the embedded voices: jf_alpha, as the TTS service does.
    voice_en = table["voice en"][1]
    assert voice_en.startswith("jf_alpha×1 in en-us (built-in table; not installed: af_heart)")
    assert voice_en.endswith("jf_alpha speaks en-us with an accent")
    assert table["voice ja"][1] == "jf_alpha×1 in ja"
    for name in ("broker", "mic", "stt", "dialogue", "tools", "tts", "brain"):
        assert table[f"service {name}"][1].startswith("ready pid "), name
    assert table["llm"][1].endswith(": scripted-model")


def test_a_stopped_service_fails_with_how_to_start_it(world: World) -> None:
    assistant = world.assistant
    answering(world)
    assistant.processes["brain"].stop()
    try:
        # The others beat every 0.5 s here: 1.5 s tells a stopped one from a slow one.
        done = assistant.cli("doctor", "--listen", "1.5")
        as_json = assistant.cli("doctor", "--json", "--listen", "1.5")
    finally:
        assistant.restart("brain")
    assert done.returncode == 1, done.stdout
    lines = done.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    assert len(failed) == 1 and re.match(r"FAIL\s+service brain\s+no heartbeat$", failed[0])
    fix = lines[lines.index(failed[0]) + 1].strip()
    # Never a second copy beside a supervised one: both would answer every question.
    assert fix == (
        "fix: start the assistant (./bootstrap run, or systemctl --user start "
        "desktop-assistant.target); to see why it stops, read its log (journalctl --user -u "
        "desktop-assistant-brain.service, or honcho's output), or stop the supervised one "
        "first (systemctl --user stop desktop-assistant-brain.service, or Ctrl-C honcho) and "
        "run python -m services.brain in a terminal"
    )
    assert as_json.returncode == 1
    (brain,) = [row for row in json.loads(as_json.stdout) if row["name"] == "service brain"]
    assert brain["status"] == "FAIL" and "python -m services.brain" in brain["fix"]
