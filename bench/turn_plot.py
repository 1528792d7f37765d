"""The per-stage plot of ``bench/turn.py`` runs (PNG, matplotlib).

Left: the critical path of the median turn, step by step, coloured by what the
time went to (window, audio devices, models, the pipeline's own overhead), one
bar per run.
Right: when each stage ran, as median times from the end of speech: with
speculation the models work while the window is still open.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from bench.turn_stages import FIRST_ANSWER, FIRST_SOUND, LLM_FIRST_TOKEN, LLM_REQUEST, SYNTH_ANSWER
from bus.turns import CONFIRMED, GUESS, TRANSCRIPT, WINDOW_CLOSED

CATEGORIES = [
    ("window", "end-of-speech window", "#b0b0b0"),
    ("input", "mic: capture + detection", "#d9c38c"),
    ("stt", "STT (Whisper)", "#4c72b0"),
    ("llm", "LLM (scripted)", "#55a868"),
    ("tts", "TTS (Kokoro first piece)", "#c44e52"),
    ("output", "audio out: callback + buffer", "#8172b2"),
    ("overhead", "pipeline overhead (a few ms)", "#000000"),
]


PIPECAT_P50 = {0.5: 1.98, 0.8: 2.31}
"""Pipecat 1.14 on this machine with the same models and a plain end-of-speech window of that
length: seconds from the last speech sample to the first audio, p50 (issue 8)."""
MARKERS = [(TRANSCRIPT, "v", "#4c72b0"), (CONFIRMED, "D", "#000000"),
           (FIRST_SOUND, "o", "#8172b2"), (FIRST_ANSWER, "*", "#c44e52")]
SPANS = [("window", "window open", "#b0b0b0"), ("stt", "STT", "#4c72b0"),
         ("llm", "LLM", "#55a868"), ("tts", "TTS first piece", "#c44e52")]


def _name(result: dict[str, Any]) -> str:
    return f"{result.get('label') or 'run'}, window {result['window']:g} s"


def _p50(result: dict[str, Any], key: str) -> float:
    row = result["summary"]["events"].get(key)
    return math.nan if row is None else float(row["p50"])


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [_name(r) for r in results]
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(15, 2.2 + 0.8 * len(results)), gridspec_kw={"width_ratios": [1, 1.2]}
    )
    colours = {key: colour for key, _, colour in CATEGORIES}
    for row, result in enumerate(results):
        start = 0.0
        for _step, seconds, category in result["summary"].get("median_path", []):
            left.barh(row, seconds, left=start, color=colours[category],
                      edgecolor="white", linewidth=0.5)
            start += seconds
        heard = result["summary"]["totals"]["heard: first answer speech"]
        if heard["n"]:
            left.plot([heard["p50"]], [row], "k|", markersize=18)
            left.plot([heard["p95"]], [row], "r|", markersize=18)
        pipecat = PIPECAT_P50.get(round(result["window"], 2))
        if pipecat is not None:
            left.plot([pipecat], [row], "x", color="#555555", markersize=9,
                      label=None if row else "Pipecat p50, same window")
    for _key, label, colour in CATEGORIES:
        left.barh([0], [0], color=colour, label=label)
    left.set_yticks(range(len(results)), names)
    left.invert_yaxis()
    left.set_xlabel("seconds from the end of speech (|: heard p50 black, p95 red; x: Pipecat)")
    left.set_title("Critical path of the median turn (bus clocks), step by step")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4, fontsize=7)

    labelled: set[str] = set()
    for row, result in enumerate(results):
        compute = result["summary"]["stt_compute"]["p50"]
        tts = result["summary"]["tts_compute"]["p50"]
        stt_done = _p50(result, GUESS)
        if math.isnan(stt_done):
            stt_done = _p50(result, TRANSCRIPT)
        spans = [
            ("window", 0.0, _p50(result, WINDOW_CLOSED), "#b0b0b0"),
            ("stt", stt_done - compute, stt_done, "#4c72b0"),
            ("llm", _p50(result, LLM_REQUEST), _p50(result, LLM_FIRST_TOKEN), "#55a868"),
            ("tts", _p50(result, SYNTH_ANSWER) - tts, _p50(result, SYNTH_ANSWER), "#c44e52"),
        ]
        for index, (_, begin, end, colour) in enumerate(spans):
            if not (math.isnan(begin) or math.isnan(end)):
                right.barh(row + 0.18 * (index - 1.5), end - begin, left=begin, height=0.17,
                           color=colour)
        for key, marker, colour in MARKERS:
            at = _p50(result, key)
            if not math.isnan(at):
                right.plot([at], [row], marker, color=colour, markersize=8,
                           label=None if key in labelled else key)
                labelled.add(key)
    right.set_yticks(range(len(results)), names)
    right.invert_yaxis()
    right.set_xlabel("seconds from the end of speech (median turn)")
    right.set_title("When each stage runs: window, STT, LLM, TTS; events")
    for _key, label, colour in SPANS:
        right.barh([0], [0], color=colour, label=label)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=5, fontsize=7)
    right.axvline(0, color="grey", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
