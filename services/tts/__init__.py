"""``python -m services.tts``: the speaker, the one TTS service.

Turns, playback, volume and controls are here; the voice comes from an engine
(``engines.py``): Kokoro (``kokoro/``, the default) or espeak-ng (``espeak.py``),
so both speak through one bus contract under the bus name ``speaker``.
"""
