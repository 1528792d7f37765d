"""Kokoro cut in two: the text side (tokens to frames) and the decoder (frames to audio).

Nine tenths of Kokoro's time is its decoder, and the decoder is convolutional:
it can turn the first few frames into audio while the rest wait. One ONNX graph
cannot, so the graph is split once at the decoder's inputs (the aligned text
features, the pitch and energy curves) with the ``onnx`` package, and the two
halves are cached next to the model. A model whose graph lacks those tensors
(another export) is not split, and is spoken whole as before.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from services.tts.embedded import PackagedModel

log = logging.getLogger(__name__)

FEATURES = "/encoder/MatMul_1_output_0"
"""The aligned text features: ``[1, 512, frames]``, one frame per 600 samples."""
PITCH = "/encoder/Reshape_output_0"
"""The predicted pitch (F0): ``[1, 2 * frames]``."""
ENERGY = "/encoder/Reshape_1_output_0"
"""The predicted energy (N): ``[1, 2 * frames]``; about -9 in silence, 5-9 in speech."""
TEXT_INPUTS = ("tokens", "style", "speed")
DECODER_INPUTS = (FEATURES, PITCH, ENERGY, "style")


@dataclass(frozen=True)
class SplitModel:
    text: Path
    decoder: Path


def split_model(model: Path | PackagedModel, cache: Path) -> SplitModel | None:
    """The two halves of ``model`` (made once, then reused), or None when it cannot be split."""
    halves = halves_of(model, cache)
    if halves.text.is_file() and halves.decoder.is_file():
        return halves
    try:
        _split(model, halves)
    except Exception as exc:  # onnx raises its own types (protobuf decode errors) for a bad file
        log.warning("Kokoro model %s is spoken whole (not streamed): %s", model, exc)
        return None
    return halves


def halves_of(model: Path | PackagedModel, cache: Path) -> SplitModel:
    """Where the halves of ``model`` are cached, made or not."""
    key = _key(model)
    return SplitModel(cache / f"{key}.text.onnx", cache / f"{key}.decoder.onnx")


def _key(model: Path | PackagedModel) -> str:
    """Names the halves after the model's path, size and time (the packaged one: its sha256):
    a new model gets new halves."""
    if isinstance(model, PackagedModel):
        return f"{model.stem}-{model.sha256[:12]}"
    stat = model.stat()
    source = f"{model.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    return f"{model.stem}-{hashlib.sha256(source.encode()).hexdigest()[:12]}"


def _split(model: Path | PackagedModel, halves: SplitModel) -> None:
    import onnx
    from onnx.utils import Extractor

    if isinstance(model, PackagedModel):
        graph = onnx.load_model_from_string(model.read())
    else:
        graph = onnx.load(str(model))
    names = {output for node in graph.graph.node for output in node.output}
    missing = [name for name in (FEATURES, PITCH, ENERGY) if name not in names]
    if missing:
        raise KeyError(f"no tensor {', '.join(missing)} in its graph (another export?)")
    extractor = Extractor(graph)
    parts = (
        (halves.text, extractor.extract_model(list(TEXT_INPUTS), [FEATURES, PITCH, ENERGY])),
        (halves.decoder, extractor.extract_model(list(DECODER_INPUTS), ["audio"])),
    )
    halves.text.parent.mkdir(parents=True, exist_ok=True)
    for path, part in parts:
        part.metadata_props.extend(graph.metadata_props)  # kokoro-onnx reads its vocabulary there
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        onnx.save(part, str(temporary))
        temporary.replace(path)  # atomic: a second process starting meanwhile never sees half
    log.info("Kokoro model %s split for streaming into %s", model, halves.text.parent)
