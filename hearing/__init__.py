"""The listening core: audio in, speech events out, and no bus in between.

Voice activity (Silero), the segmenter and its end-of-turn rule (Smart Turn, the STT's
punctuation), the wake word, noise suppression, format conversion, and speech to text
(``stt``: its backends behind one door, with Whisper's language codes). The mic, the
satellites and the Wyoming server each build their listening from these parts; none of
them imports another service for it (``docs/architecture.md``).
"""
