"""What Whisper answers, made fit for the rest of the system: spoken words and ISO codes."""

from __future__ import annotations

import re

_LANGUAGES = (
    "en english, zh chinese, de german, es spanish, ru russian, ko korean, fr french, "
    "ja japanese, pt portuguese, tr turkish, pl polish, ca catalan, nl dutch, ar arabic, "
    "sv swedish, it italian, id indonesian, hi hindi, fi finnish, vi vietnamese, he hebrew, "
    "uk ukrainian, el greek, ms malay, cs czech, ro romanian, da danish, hu hungarian, "
    "ta tamil, no norwegian, th thai, ur urdu, hr croatian, bg bulgarian, lt lithuanian, "
    "la latin, mi maori, ml malayalam, cy welsh, sk slovak, te telugu, fa persian, lv latvian, "
    "bn bengali, sr serbian, az azerbaijani, sl slovenian, kn kannada, et estonian, "
    "mk macedonian, br breton, eu basque, is icelandic, hy armenian, ne nepali, mn mongolian, "
    "bs bosnian, kk kazakh, sq albanian, sw swahili, gl galician, mr marathi, pa punjabi, "
    "si sinhala, km khmer, sn shona, yo yoruba, so somali, af afrikaans, oc occitan, "
    "ka georgian, be belarusian, tg tajik, sd sindhi, gu gujarati, am amharic, yi yiddish, "
    "lo lao, uz uzbek, fo faroese, ht haitian creole, ps pashto, tk turkmen, nn nynorsk, "
    "mt maltese, sa sanskrit, lb luxembourgish, my myanmar, bo tibetan, tl tagalog, "
    "mg malagasy, as assamese, tt tatar, haw hawaiian, ln lingala, ha hausa, ba bashkir, "
    "jw javanese, su sundanese, yue cantonese"
)
CODES: dict[str, str] = {
    name: code for code, name in (item.split(" ", 1) for item in _LANGUAGES.split(", "))
}
"""Whisper's language names (what whisper-server reports) → ISO 639-1 codes (639-3 for the
few without one: ``haw``, ``yue``)."""


def iso_code(language: str) -> str | None:
    """``english`` or ``en`` → ``en``; None for a language Whisper does not know."""
    key = language.strip().lower()
    if key in CODES.values():
        return key
    return CODES.get(key)


_NOT_SPEECH = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*|♪")
"""Whisper's markers for what is not speech: ``[BLANK_AUDIO]``, ``(music)``, ``*laughs*``."""


def spoken_words(text: str) -> str:
    """The words of a transcript without non-speech markers; empty when nothing was said
    (no letter or digit is left, e.g. a lone punctuation mark)."""
    words = " ".join(_NOT_SPEECH.sub(" ", text).split())
    return words if any(ch.isalnum() for ch in words) else ""
