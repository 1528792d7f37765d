"""The double-talk rule on frames whose powers are known: a voice over the echo takes far
less off than the echo before it; what is left of the echo is taken off as ever."""

from __future__ import annotations

import numpy as np

from services.mic.double_talk import DoubleTalk
from services.mic.echo_timeline import RATE

FRAME = 160


def pcm(level: float) -> bytes:
    """A frame of steady noise at ``level`` (PCM16 amplitude)."""
    return (np.random.default_rng(7).standard_normal(FRAME) * level).astype("<i2").tobytes()


def fill(talk: DoubleTalk, start: int, seconds: float, heard: float, left: float,
         loud: bool) -> int:
    end = start
    for _ in range(round(seconds * RATE / FRAME)):
        end += FRAME
        talk.add(end, pcm(heard), pcm(left), loud)
    return end


def test_a_voice_after_a_pause_between_sentences_is_compared_with_the_echo_before() -> None:
    """The second before the onset was a pause of the answer, and the smoothed reduction
    (``usual``) already holds the user's voice: the echo of the sentence before decides."""
    talk = DoubleTalk()
    end = fill(talk, 0, 2.0, heard=3000, left=300, loud=True)  # echo, 20 dB taken off
    end = fill(talk, end, 1.2, heard=50, left=45, loud=False)  # a pause of the answer
    onset = end
    fill(talk, end, 0.3, heard=3000, left=2700, loud=True)  # the user over the next one
    assert talk.voice_over_echo(onset, usual=1.0) == (True, talk.taken_off(onset))
    assert talk.reference(onset) is not None and talk.reference(onset) > 19


def test_what_is_left_of_the_echo_is_no_voice_after_a_pause_either() -> None:
    talk = DoubleTalk()
    end = fill(talk, 0, 2.0, heard=3000, left=300, loud=True)
    end = fill(talk, end, 1.2, heard=50, left=45, loud=False)
    onset = end
    fill(talk, end, 0.3, heard=3000, left=330, loud=True)  # the echo again, 19 dB off
    voice, taken = talk.voice_over_echo(onset, usual=1.0)
    assert not voice and taken is not None and taken > 18
