"""Kokoro cut in two: the text side (tokens to frames) and the decoder (frames to audio).

Nine tenths of Kokoro's time is its decoder, and the decoder is convolutional:
it can turn the first few frames into audio while the rest wait. One ONNX graph
cannot, so the graph is split once at the decoder's inputs (the aligned text
features, the pitch and energy curves) with the ``onnx`` package, and the two
halves are cached. A model whose graph lacks those tensors (another export) is
not split, and is spoken whole as before.

The cache holds the halves' graphs only (1.5 MB): each weight is named by its
offset and length in the model's own bytes (ONNX external data), and the model
is handed to onnxruntime from memory when the halves are opened. The weights are
then on disk once, in the model (the embedded one: inside its packages).
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.tts.kokoro.embedded import PackagedModel

log = logging.getLogger(__name__)

FEATURES = "/encoder/MatMul_1_output_0"
"""The aligned text features: ``[1, 512, frames]``, one frame per 600 samples."""
PITCH = "/encoder/Reshape_output_0"
"""The predicted pitch (F0): ``[1, 2 * frames]``."""
ENERGY = "/encoder/Reshape_1_output_0"
"""The predicted energy (N): ``[1, 2 * frames]``; about -9 in silence, 5-9 in speech."""
TEXT_INPUTS = ("tokens", "style", "speed")
DECODER_INPUTS = (FEATURES, PITCH, ENERGY, "style")
FORMAT = 2
"""Of the cached halves, in their names. 2: graphs whose weights point into the model;
1 (unversioned names): whole halves, 92 MB of weights copied out of the model."""
WEIGHTS = "model"
"""The file name the halves' graphs give the model's bytes (never read from disk: the
bytes are handed to onnxruntime under this name)."""
INLINE_BELOW = 1024
"""Bytes: a smaller weight stays in the graph (303 of Kokoro's 775, 40 kB in all)."""


@dataclass(frozen=True)
class SplitModel:
    text: Path
    decoder: Path
    model: Path | PackagedModel
    """Whose bytes hold the halves' weights."""


def split_model(model: Path | PackagedModel, cache: Path) -> SplitModel | None:
    """The two halves of ``model`` (made once, then reused), or None when it cannot be split."""
    forget_older_formats(cache)
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
    key = f"{_key(model)}.v{FORMAT}"
    return SplitModel(cache / f"{key}.text.onnx", cache / f"{key}.decoder.onnx", model)


def forget_older_formats(cache: Path) -> None:
    """Remove halves cached in an older format: they would be misread as this one's (those
    of format 1 held 92 MB of weights apiece)."""
    current = (f".v{FORMAT}.text.onnx", f".v{FORMAT}.decoder.onnx")
    for path in cache.glob("*.onnx") if cache.is_dir() else ():
        if path.name.endswith((".text.onnx", ".decoder.onnx")) and not path.name.endswith(current):
            path.unlink(missing_ok=True)
            log.info("removed %s: Kokoro's halves are cached in format %d now", path, FORMAT)


def open_halves(halves: SplitModel, ort: Any, options: Any) -> tuple[Any, Any]:
    """Sessions of the text half and the decoder, their weights read from the model's bytes
    (onnxruntime copies what it needs while the sessions are made)."""
    weights = read_model(halves.model)
    options.add_external_initializers_from_files_in_memory([WEIGHTS], [weights], [len(weights)])
    text, decoder = (
        ort.InferenceSession(path.read_bytes(), sess_options=options,
                             providers=["CPUExecutionProvider"])
        for path in (halves.text, halves.decoder)
    )
    text._model_path = str(halves.text)  # kokoro-onnx only checks that its path exists
    return text, decoder


def read_model(model: Path | PackagedModel) -> bytes:
    return model.read() if isinstance(model, PackagedModel) else model.read_bytes()


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
    from onnx.external_data_helper import set_external_data
    from onnx.utils import Extractor

    data = read_model(model)
    graph = onnx.load_model_from_string(data)
    names = {output for node in graph.graph.node for output in node.output}
    missing = [name for name in (FEATURES, PITCH, ENERGY) if name not in names]
    if missing:
        raise KeyError(f"no tensor {', '.join(missing)} in its graph (another export?)")
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in graph.graph.initializer):
        raise ValueError("its weights are in a file of their own (ONNX external data)")
    extractor = Extractor(graph)
    parts = (
        (halves.text, extractor.extract_model(list(TEXT_INPUTS), [FEATURES, PITCH, ENERGY])),
        (halves.decoder, extractor.extract_model(list(DECODER_INPUTS), ["audio"])),
    )
    places = _places(graph, data)
    halves.text.parent.mkdir(parents=True, exist_ok=True)
    for path, part in parts:
        part.metadata_props.extend(graph.metadata_props)  # kokoro-onnx reads its vocabulary there
        for tensor in part.graph.initializer:
            if tensor.name in places:  # its bytes are the model's, read at start
                set_external_data(tensor, WEIGHTS, *places[tensor.name])
                tensor.ClearField("raw_data")
                tensor.data_location = onnx.TensorProto.EXTERNAL
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_bytes(part.SerializeToString())
        temporary.replace(path)  # atomic: a second process starting meanwhile never sees half
    log.info("Kokoro model %s split for streaming into %s", model, halves.text.parent)


def _places(graph: Any, data: bytes) -> dict[str, tuple[int, int]]:
    """Each large weight's offset and length in the model's bytes (``data``, where protobuf
    stores them verbatim and in their order: each is found after the one before)."""
    places: dict[str, tuple[int, int]] = {}
    start = 0
    for tensor in graph.graph.initializer:
        if len(tensor.raw_data) >= INLINE_BELOW:
            offset = data.find(tensor.raw_data, start)
            if offset < 0:
                raise ValueError(f"weight {tensor.name} not found in the model's bytes")
            places[tensor.name] = (offset, len(tensor.raw_data))
            start = offset + len(tensor.raw_data)
    return places
