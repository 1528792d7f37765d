"""Kokoro's halves cached beside the model: a changed model is split again."""

from __future__ import annotations

import os
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from services.tts.kokoro_split import ENERGY, FEATURES, PITCH, split_model


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
