"""What the user hears when a voice turn was lost, by the stage that lost it and language."""

from __future__ import annotations

APOLOGIES = {
    "mic": {
        "en": "Sorry, I stopped hearing you. Please say that again.",
        "it": "Scusa, ho smesso di sentirti. Puoi ripetere?",
        "ja": "すみません、途中で聞こえなくなりました。もう一度お願いします。",
    },
    "stt": {
        "en": "Sorry, I lost what you said. Please say it again.",
        "it": "Scusa, ho perso quello che hai detto. Puoi ripetere?",
        "ja": "すみません、聞き取った内容が失われました。もう一度お願いします。",
    },
    "dialogue": {
        "en": "Sorry, I lost track of the answer. Please ask again.",
        "it": "Scusa, ho perso il filo della risposta. Puoi chiedere di nuovo?",
        "ja": "すみません、答えの途中で問題が起きました。もう一度質問してください。",
    },
    "tts": {
        "en": "Sorry, I was interrupted. Please ask again.",
        "it": "Scusa, sono stato interrotto. Puoi chiedere di nuovo?",
        "ja": "すみません、話の途中で中断されました。もう一度質問してください。",
    },
    "other": {
        "en": "Sorry, something went wrong and I lost your question. Please ask again.",
        "it": "Scusa, qualcosa è andato storto e ho perso la tua domanda. Puoi ripetere?",
        "ja": "すみません、問題が起きて質問が失われました。もう一度お願いします。",
    },
}


def apology(stage: str, lang: str) -> tuple[str, str]:
    """(text, language) for a turn lost by ``stage``; unknown languages get English."""
    texts = APOLOGIES.get(stage, APOLOGIES["other"])
    lang = lang.split("-")[0]
    return (texts[lang], lang) if lang in texts else (texts["en"], "en")
