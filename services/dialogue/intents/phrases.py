"""What a local answer says where Home Assistant's response templates have nothing for the
language (Japanese beyond the time) or for the request ("what can you do", a timer that rings).

Every phrase exists in every language of :data:`services.base.phrases.LANGUAGES`.
"""

from __future__ import annotations

import datetime

from services.base.phrases import language

PHRASES: dict[str, dict[str, str]] = {
    "capabilities": {
        "en": "Without a language model I can tell the time and the date, the weather, "
        "turn the volume up or down, and set, check or cancel a timer.",
        "it": "Senza un modello linguistico so dire l'ora e la data, il meteo, alzare o "
        "abbassare il volume, e impostare, controllare o annullare un timer.",
        "ja": "言語モデルがなくても、時刻と日付、天気、音量の上げ下げ、"
        "タイマーの設定・確認・キャンセルができます。",
    },
    "only_these": {
        "en": "I can't answer that without a language model.",
        "it": "Non posso rispondere senza un modello linguistico.",
        "ja": "言語モデルがないのでお答えできません。",
    },
    "instead": {
        "en": "I can tell the time and the date, the weather, change the volume, and set timers.",
        "it": "So dire l'ora e la data, il meteo, cambiare il volume e impostare dei timer.",
        "ja": "時刻と日付、天気、音量の変更、タイマーならできます。",
    },
    "no_weather": {
        "en": "I have no weather tool. Add one to the tools folder to ask about the weather.",
        "it": "Non ho uno strumento per il meteo. Aggiungine uno nella cartella tools.",
        "ja": "天気を調べるツールがありません。toolsフォルダーに追加してください。",
    },
    "date": {
        "en": "{date:%B %d, %Y}", "it": "{date:%d/%m/%Y}", "ja": "{date.month}月{date.day}日です"
    },
    "volume_up": {"en": "Volume up.", "it": "Volume alzato.", "ja": "音量を上げました。"},
    "volume_down": {"en": "Volume down.", "it": "Volume abbassato.", "ja": "音量を下げました。"},
    "volume_set": {"en": "Volume set.", "it": "Volume impostato.", "ja": "音量を設定しました。"},
    "timer_set": {
        "en": "Timer set for {text}.",
        "it": "Timer avviato per {text}.",
        "ja": "{text}のタイマーをセットしました。",
    },
    "timer_cancelled": {
        "en": "Timer cancelled.", "it": "Timer cancellato.", "ja": "タイマーをキャンセルしました。"
    },
    "no_timer": {
        "en": "There is no timer.", "it": "Non c'è nessun timer.", "ja": "タイマーはありません。"
    },
    "too_many_timers": {
        "en": "You have {count} timers already, as many as I keep. Cancel them to set another.",
        "it": "Hai già {count} timer, il massimo che tengo. Annullali per impostarne un altro.",
        "ja": "タイマーはすでに{count}個あり、これ以上はセットできません。"
        "キャンセルしてから新しくセットしてください。",
    },
    "timer_left": {"en": "{text} left.", "it": "Mancano {text}.", "ja": "残り{text}です。"},
    "reminder": {
        "en": "Reminder: {text}.",
        "it": "Promemoria: {text}.",
        "ja": "リマインダーです。{text}。",
    },
    "reminder_title": {"en": "Reminder", "it": "Promemoria", "ja": "リマインダー"},
    "timer_done": {
        "en": "Your {text} timer is done.",
        "it": "Il timer di {text} è finito.",
        "ja": "{text}のタイマーが終わりました。",
    },
}

_UNITS = {
    "en": (("hour", "hours"), ("minute", "minutes"), ("second", "seconds"), " and "),
    "it": (("ora", "ore"), ("minuto", "minuti"), ("secondo", "secondi"), " e "),
    "ja": (("時間", "時間"), ("分", "分"), ("秒", "秒"), ""),
}


def phrase(key: str, lang: str, **values: object) -> str:
    return PHRASES[key][language(lang)].format(**values)


def with_instead(said: str, lang: str) -> str:
    """``said``, then what the assistant can answer without a language model."""
    gap = "" if language(lang) == "ja" else " "
    return f"{said}{gap}{phrase('instead', lang)}"


def duration(seconds: float, lang: str) -> str:
    """``1 minute and 5 seconds``, ``1 minuto e 5 secondi``, ``1分5秒``: a duration said aloud."""
    lang = language(lang)
    *units, joiner = _UNITS[lang]
    total = max(0, round(seconds))
    parts = []
    amounts = (total // 3600, total % 3600 // 60, total % 60)
    for (one, many), amount in zip(units, amounts, strict=True):
        if amount:
            space = "" if lang == "ja" else " "
            parts.append(f"{amount}{space}{one if amount == 1 else many}")
    return joiner.join(parts or [f"0{'' if lang == 'ja' else ' '}{units[2][1]}"])


def today(now: datetime.datetime, lang: str) -> str:
    return phrase("date", lang, date=now.date())
