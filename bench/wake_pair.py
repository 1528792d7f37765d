"""A second opinion before the mic opens (issue 28): both wake word engines, alone and paired.

    python -m bench.wake_pair [--quick] [--plain] [--all-snrs] [--json PATH]

microWakeWord and openWakeWord (``okay_nabu`` both) each hear the audio of
``bench/wake.py`` once (the same clips, room noises and speech without the word,
made by ``bench/wake_audio.py``), through the noise suppressor as the detectors do
(``--plain``: without it), fed in the mic's blocks; every raw score is kept with the
time, in audio time, at which the engine gave it. The combinations are then judged
on those runs:

- each engine alone, at its default and at lenient cutoffs;
- AND, a second opinion: engine A at a lenient cutoff passes at time t, and it is a
  detection if engine B's score passes its cutoff anywhere in [t - 1 s, t + D], where
  D is how long the detection may wait for B (0, 0.1, 0.2, 0.4 s); the detection is at
  max(t, the time B passed); for A = microWakeWord, B = openWakeWord and the reverse;
- OR: either engine at its default.

Every detection is followed by the detectors' refractory time. For each: detection
rate on clean clips and at 10 dB averaged over pink, brown, babble and a television
(Kokoro / espeak-ng voices), false accepts per hour on the speech without the word,
near words heard (``bench.wake.NEAR``), the end of the word to the detection
(p50 / p95 of the clean clips, audio time) and what the confirmation adds to the first
stage's (p50 / p95). One markdown table, the combinations that keep false accepts and
near words at or below today's default (microWakeWord, 0.85, window 5) first, by their
detection rate at 10 dB. Only 10 dB is mixed unless ``--all-snrs``; ``--quick`` runs
a small subset (two voices of each, one speed, a few minutes of speech without the
word) to try it out.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

import bench.wake as wake
from bench.wake import NEAR, OTHER, ROOM, MicroTrace, OpenTrace, Trace, Traces, detection
from bench.wake_audio import espeak, hour_without_word, kokoro, mixed
from hearing.vad import FRAME, RATE
from hearing.wake import REFRACTORY
from tests.helpers.speech import speech_bounds

BLOCK = 2 * FRAME
"""Bytes fed at a time, as the mic's blocks reach the detector (32 ms): a score's time is
the end of the block that gave it."""
LOOK_BACK = 1.0
"""Seconds before the first stage's pass in which the second engine's pass confirms it."""
WAITS = (0.0, 0.1, 0.2, 0.4)
"""Seconds the detection may wait after the first stage for the second engine (D; 0.4 s
to show what a longer wait would buy)."""
MICRO, OPEN = "microwakeword", "openwakeword"
SHORT = {MICRO: "mWW", OPEN: "oWW"}
DEFAULTS = {MICRO: (0.85, 5), OPEN: (0.5, 1)}
LENIENT = {MICRO: ((0.5, 5), (0.6, 5), (0.7, 5)), OPEN: ((0.2, 1), (0.3, 1), (0.4, 1))}
"""First stages: cutoffs that hear (nearly) every clean clip."""
SECOND = {MICRO: ((0.5, 5), (0.7, 5), (0.85, 5)), OPEN: ((0.2, 1), (0.3, 1), (0.5, 1))}
"""Second opinions."""


class Timed(Trace):
    """An engine's trace with the time of each score: ``__call__`` gives a (2, n) array,
    the scores and the times (s) since the start of the audio."""

    times: list[float]

    def scores(self, pcm: bytes) -> list[float]:
        out: list[float] = []
        self.times = []
        for at in range(0, len(pcm), BLOCK):
            got = super().scores(pcm[at : at + BLOCK])  # the engines stream: state carries on
            out += got
            self.times += [min(at + BLOCK, len(pcm)) / 2 / RATE] * len(got)
        return out

    def __call__(self, audio: np.ndarray, denoise: bool = False) -> np.ndarray:
        scores = super().__call__(audio, denoise)
        return np.stack([scores, np.asarray(self.times)])


class TimedMicro(Timed, MicroTrace):
    pass


class TimedOpen(Timed, OpenTrace):
    pass


@dataclass
class Heard:
    """One engine's timed traces of everything."""

    clips: Traces
    without: list[np.ndarray]
    near: list[np.ndarray]
    hours: float
    """Of audio without the word."""
    cpu: float


