"""What the assistant says when a turn fails, in the turn's language, and language guessing."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

APOLOGIES = {
    "llm-unavailable": {
        "en": "Sorry, I can't reach the language model server at {where}. "
        "Start one there, or set llm in the config file to another address.",
        "it": "Scusa, non riesco a raggiungere il server del modello linguistico su {where}. "
        "Avvialo lì, oppure indica un altro indirizzo in llm nel file di configurazione.",
        "ja": "すみません、{where}の言語モデルのサーバーに接続できません。"
        "サーバーを起動するか、設定ファイルのllmに別のアドレスを書いてください。",
    },
    "llm-loading": {
        "en": "Sorry, the language model is still loading. Please ask again in a moment.",
        "it": "Scusa, il modello linguistico si sta ancora caricando. Riprova tra poco.",
        "ja": "すみません、言語モデルはまだ読み込み中です。少し待ってからもう一度どうぞ。",
    },
    "llm-timeout": {
        "en": "Sorry, the language model took too long to answer.",
        "it": "Scusa, il modello linguistico ci ha messo troppo a rispondere.",
        "ja": "すみません、言語モデルの応答に時間がかかりすぎました。",
    },
    "llm-error": {
        "en": "Sorry, something went wrong with the language model's answer.",
        "it": "Scusa, qualcosa è andato storto nella risposta del modello linguistico.",
        "ja": "すみません、言語モデルの応答でエラーが起きました。",
    },
    "internal-error": {
        "en": "Sorry, something went wrong on my side.",
        "it": "Scusa, qualcosa è andato storto da parte mia.",
        "ja": "すみません、内部でエラーが起きました。",
    },
}
_PORT_WORD = {
    "en": "{host}, port {port}",
    "it": "{host}, porta {port}",
    "ja": "{host}のポート{port}",
}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def apology(code: str, lang: str, llm_url: str) -> str:
    """A short spoken apology for ``code``; unknown languages get English."""
    texts = APOLOGIES.get(code, APOLOGIES["internal-error"])
    lang = lang.split("-")[0]
    text = texts.get(lang, texts["en"])
    return text.format(where=where(llm_url, lang))


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
