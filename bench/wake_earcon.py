"""End of the wake word to the earcon, as the sound card plays them.

    python -m bench.wake_earcon [--rounds 20] [--window N] [--json]

The mic service (``[listen] mode = "wake"``) listens to the virtual sound card's
sink, and plays its chime into the same sink when it hears the word, so one
recording of the sink's monitor (``bench/ear.py``) holds the word and the chime
on one clock: the time from the word's last voiced sample to the chime's first
audible sample is read in sample positions, free of any process's clock. Kokoro's
five voices say "Okay Nabu." in turn. The detector's share (the model's sliding
window, in audio time) is in ``python -m bench.wake``; the rest is the mic's frame
(32 ms), the hand-over to the chime's thread and the opening of its output stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

import numpy as np

from bench.ear import RATE, Ear, hear_exchange
from bench.wake import KOKORO_VOICES, WORD
from bench.wake_audio import kokoro
from bus.client import Bus, RequestTimeout
from bus.messages import ListenClosed, WakeWordHeard
from tests.helpers.service_stack import Stack, wait_state
from tests.helpers.soundcard import SoundCard
from tests.helpers.speech import write_wav

CONFIG = '[listen]\nmode = "wake"\ntimeout = 1.0\n[wake]\nearcon = true\nwindow = {window}\n'
AFTER = 0.6
"""Seconds recorded after the detection: the chime (120 ms) has played by then."""


async def rounds(card: SoundCard, stack: Stack, count: int, folder: Path) -> list[float]:
    clips = []
    for voice in KOKORO_VOICES:
        speech = kokoro(WORD, voice, 1.0)
        padded = np.concatenate([np.zeros(RATE // 2), speech, np.zeros(RATE // 5)])
        clips.append((speech, write_wav(folder / f"{voice}.wav", padded, RATE)))
    ear = Ear(card).start()
    lags = []
    bus = Bus(stack.endpoints, "bench")
    try:
        bus.subscribe(WakeWordHeard.TOPIC, ListenClosed.TOPIC)
        await wait_state(bus, "mic", "ready")
        await bus.wait_connected()
        for i in range(count):
            speech, wav = clips[i % len(clips)]
            start = ear.position()
            # Waiting before playing: the word is heard before the clip's silent tail ends.
            woke = asyncio.ensure_future(bus.wait_for(WakeWordHeard, timeout=10))
            closed = asyncio.ensure_future(bus.wait_for(ListenClosed, timeout=15))
            await asyncio.to_thread(card.play, wav)
            try:
                await woke
            except RequestTimeout:  # not heard: no chime to time
                closed.cancel()
                continue
            until = ear.position() + round(AFTER * RATE)
            await asyncio.sleep(AFTER)  # recording the chime: sound card time, not a bus wait
            heard = hear_exchange(ear.samples(start, until), speech, False, 0.0)
            if heard is not None:
                lags.append(heard.first_sound)
            await closed  # no question follows: the mic closes again
    finally:
        ear.stop()
        await bus.close()
    return lags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--window", type=int, default=0,
                        help="[wake] window (0: the model's own, 5 for okay_nabu)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with SoundCard() as card, tempfile.TemporaryDirectory() as folder:
        stack = Stack(CONFIG.format(window=args.window), top='card = "pulse"\n')
        try:
            stack.start("services.mic", env=card.env())
            lags = asyncio.run(rounds(card, stack, args.rounds, Path(folder)))
        finally:
            stack.close()
    result = {
        "window": args.window, "rounds": args.rounds, "heard": len(lags),
        "word_end_to_earcon_s": {p: round(float(np.percentile(lags, int(p[1:]))), 3)
                                 for p in ("p50", "p95")} if lags else None,
        "all_s": [round(x, 3) for x in lags],
    }
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
