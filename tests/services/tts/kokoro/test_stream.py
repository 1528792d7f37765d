"""Kokoro split in two and streamed, with the real embedded model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from services.tts.kokoro.embedded import cache_dir, model_and_voices
from services.tts.kokoro.split import read_model, split_model
from services.tts.kokoro.stream import (
    CONTEXT,
    END_PAD,
    HOP,
    LOOKAHEAD,
    MARGIN,
    SECONDS_PER_FRAME,
    SHORTEST_HEAD,
    SLOWER,
    Frames,
    StreamingDecoder,
    head_frames,
    voiced_range,
)
from services.tts.kokoro.voice import KokoroVoice, load_kokoro
from settings.schema import Config, KokoroConfig
from tests.helpers.speaker import CACHE

SENTENCE = "The weather in Rome is sunny today."


@pytest.fixture(scope="module")
def decoder(voice: KokoroVoice) -> StreamingDecoder:
    assert voice.decoder is not None, "the embedded model is split and streamed by default"
    return voice.decoder


def frames_of(voice: KokoroVoice, text: str) -> Frames:
    assert voice.decoder is not None
    tokens = voice.kokoro.tokenizer.tokenize(voice.phonemes(text, "en"))  # type: ignore[attr-defined]
    style = voice.voices["en"].style[len(tokens) - 1]
    return voice.decoder.frames(tokens, style, 1.0)


def spectrum(samples: np.ndarray) -> np.ndarray:
    """Log power per 1024-sample frame and frequency bin (what a listener would compare)."""
    frames = np.lib.stride_tricks.sliding_window_view(samples, 1024)[::256] * np.hanning(1024)
    return np.log10(np.abs(np.fft.rfft(frames, axis=1)) ** 2 + 1e-6)


def rest_ready_in_time(head: int, voiced: int, queued: float, cost: float) -> bool:
    """The timeline, step by step: the queue plays from 0; the head is decoded, then the
    rest; the head plays after the queue and its own decoding, less its trimmed onset."""
    head_ready = (head + LOOKAHEAD) * cost
    head_ends = max(queued, head_ready) + (head - MARGIN) * 0.025
    rest_ready = head_ready + (voiced - head + CONTEXT + END_PAD) * cost
    return rest_ready <= head_ready + 0.9 * (head_ends - head_ready)


@pytest.mark.parametrize("queued", [0.0, 0.2, 0.5])
def test_the_head_is_as_short_as_lets_the_rest_be_ready_in_time(queued: float) -> None:
    cost = 0.008  # seconds of decoding per frame; a frame plays 0.025 s
    head = head_frames(70, queued, cost, CONTEXT)
    assert head is not None and SHORTEST_HEAD <= head < 70 - CONTEXT
    assert rest_ready_in_time(head, 70, queued, cost)
    assert not rest_ready_in_time(head - 1, 70, queued, cost)


def test_a_longer_piece_needs_a_longer_head_and_a_queue_a_shorter_one() -> None:
    head = head_frames(70, 0.0, 0.008, CONTEXT)
    assert head_frames(120, 0.0, 0.008, CONTEXT) > head  # type: ignore[operator]
    assert head_frames(70, 0.5, 0.008, CONTEXT) < head  # type: ignore[operator]
    # A queue shorter than the head's own decoding gives the rest no time at all (the
    # tone plays while the head is decoded, not while the rest is).
    assert head_frames(70, 0.1, 0.008, CONTEXT) == head


def test_a_piece_is_decoded_whole_when_a_head_would_not_help() -> None:
    assert head_frames(60, 2.0, 0.008, CONTEXT) is None  # queued audio covers it
    assert head_frames(30, 0.0, 0.008, CONTEXT) is None  # too short for a seam


def test_silence_around_the_speech_is_not_decoded(voice: KokoroVoice) -> None:
    frames = frames_of(voice, SENTENCE)
    start, end = voiced_range(frames)
    assert 0 < start and end < frames.count  # Kokoro pads both ends with silence
    assert (frames.count - (end - start)) * HOP / 24000 > 0.3


def test_a_piece_ends_where_its_speech_fades(
    voice: KokoroVoice, decoder: StreamingDecoder
) -> None:
    frames = frames_of(voice, "Please remember")  # cut from a sentence: no pause after it
    start, end = voiced_range(frames)
    everything = decoder.decoder.run(None, frames.window(0, frames.count))[0].ravel()

    def loudness(samples: np.ndarray) -> np.ndarray:
        power = (samples[: len(samples) // HOP * HOP].reshape(-1, HOP) ** 2).mean(axis=1)
        return 10 * np.log10(power + 1e-12)

    for audio in (decoder.whole(frames), np.concatenate(list(decoder.stream(frames, 0.0)))):
        assert len(audio) == (end - start) * HOP
        # The decoder fades out the last frames it is given: the end of the word must not
        # be among them (it was: 33-57 dB down, and "close the kitchen" was heard "close
        # the hit"; 8 frames of silence after it: 17-31 dB; 24: 3-7 dB).
        fading = loudness(audio)[-10:-2] - loudness(everything[start * HOP : end * HOP])[-10:-2]
        assert np.abs(fading).max() < 10
        audible = np.flatnonzero(np.abs(audio) > 0.01 * np.abs(audio).max())
        assert (len(audio) - audible[-1]) / 24000 < 0.15  # no pause the text does not have


def test_a_piece_loud_from_its_first_frame_streams(paced: StreamingDecoder) -> None:
    # At the usual pace whatever this machine's (a busy host measured a pace at which no
    # head pays off, and the piece came whole): the split itself is what is judged here.
    paced.pace = SECONDS_PER_FRAME
    decoder = paced
    count = 60
    rng = np.random.default_rng(1)
    frames = Frames(
        features=rng.standard_normal((1, 512, count)).astype(np.float32),
        pitch=np.full((1, 2 * count), 200.0, np.float32),
        energy=np.full((1, 2 * count), 6.0, np.float32),
        style=rng.standard_normal((1, 256)).astype(np.float32) * 0.1,
    )
    assert voiced_range(frames) == (0, count)
    chunks = list(decoder.stream(frames, 0.0))
    assert len(chunks) == 2
    assert sum(len(c) for c in chunks) == count * HOP


def test_the_first_chunk_comes_before_the_rest_and_sounds_like_the_whole(
    voice: KokoroVoice, paced: StreamingDecoder
) -> None:
    decoder = paced
    frames = frames_of(voice, SENTENCE)
    whole = decoder.whole(frames)
    # The head is sized on the measured pace, which each decode moves: at the usual pace
    # the head is the shorter chunk; a busy host's slower pace made it the longer one.
    decoder.pace = SECONDS_PER_FRAME
    chunks = list(decoder.stream(frames, 0.0))
    assert len(chunks) == 2 and len(chunks[0]) < len(chunks[1])
    streamed = np.concatenate(chunks)
    assert len(streamed) == len(whole)
    same = np.corrcoef(spectrum(streamed).ravel(), spectrum(whole).ravel())[0, 1]
    other = decoder.whole(frames_of(voice, "Your next meeting is tomorrow at nine."))
    n = min(len(whole), len(other))
    different = np.corrcoef(spectrum(other[:n]).ravel(), spectrum(whole[:n]).ravel())[0, 1]
    assert same > 0.85 and different < 0.6  # measured: 0.91-0.95 and 0.28-0.41
    seam = len(chunks[0])
    jump = np.abs(np.diff(streamed[seam - 48 : seam + 48])).max()
    assert jump < 4 * np.abs(np.diff(whole)).mean() + 0.05  # no click at the seam


LEVEL_SENTENCES = [
    "Testing the volume of this voice.",
    "It is Monday 30 November 2026, 19:02.",
    "I could not find anything about that on the web.",
    "The kitchen lights are now off.",
    "Okay, louder.",
]


def test_the_head_is_as_loud_as_the_whole_and_the_seam_makes_no_step(
    voice: KokoroVoice, paced: StreamingDecoder
) -> None:
    # The usual pace, whatever this machine's: where the seam falls is then fixed. (Cut
    # elsewhere, a head can end on a local dip of the short window's decode, 10 dB below
    # the whole decode's over its last 100 ms: no level match corrects that.)
    paced.pace = SECONDS_PER_FRAME
    decoder = paced

    def db(a: np.ndarray, b: np.ndarray) -> float:
        return float(10 * np.log10(np.mean(np.square(a)) / np.mean(np.square(b))))

    heads, steps = [], []
    for text in LEVEL_SENTENCES:
        frames = frames_of(voice, text)
        whole = decoder.whole(frames)
        decoder.pace = SECONDS_PER_FRAME  # each decode moves it: a busy host moved the seam
        chunks = list(decoder.stream(frames, 0.0))
        streamed, seam, span = np.concatenate(chunks), len(chunks[0]), 4 * HOP
        heads.append(db(streamed[:seam], whole[:seam]))
        after, before = slice(seam, seam + span), slice(seam - span, seam)
        steps.append(db(streamed[after], streamed[before]) - db(whole[after], whole[before]))
    # Unmatched, the head was 2.6-6.5 dB softer and the voice stepped up 2-9 dB at the seam.
    assert abs(float(np.mean(heads))) < 1.5, heads
    assert max(abs(s) for s in steps) < 2.5, steps


@pytest.fixture
def paced(decoder: StreamingDecoder) -> Iterator[StreamingDecoder]:
    """The shared decoder, its measured pace put back after the test."""
    before = decoder.pace
    yield decoder
    decoder.pace = before


def test_heads_are_sized_on_the_usual_pace_until_the_decoder_is_much_slower(
    paced: StreamingDecoder,
) -> None:
    paced.pace = SECONDS_PER_FRAME * 1.2  # a little slower: the same cut every time
    assert paced.seconds_per_frame == SECONDS_PER_FRAME
    paced.pace = SECONDS_PER_FRAME * SLOWER * 1.2  # a busy machine: at least the pace it keeps
    busy = paced.seconds_per_frame
    assert paced.pace <= busy <= paced.pace * SLOWER
    usual = head_frames(70, 0.0, SECONDS_PER_FRAME, CONTEXT)
    assert head_frames(70, 0.0, busy, CONTEXT) > usual  # type: ignore[operator]
    paced.pace *= 1.1  # the pace wobbles: the same cut
    assert paced.seconds_per_frame == busy
    paced.pace = SECONDS_PER_FRAME * SLOWER**3 * 1.1  # much slower still: a longer head again
    assert paced.seconds_per_frame > busy


def test_the_slow_runs_at_start_up_do_not_count_in_the_pace() -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CACHE_HOME", str(CACHE))
        fresh = load_kokoro(Config())
    assert fresh.decoder is not None and fresh.decoder.pace == SECONDS_PER_FRAME


def test_the_pace_is_measured_on_every_decode(voice: KokoroVoice, paced: StreamingDecoder) -> None:
    frames = frames_of(voice, SENTENCE)
    paced.pace = 1.0  # a second a frame: far slower than any decode here
    paced.whole(frames)
    assert paced.pace < 0.8
    paced.pace = 0.0
    paced.whole(frames)
    assert paced.pace > 0.0


def test_queued_audio_lets_a_piece_be_decoded_whole(
    voice: KokoroVoice, decoder: StreamingDecoder
) -> None:
    frames = frames_of(voice, SENTENCE)
    assert [len(c) for c in decoder.stream(frames, 30.0)] == [len(decoder.whole(frames))]


def test_without_streaming_the_whole_model_speaks(voice: KokoroVoice) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CACHE_HOME", str(CACHE))
        whole = load_kokoro(Config(kokoro=KokoroConfig(stream=False)))
    assert whole.decoder is None
    # The session was made from the model's bytes and keeps no copy of them (88 MB).
    assert whole.kokoro.sess._model_bytes is None  # type: ignore[attr-defined]
    chunks = list(whole.stream(SENTENCE, "en", 0.0))
    assert len(chunks) == 1
    seconds = len(chunks[0]) / whole.sample_rate
    streamed = len(voice.synthesize(SENTENCE, "en")) / voice.sample_rate
    assert abs(seconds - streamed) < 0.3  # the same speech; the margins cut differently


def test_the_halves_are_made_once(tmp_path: Path) -> None:
    model, _, _ = model_and_voices("", "", cache_dir({"XDG_CACHE_HOME": str(CACHE)}))
    first = split_model(model, tmp_path)
    assert first is not None
    made = first.decoder.stat().st_mtime_ns
    again = split_model(model, tmp_path)
    assert again == first and again.decoder.stat().st_mtime_ns == made
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


def test_the_embedded_model_is_on_disk_once_inside_its_packages(tmp_path: Path) -> None:
    # A copy that earlier versions assembled from the packages is removed, none is made,
    # and so are the halves they cached with their weights: the cache holds only the
    # streamed decoder's two graphs, whose weights are read from the packages.
    assembled = tmp_path / "kokoro-v1.0.int8.onnx"
    assembled.write_bytes(b"an assembled copy")
    for half in ("text", "decoder"):  # as earlier versions named them, weights and all
        (tmp_path / f"kokoro-v1.0.int8-41566101c37a.{half}.onnx").write_bytes(b"a half")
    model, _, _ = model_and_voices("", "", tmp_path)
    halves = split_model(model, tmp_path)
    assert halves is not None
    cached = sorted(tmp_path.iterdir())
    assert [p.name for p in cached] == sorted([halves.text.name, halves.decoder.name])
    assert sum(p.stat().st_size for p in cached) < 3_000_000  # 1.5 MB; with weights: 92 MB


def test_the_split_model_speaks_what_the_whole_model_does(
    voice: KokoroVoice, decoder: StreamingDecoder
) -> None:
    # The halves' weights are the model's bytes at the offsets their graphs name: one
    # wired to a wrong place would change every sample after it.
    import onnxruntime as ort

    model, _, _ = model_and_voices("", "", cache_dir({"XDG_CACHE_HOME": str(CACHE)}))
    whole = ort.InferenceSession(read_model(model), providers=["CPUExecutionProvider"])
    tokens = voice.kokoro.tokenizer.tokenize(voice.phonemes(SENTENCE, "en"))  # type: ignore[attr-defined]
    style = voice.voices["en"].style[len(tokens) - 1]
    frames = decoder.frames(tokens, style, 1.0)
    split = decoder.decoder.run(None, frames.window(0, frames.count))[0].ravel()
    expected = whole.run(None, {
        "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
        "style": np.asarray(style, np.float32).reshape(1, -1),
        "speed": np.array([1.0], np.float32),
    })[0].ravel()
    assert len(split) == len(expected) > 24000
    np.testing.assert_allclose(split, expected, rtol=0, atol=1e-5)  # measured: equal


def test_a_model_of_another_shape_is_spoken_whole(tmp_path: Path) -> None:
    node = helper.make_node("Identity", ["tokens"], ["audio"])
    graph = helper.make_graph(
        [node], "other",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, None])],
        [helper.make_tensor_value_info("audio", TensorProto.INT64, [1, None])],
    )
    other = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), str(other))
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    assert split_model(other, tmp_path / "cache") is None
    assert split_model(broken, tmp_path / "cache") is None
