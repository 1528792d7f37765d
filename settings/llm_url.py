"""What is wrong with the ``llm`` URL and the API key, as ``config check`` and ``doctor`` say it.

A URL without ``http://`` or without ``/v1`` reaches no OpenAI-compatible
server, and the error a request gets for it (an unsupported protocol, a 404)
does not name the mistake: these checks do, before anything is started.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from settings.apikey import ApiKeyError, api_key
from settings.schema import Config


def url_problem(url: str) -> str:
    """What makes ``url`` unusable as an OpenAI-compatible base URL, or ''."""
    if not url.strip():
        return "`llm` is empty: no LLM server is configured"
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        return f"`llm` {url!r} has no http:// or https:// in front"
    if not parts.netloc:
        return f"`llm` {url!r} names no host"
    if not parts.path.rstrip("/").endswith("/v1"):
        return f"`llm` {url!r} does not end in /v1 (the OpenAI-compatible API's path)"
    return ""


def llm_problems(config: Config) -> list[str]:
    """The URL's problem and the key's: an empty ``llm`` is a choice (local intents only)."""
    problems = [url_problem(config.llm)] if config.llm.strip() else []
    try:
        api_key(config.dialogue.api_key)
    except ApiKeyError as exc:
        problems.append(str(exc))
    return [problem for problem in problems if problem]