def hear(trace: Trace, denoise: bool, quick: bool) -> Heard:
    """What ``bench.wake`` hears, with the same generator, so both engines hear the same
    noises and the same speech without the word."""
    wake.cpu_spent[:] = [0.0, 0.0]
    rng = np.random.default_rng(0)
    clips = detection(trace, rng, denoise)
    hour = hour_without_word(rng)
    voices = wake.KOKORO_VOICES
    without = [*(hour[:3] if quick else hour),
               *(mixed(kokoro(text, v, 1.0), None, None) for text in OTHER for v in voices)]
    near = [mixed(say(text, voice, 1.0), None, None) for text in NEAR
            for say, names in ((kokoro, voices), (espeak, wake.ESPEAK_VOICES)) for voice in names]
    return Heard(clips, [trace(a, denoise) for a in without], [trace(a, denoise) for a in near],
                 sum(len(a) for a in without) / RATE / 3600,
                 round(wake.cpu_spent[0] / max(wake.cpu_spent[1], 1e-9), 4))


def word_ends() -> dict[str, list[float]]:
    """Seconds from the start of each clean clip to the end of the word, by voice engine."""
    out: dict[str, list[float]] = {}
    for engine, speech in wake.clips():
        out.setdefault(engine, []).append(0.5 + speech_bounds(speech, RATE)[1])
    return out


def passes(trace: np.ndarray, cutoff: float, window: int) -> np.ndarray:
    """Times at which the mean of ``window`` scores is over ``cutoff``."""
    if trace.shape[1] < window:
        return np.zeros(0)
    means = np.convolve(trace[0], np.ones(window) / window, "valid")
    return trace[1][window - 1 :][means > cutoff]


def refractory(times: Iterable[float]) -> list[float]:
    """The detections among the passes: none again within the refractory time."""
    out: list[float] = []
    for at in sorted(times):
        if not out or at >= out[-1] + REFRACTORY:
            out.append(at)
    return out


Stage = tuple[str, float, int]
"""An engine, its cutoff and window."""
Judge = Callable[[dict[str, np.ndarray]], list[float]]
"""The detections in one piece of audio, from each engine's trace of it."""


def alone(stage: Stage) -> Judge:
    engine, cutoff, window = stage
    return lambda traces: refractory(passes(traces[engine], cutoff, window))


def either(a: Stage, b: Stage) -> Judge:
    return lambda traces: refractory([*passes(traces[a[0]], *a[1:]),
                                      *passes(traces[b[0]], *b[1:])])


def confirmed(a: Stage, b: Stage, wait: float) -> Judge:
    """A's passes that B's confirms (B passed in [t - LOOK_BACK, t + wait]), at the later
    of the two."""
    def judge(traces: dict[str, np.ndarray]) -> list[float]:
        first, second = passes(traces[a[0]], *a[1:]), passes(traces[b[0]], *b[1:])
        out = []
        for t in first:
            i = int(np.searchsorted(second, t - LOOK_BACK - 1e-9))
            if i < len(second) and second[i] <= t + wait + 1e-9:
                out.append(max(float(t), float(second[i])))
        return refractory(out)

    return judge


def combinations() -> list[tuple[str, str, Judge, Judge | None]]:
    """(kind, name, judge, the first stage's judge for the added delay)."""
    out: list[tuple[str, str, Judge, Judge | None]] = []
    for engine in (MICRO, OPEN):
        for cutoff, window in sorted({DEFAULTS[engine], *LENIENT[engine]}):
            default = (cutoff, window) == DEFAULTS[engine]
            out.append(("default" if default else "alone",
                        f"{SHORT[engine]} {cutoff} w{window}",
                        alone((engine, cutoff, window)), None))
    a, b = (MICRO, *DEFAULTS[MICRO]), (OPEN, *DEFAULTS[OPEN])
    out.append(("OR", f"mWW {a[1]} w{a[2]} OR oWW {b[1]} w{b[2]}", either(a, b), None))
    for first, second in ((MICRO, OPEN), (OPEN, MICRO)):
        for c1, w1 in LENIENT[first]:
            for c2, w2 in SECOND[second]:
                for wait in WAITS:
                    out.append(("AND", f"{SHORT[first]} {c1} w{w1} → {SHORT[second]} {c2} "
                                f"w{w2}, D {wait}",
                                confirmed((first, c1, w1), (second, c2, w2), wait),
                                alone((first, c1, w1))))
    return out


