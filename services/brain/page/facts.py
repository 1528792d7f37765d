"""What the page shows of the configuration, read once at the brain's start: the brain
gets these facts, never the whole ``Config`` (``docs/architecture.md``, one service shape)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from settings.schema import BrainConfig, Config
from settings.secrets import safe_url
from settings.shown import masked, sources


@dataclass(frozen=True)
class PageFacts:
    config_dir: str
    settings: dict[str, Any]
    """The effective configuration, secrets masked (as ``config show`` prints it)."""
    sources: dict[str, str]
    """Dotted key -> the file that set it, or ``default``."""
    llm: str
    stt: str
    listen_mode: str


def page_facts(config: Config, folder: Path) -> PageFacts:
    data = masked(config)
    whisper = config.whisper
    model = whisper.embedded_model if whisper.backend == "embedded" else whisper.model
    return PageFacts(
        config_dir=str(folder),
        settings=data,
        sources=sources(data, folder),
        llm=f"{safe_url(config.llm)} (model: {config.dialogue.model or 'the server default'})",
        stt=f"[whisper] backend {whisper.backend}: {model}, language {whisper.language}",
        listen_mode=config.listen.mode,
    )


def page_address(brain: BrainConfig) -> str:
    """Where a browser on this machine opens the page (a wildcard host is reached on
    loopback); with a token, the sign-in address without the token itself."""
    host = "127.0.0.1" if brain.host in ("0.0.0.0", "::", "") else brain.host
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{brain.port}/" + ("?token=YOUR_TOKEN" if brain.token else "")
