"""The multilingual base is loaded from a temporary folder: its ``model.bin`` is the two
packaged halves joined in an in-memory file, which is gone once the model is read
(CTranslate2 would keep its own copy of bytes handed to it: 140 MB)."""

from __future__ import annotations

import os
from pathlib import Path

from hearing.stt.packaged import BASE_SIZE, base_files, model_folder


def open_memory_files() -> list[str]:
    targets = (os.readlink(fd) for fd in Path("/proc/self/fd").iterdir() if fd.is_symlink())
    return [target for target in targets if target.startswith("/memfd:")]


def test_the_folder_holds_the_joined_model_while_it_is_open() -> None:
    files = base_files()
    with model_folder("base") as name:
        folder = Path(name)
        model = (folder / "model.bin").read_bytes()
        assert len(model) == BASE_SIZE
        assert model == files["model.bin"]
        for small in ("config.json", "tokenizer.json", "vocabulary.txt"):
            assert (folder / small).read_bytes() == files[small]
        assert open_memory_files() == ["/memfd:whisper-base-model.bin (deleted)"]
    assert not folder.exists()
    assert open_memory_files() == []


def test_a_named_folder_is_given_as_it_is(tmp_path: Path) -> None:
    with model_folder(str(tmp_path)) as name:
        assert name == str(tmp_path)
