"""The speaker side shared by every TTS service: turns, playback, volume and controls.

Not a process of its own: ``services.tts`` (Kokoro) and ``services.tts_espeak``
(espeak-ng) each hand it a synthesizer, so they share one bus contract.
"""
