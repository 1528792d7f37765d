"""Kokoro's halves cached beside the model: a changed model is split again, and the halves' weights
are read from the model itself."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from services.tts.kokoro.split import (
    ENERGY,
    FEATURES,
    FORMAT,
    PITCH,
    halves_of,
    open_halves,
    split_model,
)


def save_model(path: Path, decoder_op: str) -> None:
    """A graph with Kokoro's seam tensors, whose decoder half is one ``decoder_op`` node."""
    nodes = [
        helper.make_node("Cast", ["tokens"], [FEATURES], to=TensorProto.FLOAT),
        helper.make_node("Identity", ["style"], [PITCH]),
        helper.make_node("Identity", ["speed"], [ENERGY]),
        helper.make_node(decoder_op, [FEATURES], ["audio"]),
    ]
    graph = helper.make_graph(
        nodes, "kokoro-like",
        [
            helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, 4]),
            helper.make_tensor_value_info("style", TensorProto.FLOAT, [1, 4]),
            helper.make_tensor_value_info("speed", TensorProto.FLOAT, [1]),
        ],
        [helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, 4])],
        value_info=[  # the seam's shapes, as the real export declares them
            helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT, [1, 4]),
            helper.make_tensor_value_info(PITCH, TensorProto.FLOAT, [1, 4]),
            helper.make_tensor_value_info(ENERGY, TensorProto.FLOAT, [1]),
        ],
    )
    onnx.save(helper.make_model(graph), str(path))


def decoder_ops(path: Path) -> list[str]:
    return [node.op_type for node in onnx.load(str(path)).graph.node]


def test_a_new_model_at_the_same_path_gets_new_halves(tmp_path: Path) -> None:
    model = tmp_path / "kokoro.onnx"
    save_model(model, "Identity")
    first = split_model(model, tmp_path / "cache")
    assert first is not None and decoder_ops(first.decoder) == ["Identity"]
    save_model(model, "Neg")  # an updated model: same path, other contents and time
    later = model.stat().st_mtime_ns + 1_000_000_000
    os.utime(model, ns=(later, later))
    second = split_model(model, tmp_path / "cache")
    assert second is not None and decoder_ops(second.decoder) == ["Neg"]
    assert first.decoder.is_file()  # the old halves stay for a process still using them


def save_weighted_model(path: Path) -> dict[str, np.ndarray]:
    """A graph with Kokoro's seam whose halves each use weights of one shape (a weight wired
    to another's place changes the output), and the weights."""
    rng = np.random.default_rng(7)
    weights = {name: rng.standard_normal((1, 512)).astype(np.float32)
               for name in ("text_weight", "pitch_weight", "decoder_weight")}
    nodes = [
        helper.make_node("Add", ["tokens", "text_weight"], [FEATURES]),
        helper.make_node("Add", ["style", "pitch_weight"], [PITCH]),
        helper.make_node("Identity", ["speed"], [ENERGY]),
        helper.make_node("Mul", [FEATURES, "decoder_weight"], ["scaled"]),
        helper.make_node("Add", ["scaled", PITCH], ["voiced"]),
        helper.make_node("Sub", ["voiced", "style"], ["audio"]),
    ]
    vectors = {name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 512])
               for name in ("tokens", "style", "audio", FEATURES, PITCH)}
    energy, speed = (helper.make_tensor_value_info(n, TensorProto.FLOAT, [1])
                     for n in (ENERGY, "speed"))
    graph = helper.make_graph(
        nodes, "kokoro-like", [vectors["tokens"], vectors["style"], speed], [vectors["audio"]],
        initializer=[numpy_helper.from_array(w, name) for name, w in weights.items()],
        value_info=[vectors[FEATURES], vectors[PITCH], energy],
    )
    onnx.save(helper.make_model(graph), str(path))
    return weights


def test_the_halves_hold_no_weights_and_compute_what_the_model_does(tmp_path: Path) -> None:
    model = tmp_path / "kokoro.onnx"
    weights = save_weighted_model(model)
    split = split_model(model, tmp_path / "cache")
    assert split is not None
    for half in (split.text, split.decoder):  # each weight is 2 kB: none is copied
        content = half.read_bytes()
        assert len(content) < 2048 and not any(w.tobytes() in content for w in weights.values())
    rng = np.random.default_rng(8)
    inputs = {"tokens": rng.standard_normal((1, 512)).astype(np.float32),
              "style": rng.standard_normal((1, 512)).astype(np.float32),
              "speed": np.ones(1, np.float32)}
    whole = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    text, decoder = open_halves(split, ort, ort.SessionOptions())
    features, pitch, energy = text.run(None, inputs)
    audio = decoder.run(None, {FEATURES: features, PITCH: pitch, ENERGY: energy,
                               "style": inputs["style"]})[0]
    np.testing.assert_array_equal(audio, whole.run(None, inputs)[0])


def test_halves_cached_in_an_older_format_are_replaced(tmp_path: Path) -> None:
    model = tmp_path / "kokoro.onnx"
    save_model(model, "Neg")
    cache = tmp_path / "cache"
    cache.mkdir()
    current = halves_of(model, cache)
    older = [current.text.name.replace(f".v{FORMAT}", ""),  # format 1: weights and all
             current.decoder.name.replace(f".v{FORMAT}", ""),
             "kokoro-v1.0.int8-5ebaecc70c2c.decoder.onnx"]  # of a model gone since
    for name in older:
        (cache / name).write_bytes(b"a graph with its weights")
    halves = split_model(model, cache)
    assert halves is not None and decoder_ops(halves.decoder) == ["Neg"]
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [halves.text.name, halves.decoder.name]
    )
