"""Where an LLM server may be: the usual local ports, and what is wrong with an ``llm`` URL.

A new user often has llama-server or Ollama running and an ``llm`` that points
elsewhere, or a URL without ``http://`` or without ``/v1``: the doctor names
the mistake and prints the exact ``llm = "..."`` line for a server that answered.
"""

from __future__ import annotations

import asyncio

import httpx

from settings.llm_url import url_problem

USUAL_SERVERS = (
    ("llama-server", "http://127.0.0.1:8080/v1"),
    ("Ollama", "http://127.0.0.1:11434/v1"),
    ("LM Studio", "http://127.0.0.1:1234/v1"),
    ("vLLM", "http://127.0.0.1:8000/v1"),
)
PROBE_TIMEOUT = 1.5
"""Seconds each probe may take: a local server answers ``/models`` at once."""


def llm_line(url: str) -> str:
    """The exact line for config.toml."""
    return f'llm = "{url}"'


async def answering_servers(configured: str) -> list[tuple[str, str]]:
    """(name, base URL) of each usual server, and of the configured one, that lists its
    models at ``/models`` now; probed at the same time."""
    candidates = list(USUAL_SERVERS)
    if configured.strip() and not url_problem(configured):
        candidates.insert(0, ("the configured server", configured.rstrip("/")))
    async with httpx.AsyncClient(timeout=httpx.Timeout(PROBE_TIMEOUT)) as client:
        answers = await asyncio.gather(*(_lists_models(client, url) for _, url in candidates))
    return [candidate for candidate, ok in zip(candidates, answers, strict=True) if ok]


async def _lists_models(client: httpx.AsyncClient, base: str) -> bool:
    try:
        response = await client.get(f"{base}/models")
    except httpx.HTTPError:
        return False
    return response.status_code == 200


async def where_to_point(configured: str) -> str:
    """The fix for an LLM check that failed: the line for a server that answered, or how
    to start one."""
    found = [(name, url) for name, url in await answering_servers(configured)
             if url != configured.rstrip("/")]
    if found:
        name, url = found[0]
        return f"{name} answers at {url}: put this line in config.toml: {llm_line(url)}"
    return ("no LLM server answers on the usual ports (llama-server 8080, Ollama 11434, "
            "LM Studio 1234, vLLM 8000): start one, e.g. `llama-server -m MODEL.gguf` or "
            "`ollama serve`, then set " + llm_line("http://127.0.0.1:8080/v1"))
