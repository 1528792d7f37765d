"""Whisper's languages: the names whisper-server reports and their ISO codes.

Shared by the STT (which turns what Whisper says into codes) and by what reports the STT
from outside (``hearing/stt/backends.py``: the languages it chooses among).
"""

from __future__ import annotations

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
