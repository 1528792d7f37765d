"""A failed turn's apology with the model server's address said aloud, and language guessing."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from services.base import phrases

_PORT_WORD = {
    "en": "{host}, port {port}",
    "it": "{host}, porta {port}",
    "ja": "{host}のポート{port}",
}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def apology(code: str, lang: str, llm_url: str) -> str:
    """A short spoken apology for ``code`` (from the phrase catalog), with the model
    server's address said aloud; unknown languages get English."""
    return phrases.apology(code, lang, where=where(llm_url, phrases.language(lang)))[0]


def where(url: str, lang: str) -> str:
    """``localhost, port 8181``: an address said aloud rather than spelled as a URL."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return url
    if not host:
        return url
    port = port or (443 if parts.scheme == "https" else 80)
    return _PORT_WORD.get(lang, _PORT_WORD["en"]).format(host=host, port=port)


def guess_lang(text: str, default: str) -> str:
    """Japanese script means Japanese; otherwise ``default`` (text turns carry no language)."""
    return "ja" if _JAPANESE.search(text) else default
