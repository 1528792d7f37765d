"""Every phrase the assistant says on its own, not the model's words: by code and language.

One catalog instead of a table per service: an apology for each :class:`ErrorCode`, the
apology for a turn lost at each stage, and what the speaker says instead of a volume step
that changed nothing. Every phrase exists in every language of :data:`LANGUAGES`; any
other language gets English.
"""

from __future__ import annotations

from bus.errors import ErrorCode
from services.base.names import DIALOGUE, MIC, SPEAKER, STT

LANGUAGES = ("en", "it", "ja")
FALLBACK = "en"

_NOT_UNDERSTOOD = {
    "en": "Sorry, I could not understand that.",
    "it": "Scusa, non ho capito.",
    "ja": "すみません、聞き取れませんでした。",
}

APOLOGIES: dict[str, dict[str, str]] = {
    ErrorCode.LLM_UNAVAILABLE: {
        "en": "Sorry, I can't reach the language model server at {where}. "
        "Start one there, or set llm in the config file to another address.",
        "it": "Scusa, non riesco a raggiungere il server del modello linguistico su {where}. "
        "Avvialo lì, oppure indica un altro indirizzo in llm nel file di configurazione.",
        "ja": "すみません、{where}の言語モデルのサーバーに接続できません。"
        "サーバーを起動するか、設定ファイルのllmに別のアドレスを書いてください。",
    },
    ErrorCode.LLM_LOADING: {
        "en": "Sorry, the language model is still loading. Please ask again in a moment.",
        "it": "Scusa, il modello linguistico si sta ancora caricando. Riprova tra poco.",
        "ja": "すみません、言語モデルはまだ読み込み中です。少し待ってからもう一度どうぞ。",
    },
    ErrorCode.LLM_TIMEOUT: {
        "en": "Sorry, the language model took too long to answer.",
        "it": "Scusa, il modello linguistico ci ha messo troppo a rispondere.",
        "ja": "すみません、言語モデルの応答に時間がかかりすぎました。",
    },
    ErrorCode.LLM_ERROR: {
        "en": "Sorry, something went wrong with the language model's answer.",
        "it": "Scusa, qualcosa è andato storto nella risposta del modello linguistico.",
        "ja": "すみません、言語モデルの応答でエラーが起きました。",
    },
    ErrorCode.INTERNAL_ERROR: {
        "en": "Sorry, something went wrong on my side.",
        "it": "Scusa, qualcosa è andato storto da parte mia.",
        "ja": "すみません、内部でエラーが起きました。",
    },
    ErrorCode.TOOLS_UNAVAILABLE: {
        "en": "Sorry, my tools are not answering right now.",
        "it": "Scusa, i miei strumenti non rispondono in questo momento.",
        "ja": "すみません、今はツールが応答しません。",
    },
    ErrorCode.EMPTY_QUESTION: {
        "en": "Sorry, I did not get a question.",
        "it": "Scusa, non ho ricevuto nessuna domanda.",
        "ja": "すみません、質問が空でした。",
    },
    ErrorCode.QUESTION_TOO_LONG: {
        "en": "Sorry, that question is too long for me. Please ask it in fewer words.",
        "it": "Scusa, la domanda è troppo lunga per me. Puoi farla in meno parole?",
        "ja": "すみません、質問が長すぎます。もっと短くしてください。",
    },
    ErrorCode.REQUEST_REUSED: {
        "en": "Sorry, that request id was already used for another question.",
        "it": "Scusa, quell'id di richiesta è già stato usato per un'altra domanda.",
        "ja": "すみません、そのリクエストIDは別の質問に使われています。",
    },
    ErrorCode.HISTORY_CORRUPT: {
        "en": "Sorry, I could not read our earlier conversation, so we start afresh.",
        "it": "Scusa, non sono riuscito a leggere la conversazione precedente: ricominciamo.",
        "ja": "すみません、前の会話を読み込めなかったので、新しく始めます。",
    },
    ErrorCode.STT_UNAVAILABLE: _NOT_UNDERSTOOD,
    ErrorCode.STT_FAILED: _NOT_UNDERSTOOD,
    ErrorCode.TTS_SYNTHESIS_FAILED: {
        "en": "Sorry, I could not say that.",
        "it": "Scusa, non sono riuscito a dirlo.",
        "ja": "すみません、うまく話せませんでした。",
    },
    ErrorCode.MIC_UNAVAILABLE: {
        "en": "Sorry, I can't hear anything: the microphone is not working.",
        "it": "Scusa, non sento niente: il microfono non funziona.",
        "ja": "すみません、マイクが使えないため何も聞こえません。",
    },
    ErrorCode.TURN_LOST: {
        "en": "Sorry, something went wrong and I lost your question. Please ask again.",
        "it": "Scusa, qualcosa è andato storto e ho perso la tua domanda. Puoi ripetere?",
        "ja": "すみません、問題が起きて質問が失われました。もう一度お願いします。",
    },
}
"""Spoken when a turn fails with the code; ``{where}`` is the model server, said aloud."""

LOST_AT: dict[str, dict[str, str]] = {
    MIC: {
        "en": "Sorry, I stopped hearing you. Please say that again.",
        "it": "Scusa, ho smesso di sentirti. Puoi ripetere?",
        "ja": "すみません、途中で聞こえなくなりました。もう一度お願いします。",
    },
    STT: {
        "en": "Sorry, I lost what you said. Please say it again.",
        "it": "Scusa, ho perso quello che hai detto. Puoi ripetere?",
        "ja": "すみません、聞き取った内容が失われました。もう一度お願いします。",
    },
    DIALOGUE: {
        "en": "Sorry, I lost track of the answer. Please ask again.",
        "it": "Scusa, ho perso il filo della risposta. Puoi chiedere di nuovo?",
        "ja": "すみません、答えの途中で問題が起きました。もう一度質問してください。",
    },
    SPEAKER: {
        "en": "Sorry, I was interrupted. Please ask again.",
        "it": "Scusa, sono stato interrotto. Puoi chiedere di nuovo?",
        "ja": "すみません、話の途中で中断されました。もう一度質問してください。",
    },
}
""":attr:`ErrorCode.TURN_LOST` by the stage that lost the turn (others get the code's own)."""

CANNOT_GO: dict[str, dict[str, str]] = {
    "ja": {"up": "これ以上大きくできません", "down": "これ以上小さくできません"},
    "en": {"up": "I can't go any louder.", "down": "I can't go any quieter."},
    "it": {
        "up": "Non posso alzare di più il volume.",
        "down": "Non posso abbassare di più il volume.",
    },
}
"""What is said instead of the model's words when a volume step changed nothing."""


def language(lang: str) -> str:
    """The catalog's language for ``lang`` (``ja-JP`` → ``ja``; one it lacks → English)."""
    base = lang.split("-")[0].lower()
    return base if base in LANGUAGES else FALLBACK


def apology(
    code: ErrorCode | str, lang: str, *, stage: str = "", where: str = ""
) -> tuple[str, str]:
    """(text, language) of the apology for ``code``; an unknown code is an internal error."""
    texts = LOST_AT.get(stage) if code == ErrorCode.TURN_LOST else None
    if texts is None:
        texts = APOLOGIES.get(code, APOLOGIES[ErrorCode.INTERNAL_ERROR])
    lang = language(lang)
    return texts[lang].format(where=where), lang


def cannot_go(direction: str, lang: str) -> str:
    """What the speaker says instead when a volume step ``direction`` changed nothing."""
    return CANNOT_GO[language(lang)][direction]
