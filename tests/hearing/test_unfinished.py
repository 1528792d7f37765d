"""Which transcripts stop mid-sentence (the end of turn's second opinion)."""

from __future__ import annotations

import pytest

from hearing.unfinished import dangling, left_open, trails_off


@pytest.mark.parametrize(("text", "lang"), [
    ("What is the weather like in", "en"),
    ("What is the weather like in.", "en"),
    ("Please remind me to call my...", "en"),
    ("Could you tell me what", "en"),
    ("Mi ricordi di chiamare la", "it"),
    ("Qual è la capitale dell'", "it"),
    ("Che tempo farà domani a", "it"),
    ("明日の東京の", "ja"),
    ("駅まで", "ja"),
    ("キッチンの電気", "ja"),  # a noun: the predicate is still to come
    ("十分のタイマー。", "ja"),  # katakana, and the STT's full stop changes nothing
    ("ｷｯﾁﾝの電気", "ja"),  # half-width katakana too
    ("スーパー", "ja"),  # the lengthening mark ends a katakana word
    ("何時に起きれば", "ja"),  # a conditional: the main clause is still to come
    ("ちょっと聞きたいんだけど", "ja"),
])
def test_stops_mid_sentence(text: str, lang: str) -> None:
    assert dangling(text, lang)


@pytest.mark.parametrize(("text", "lang"), [
    ("What is the weather like in Rome tomorrow?", "en"),
    ("What time is it?", "en"),
    # Ending on a verb, a question word, "like" or "so" is finished as often as not: these
    # waited the longest silence when the auxiliaries and question words were listed.
    ("What can you do?", "en"),
    ("What's the weather like?", "en"),
    ("Why?", "en"),
    ("I think so.", "en"),
    ("Che ore sono?", "it"),
    ("Chi è?", "it"),
    ("Perché?", "it"),
    ("Turn on the light in the kitchen, please.", "en"),
    ("Che tempo farà domani a Roma?", "it"),
    ("Qual è la capitale dell'Australia?", "it"),
    ("明日の東京の天気はどうですか？", "ja"),
    ("電気をつけてください。", "ja"),
    ("今日は暑いねー", "ja"),  # a lengthened sentence-final particle
    ("すごーい", "ja"),
    ("電気をつけて", "ja"),  # the te-form is a whole request as often as not
    ("", "en"),
    ("What is the weather like in", "de"),  # nothing known about German
])
def test_a_finished_sentence(text: str, lang: str) -> None:
    assert not dangling(text, lang)


@pytest.mark.parametrize(("text", "lang"), [
    ("Send a message to my brother", "en"),
    ("Set a timer for...", "en"),
    ("Set a timer for…", "en"),  # one ellipsis character
    ("Turn on the light in the...", "en"),
    ("What time does this", "en"),
    ("Imposta un timer di", "it"),
    ("Metti un po' di musica,", "it"),  # a comma: the sentence goes on
    ("Okay. And what about", "en"),  # only the last sentence counts
])
def test_left_open_by_the_stt(text: str, lang: str) -> None:
    assert left_open(text, lang)
    # trailing off or on a comma says the sentence goes on; no mark alone says less
    assert trails_off(text, lang) == text.rstrip().endswith(("...", "…", ","))


@pytest.mark.parametrize(("text", "lang"), [
    ("Set a timer for ten minutes.", "en"),
    ("What is the capital of Australia?", "en"),
    ("Stop!", "en"),
    ('Send a message saying "I will be late."', "en"),  # the mark inside the quotes
    ("Che tempo farà domani a Roma?", "it"),
    ("Set a timer.  ", "en"),
    ("", "en"),
    ("明日の東京の天気はどうですか", "ja"),  # Whisper often ends Japanese without 。
    ("Wie spät ist es", "de"),  # not measured: as before
])
def test_closed_or_not_judged(text: str, lang: str) -> None:
    assert not left_open(text, lang)
