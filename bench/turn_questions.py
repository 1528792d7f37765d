"""The questions ``bench/turn.py`` asks: each with the answer the scripted LLM gives, in
its language, spoken whole or with a natural pause cut into it.

A paused question is cut from fluent speech at a word boundary (``tests/helpers/pauses.py``:
Kokoro speaks a half sentence as a finished one), with silence put there, as people pause
before the last word, before a place or a number, or after an "uh".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.helpers.pauses import RATE, speech16, split
from tests.helpers.speech import CACHE, spoken, write_wav

VOICES = {"en-us": "jm_kumo", "it": "jm_kumo", "ja": "jf_alpha"}
"""The voice of a paused question: the voice the end-of-turn model hears as a person's
(``tests/helpers/pauses.py``) for English and Italian (the packaged Kokoro has no Italian
voice; it speaks Italian with its Japanese ones, as ``bench/endpointing.py`` does), and the
default one for Japanese."""
WAKE_GAP = 0.3
"""Seconds between the wake word and a paused question said after it."""


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    lang: str = "en-us"
    words: int = 0
    """Words (characters in Japanese) before the pause; 0: spoken whole, no pause."""
    pause: float = 0.0

    def wav(self, wake_word: str = "") -> Path:
        """The question as the mic should hear it (after ``wake_word``, when given)."""
        if not self.words:
            text = f"{wake_word} {self.text}" if wake_word else self.text
            return spoken(text, self.lang)
        key = f"{self.text}|{self.lang}|{self.words}|{self.pause}|{wake_word}"
        path = CACHE / "paused" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.wav"
        if not path.is_file():
            voice = VOICES[self.lang]
            audio = split(self.text, self.words, self.lang, voice).with_pause(self.pause)
            if wake_word:
                gap = np.zeros(round(WAKE_GAP * RATE), dtype=np.float32)
                audio = np.concatenate([speech16(wake_word, "en-us", voice), gap, audio])
            path.parent.mkdir(parents=True, exist_ok=True)
            write_wav(path, audio, RATE)
        return path


QUESTIONS = [
    Question("What time is it?", "It is a quarter past ten in the morning."),
    Question("What's the weather like today?", "It is sunny and mild, about twenty degrees."),
    Question("Tell me a joke.", "I would tell you a chemistry joke, but I would get no reaction."),
    Question("How far is the moon from the earth?",
             "About three hundred and eighty thousand kilometres."),
    Question("Who wrote the novel Pride and Prejudice?",
             "Jane Austen wrote it, in eighteen thirteen."),
    Question("What is the capital of Australia?", "The capital of Australia is Canberra."),
    Question("How many minutes are there in a day?",
             "There are one thousand four hundred and forty."),
    Question("Could you tell me what the weather will be like in Rome tomorrow?",
             "Tomorrow in Rome it will be cloudy, with some rain in the evening."),
    Question("Turn on the light in the kitchen, please.",
             "Sorry, I cannot control the lights yet."),
    Question("Please remind me to call my sister tomorrow at nine in the morning.",
             "I cannot set reminders yet, but you could write it down."),
]
LOCAL_QUESTIONS = [
    Question("What time is it?", "It is a quarter past ten in the morning."),
    Question("What is the date today?", "Today is the first of December."),
    Question("What can you do?", "I can tell the time, the date and the weather, and set timers."),
]
"""Requests the local intents recognize: with ``intents.mode=off`` the scripted LLM
answers them (its answer here), otherwise the dialogue does, with no LLM request."""
PAUSED_QUESTIONS = [
    # before the last word
    Question("What's the weather like in Rome tomorrow?", "Cloudy, with rain in the evening.",
             words=6, pause=0.6),
    # before a number
    Question("Set a timer for ten minutes.", "The timer is set for ten minutes.",
             words=3, pause=0.7),
    # before an "uh" and a place
    Question("How far is it from here to, uh, Milan?", "About six hundred kilometres.",
             words=7, pause=0.5),
    Question("Who wrote the novel Pride and Prejudice?", "Jane Austen wrote it.",
             words=4, pause=0.6),
    Question("Che tempo farà domani a Roma?", "Domani a Roma sarà nuvoloso.", "it",
             words=3, pause=0.6),
    Question("Imposta un timer di dieci minuti.", "Il timer è impostato.", "it",
             words=4, pause=0.7),
    Question("Accendi la luce in cucina, per favore.", "Non posso ancora accendere le luci.",
             "it", words=3, pause=0.5),
    Question("明日の東京の天気はどうですか？", "明日の東京は曇りです。", "ja", words=6, pause=0.6),
    Question("十分のタイマーをセットしてください。", "タイマーをセットしました。", "ja",
             words=3, pause=0.7),
    Question("えっと、駅までどのくらいかかりますか？", "歩いて十分くらいです。", "ja",
             words=4, pause=0.5),
]
"""Natural pauses in three languages (``--questions paused``): ask them with
``--set intents.mode=off`` so that the weather and the timer reach the same instant
scripted LLM as the rest."""
QUESTION_SETS = {"all": QUESTIONS, "local": LOCAL_QUESTIONS, "paused": PAUSED_QUESTIONS}
