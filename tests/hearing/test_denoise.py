"""speexdsp's noise suppressor in front of the wake word detector."""

from __future__ import annotations

import numpy as np

from hearing.convert import decode_file
from hearing.denoise import Denoiser
from tests.helpers.speech import spoken

RATE = 16000


def level_db(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, "<i2").astype(np.float64) / 32768
    return 10 * np.log10(np.mean(samples**2) + 1e-12)


def test_steady_noise_is_suppressed_and_speech_is_kept() -> None:
    rng = np.random.default_rng(1)
    noise = (rng.normal(0, 0.02, 3 * RATE) * 32767).astype("<i2").tobytes()
    speech = b"".join(decode_file(spoken("Okay Nabu.")))
    denoise = Denoiser()
    quiet = denoise(noise)
    assert len(quiet) == len(noise)  # whole 10 ms frames in, as many out
    learnt = 2 * 2 * RATE  # bytes: after two seconds it knows the noise
    assert level_db(quiet[learnt:]) < level_db(noise[learnt:]) - 10
    kept = denoise(speech)
    assert level_db(kept) > level_db(speech) - 3  # speech well over the noise passes


def test_a_partial_frame_waits_for_the_next_call() -> None:
    denoise = Denoiser()
    assert denoise(bytes(300)) == b""  # 150 samples: less than one 10 ms frame
    assert len(denoise(bytes(20))) == 320  # now 160 samples: one frame
