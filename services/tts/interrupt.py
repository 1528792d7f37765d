"""Barge-in on the speaker's side: which turns a ``BargeIn`` cuts off, and what the user
heard of the turn that was speaking.

The fade itself happens in the audio thread (:meth:`PlaybackQueue.cut`); the
dialogue keeps only the heard part of the answer in its history, so it needs
the played text, not just a time.
"""

from __future__ import annotations

from services.tts.synthesis import Line

FADE = 0.02
"""Seconds of the fade-out: no click, and well inside the 30 ms a barge-in allows."""
CHARS_PER_SECOND = 14.0
"""Speech rate assumed for a line whose first piece is still being synthesized."""


def played_text(lines: list[Line]) -> tuple[str, bool]:
    """The text of ``lines`` (a turn's, in order) the user heard, and whether a line was cut
    in the middle. A line cut short counts in proportion to its audio played, to the last
    whole word (to the character for text without spaces, such as Japanese)."""
    parts: list[str] = []
    for line in lines:
        if not line.spoken or not line.text.strip():
            continue
        if line.finished:
            parts.append(line.text.strip())
            continue
        if line.played > 0:
            parts.append(_heard_part(line))
            return " ".join(p for p in parts if p), True
        break
    return " ".join(parts), False


def _heard_part(line: Line) -> str:
    rate = line.made_chars / line.made_seconds if line.made_chars else CHARS_PER_SECOND
    chars = min(len(line.text), round(line.played * rate))
    heard = line.text[:chars]
    if chars < len(line.text) and " " in line.text.strip() and not line.text[chars].isspace():
        heard = heard.rsplit(" ", 1)[0] if " " in heard else ""  # a word cut in two: not heard
    return heard.strip()