def judged(judge: Judge, first: Judge | None, heard: dict[str, Heard],
           ends: dict[str, list[float]]) -> dict[str, Any]:
    engines = list(heard)
    one = heard[engines[0]]

    def each(get: Callable[[Heard], list[np.ndarray]]) -> list[list[float]]:
        return [judge(dict(zip(engines, traces, strict=True)))
                for traces in zip(*(get(heard[e]) for e in engines), strict=True)]

    def rate(voice: str, condition: str) -> float:
        return float(np.mean([len(d) > 0 for d in each(lambda h: h.clips[voice][condition])]))

    voices = ("kokoro", "espeak")
    lags, added = [], []
    for voice in voices:
        clean = [dict(zip(engines, t, strict=True)) for t in
                 zip(*(heard[e].clips[voice]["clean"] for e in engines), strict=True)]
        for traces, end in zip(clean, ends[voice], strict=True):
            found = judge(traces)
            if found:
                lags.append(found[0] - end)
                if first is not None and (before := first(traces)):
                    added.append(found[0] - before[0])
    conditions = sorted(one.clips["kokoro"])
    result: dict[str, Any] = {
        "clean": [round(100 * rate(v, "clean")) for v in voices],
        "room_10_db": [round(100 * float(np.mean([rate(v, f"{k} 10 dB") for k in ROOM])))
                       for v in voices],
        "false_accepts_per_hour": round(sum(len(d) for d in each(lambda h: h.without))
                                        / one.hours, 2),
        "near_words": sum(len(d) > 0 for d in each(lambda h: h.near)),
        "near_word_clips": len(one.near),
        "lag_s": [round(float(np.percentile(lags, q)), 3) for q in (50, 95)] if lags else None,
        "added_s": [round(float(np.percentile(added, q)), 3) for q in (50, 95)]
        if added else None,
        "by_condition (kokoro, espeak)": {c: [round(100 * rate(v, c)) for v in voices]
                                          for c in conditions},
    }
    return result


def table(rows: list[dict[str, Any]], today: dict[str, Any]) -> str:
    def good(r: dict[str, Any]) -> bool:
        return bool(r["false_accepts_per_hour"] <= today["false_accepts_per_hour"]
                    and r["near_words"] <= today["near_words"])

    rows = sorted(rows, key=lambda r: (not good(r), -sum(r["room_10_db"]), -sum(r["clean"]),
                                       r["lag_s"][1] if r["lag_s"] else 9))
    lines = ["| | combination | clean % (Kokoro / espeak) | 10 dB room % (Kokoro / espeak) "
             "| false accepts / h | near words | word end → detection p50 / p95 s "
             "| added by the 2nd p50 / p95 s |", "|" + "---|" * 8]
    for r in rows:
        lag = "{} / {}".format(*r["lag_s"]) if r["lag_s"] else "-"
        added = "{} / {}".format(*r["added_s"]) if r["added_s"] else "-"
        name = f"**{r['name']}**" if r["kind"] == "default" and r["name"].startswith("mWW") \
            else r["name"]
        lines.append(f"| {'✓' if good(r) else ''} | {name} | {r['clean'][0]} / {r['clean'][1]} "
                     f"| {r['room_10_db'][0]} / {r['room_10_db'][1]} "
                     f"| {r['false_accepts_per_hour']} | {r['near_words']} of "
                     f"{r['near_word_clips']} | {lag} | {added} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small subset, to try it")
    parser.add_argument("--plain", action="store_true", help="without the noise suppressor")
    parser.add_argument("--all-snrs", action="store_true", help="20 and 5 dB as well")
    parser.add_argument("--json", metavar="PATH", help="write every figure there too")
    args = parser.parse_args()
    if not args.all_snrs:  # the noises are drawn per kind, so the 10 dB mixes are the same
        setattr(wake, "SNRS", (10,))  # noqa: B010 (a tuple of another length)
    if args.quick:
        for name, few in (("KOKORO_VOICES", wake.KOKORO_VOICES[:2]),
                          ("ESPEAK_VOICES", wake.ESPEAK_VOICES[:2]), ("SPEEDS", (1.0,))):
            setattr(wake, name, few)
    started = time.monotonic()
    ends = word_ends()
    heard: dict[str, Heard] = {}
    for engine, make in ((MICRO, TimedMicro), (OPEN, TimedOpen)):
        heard[engine] = hear(make(), not args.plain, args.quick)
        print(f"{engine}: heard in {time.monotonic() - started:.0f} s "
              f"({heard[engine].cpu} CPU s per audio s)", flush=True)
    rows = [{"kind": kind, "name": name, **judged(judge, first, heard, ends)}
            for kind, name, judge, first in combinations()]
    today = next(r for r in rows if r["kind"] == "default" and r["name"].startswith("mWW"))
    print(f"\n{len(next(iter(heard.values())).clips['kokoro']['clean'])} Kokoro and "
          f"{len(next(iter(heard.values())).clips['espeak']['clean'])} espeak clips; "
          f"{heard[MICRO].hours:.2f} h without the word; "
          f"{'plain' if args.plain else 'through the noise suppressor'}; "
          f"✓: false accepts and near words at or below today's default (bold)\n")
    print(table(rows, today))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"hours_without_word": round(heard[MICRO].hours, 3),
                       "cpu_s_per_audio_s": {e: h.cpu for e, h in heard.items()},
                       "rows": rows}, out, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
