"""The one line ``desktop-assistant ready`` prints: what to do next once every service is up,
or what is missing and its fix, from the services' heartbeats and the doctor's own checks."""

from __future__ import annotations

from bus.messages import Heartbeat
from desktop_assistant.doctor import local
from desktop_assistant.doctor.remote import heartbeat_checks
from desktop_assistant.doctor.result import Check
from hearing.wake import WakeWordMissing, open_wake
from services.base.names import DIALOGUE, MIC
from settings import Config

UP = ("ready", "degraded")
PUSH = "run `desktop-assistant listen` (or bind it to a hotkey), then ask your question"
TYPE = 'Meanwhile, type your questions: `desktop-assistant ask "..."`.'


def not_up(expected: list[str], beats: dict[str, Heartbeat], now: float) -> list[str]:
    """Each of ``expected`` that the doctor would not call up (a fresh ``ready`` or
    ``degraded`` heartbeat), with what it is instead: ``stt (starting)``, ``tts (no
    heartbeat)``; ``now`` is on the heartbeats' clock (``time.time()``)."""
    up = {check.name for check in heartbeat_checks(beats, now) if check.ok}
    late = []
    for name in expected:
        if f"service {name}" in up:
            continue
        beat = beats.get(name)
        why = "no heartbeat" if beat is None else "silent" if beat.state in UP else beat.state
        late.append(f"{name} ({why})")
    return late


def line(config: Config, beats: dict[str, Heartbeat], llm: Check) -> tuple[str, bool]:
    """The line once every service is up (``beats``: the last heartbeat of each), and
    whether nothing is missing; ``llm``: the doctor's LLM check."""
    problems = []
    mic = beats.get(MIC)
    hears = mic is None or mic.state != "degraded"
    if mic is not None and not hears:
        problems.append(mic_problem(config, mic.detail))
    if llm.status != "ok":
        problems.append(llm_problem(config, llm))
    for name, beat in sorted(beats.items()):
        # The dialogue is degraded for its LLM, which the LLM check has told already.
        if beat.state == "degraded" and name not in (MIC, DIALOGUE):
            problems.append(f"{name}: {beat.detail or 'degraded'}")
    head = "ready" + (", but " + "; ".join(problems) if problems else "")
    return f"{head}. {next_step(config) if hears else TYPE}", not problems


def next_step(config: Config) -> str:
    """How to ask a question in the configured ``[listen] mode``."""
    if config.listen.mode == "always":
        return "Ask your question: the mic is always listening."
    if config.listen.mode == "push":
        return f"To ask, {PUSH}."
    try:
        word = open_wake(config.wake).word  # the phrase as the mic's own model names it
    except WakeWordMissing:
        return f"The wake word is not installed (./bootstrap setup installs it): {PUSH}."
    return f'Say "{word}", then your question.'


def mic_problem(config: Config, detail: str) -> str:
    """The mic's own words (what its card did), and the doctor's fix for the input device."""
    fixes = [c.fix for c in local.check_audio(config)
             if not c.ok and c.name in ("audio devices", "audio input")]
    fix = fixes[0] if fixes else "see the mic's lines above, or run `desktop-assistant doctor`"
    return f"the mic does not record ({detail.removeprefix('mic: ')}; fix: {fix})"


def llm_problem(config: Config, llm: Check) -> str:
    said = f"LLM: {llm.detail}" + (f"; fix: {llm.fix}" if llm.fix else "")
    if not llm.ok or not config.llm.strip():
        return f"only the local answers work ({said})"
    return said  # a warning: the server answered slowly
