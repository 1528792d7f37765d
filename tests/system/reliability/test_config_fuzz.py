"""Fuzzed config.toml and tool files: each one loads, or is refused with a message naming it.

Hypothesis writes arbitrary text and bytes, TOML built from the schema's own
keys with values of every TOML type (huge numbers, inf, nan, dates, deep
nesting), and valid files with random edits. Nothing may escape but a
``ConfigError`` whose message starts with the file's path; the real processes
then exit with status 2 and that message.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from settings import ConfigError, load_config
from settings.schema import Config
from settings.toolfiles import parse_tool
from tests.helpers.processes import ROOT, python_env

EXAMPLES = 300
"""Generated files per strategy and kind (config.toml, tool file)."""
TRIED: Counter[str] = Counter()

FOLDER = Path(tempfile.mkdtemp(prefix="da-fuzz-"))
CONFIG = FOLDER / "config.toml"
TOOL = FOLDER / "tools" / "fuzzed.toml"
TOOL.parent.mkdir()

SCHEMA_KEYS = sorted(
    {name for name in Config.model_fields}
    | {key for field in Config.model_fields.values()
       if hasattr(field.annotation, "model_fields")
       for key in field.annotation.model_fields}  # type: ignore[union-attr]
    | {"description", "command", "timeout", "params", "announce", "limits", "type", "en", "ja"}
)
keys = st.one_of(st.sampled_from(SCHEMA_KEYS), st.text(min_size=1, max_size=8))
scalars = st.one_of(
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.datetimes(),
    st.dates(),
    st.times(),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
documents = st.dictionaries(keys, values, max_size=8)

with open(ROOT / "examples" / "tools" / "weather.toml", encoding="utf-8") as f:
    VALID_TOOL = f.read()
VALID_CONFIG = '[bus]\nheartbeat = 0.5\n[dialogue]\ntimeout = 30\n[voice.en]\nlang = "en-us"\n' \
    'blend = {af_heart = 1.0}\n[env]\nKEY = "value"\n'


@st.composite
def edited(draw: st.DrawFn, text: str) -> bytes:
    """``text`` with a few random insertions, deletions and replacements."""
    data = bytearray(text.encode())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.binary(min_size=1, max_size=4) | st.sampled_from(
            [b"[", b"]", b"{", b"}", b"=", b'"', b"\n", b"\\", b"[[", b"\x00", b"\xff"]
        ))
        if what == "insert":
            data[at:at] = piece
        elif what == "delete":
            del data[at : at + len(piece)]
        else:
            data[at : at + len(piece)] = piece
    return bytes(data)


def toml_bytes(document: dict[str, Any]) -> bytes:
    try:
        return tomli_w.dumps(document).encode()
    except (ValueError, TypeError):  # tomli_w cannot write some (e.g. a naive time zone)
        return b""


def loads_or_names_the_file(content: bytes, kind: str) -> None:
    TRIED[kind] += 1
    if kind == "config":
        CONFIG.write_bytes(content)
        TOOL.unlink(missing_ok=True)
        try:
            load_config(FOLDER)
        except ConfigError as exc:
            assert str(exc).startswith(str(CONFIG)), str(exc)
    else:
        CONFIG.unlink(missing_ok=True)
        TOOL.write_bytes(content)
        try:
            parse_tool(TOOL)
        except ConfigError as exc:
            assert str(exc).startswith(str(TOOL)), str(exc)


FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
KINDS = pytest.mark.parametrize("kind", ["config", "tool"])


@KINDS
def test_arbitrary_text_and_bytes(kind: str) -> None:
    @FUZZ
    @given(st.text() .map(str.encode) | st.binary())
    def run(content: bytes) -> None:
        loads_or_names_the_file(content, kind)

    run()


@KINDS
def test_toml_of_every_type_under_the_schemas_keys(kind: str) -> None:
    @FUZZ
    @given(documents.map(toml_bytes))
    def run(content: bytes) -> None:
        loads_or_names_the_file(content, kind)

    run()


@st.composite
def extreme(draw: st.DrawFn) -> bytes:
    """A key whose value is arrays or inline tables nested up to 3000 deep, or a number of
    up to 6000 digits (what no TOML writer produces, but a hand can)."""
    key = draw(st.sampled_from(SCHEMA_KEYS)).encode()
    size = draw(st.integers(1, 6000))
    shape = draw(st.sampled_from(["array", "table", "number"]))
    if shape == "array":
        value = b"[" * size + b"1" + b"]" * size
    elif shape == "table":
        value = b"{a = " * size + b"1" + b"}" * size
    else:
        value = b"9" * size
    return key + b" = " + value + b"\n"


@KINDS
def test_deep_nesting_and_huge_numbers(kind: str) -> None:
    @settings(FUZZ, max_examples=EXAMPLES // 3)
    @given(extreme())
    def run(content: bytes) -> None:
        loads_or_names_the_file(content, kind)

    run()


@KINDS
def test_valid_files_with_random_edits(kind: str) -> None:
    @FUZZ
    @given(edited(VALID_CONFIG if kind == "config" else VALID_TOOL))
    def run(content: bytes) -> None:
        loads_or_names_the_file(content, kind)

    run()


NASTY = {
    "deep-nesting": b"a = " + b"[" * 5000 + b"]" * 5000,
    "huge-integer": b"tool_rounds = " + b"9" * 5000,
    "infinity": b"[bus]\nheartbeat = inf\n",
    "invalid-utf8": b'card = "\xff\xfe"\n',
}


@pytest.mark.parametrize("content", NASTY.values(), ids=NASTY.keys())
def test_the_processes_stop_with_a_message_naming_the_file(tmp_path: Path, content: bytes) -> None:
    folder = tmp_path / "config"
    (folder / "tools").mkdir(parents=True)
    (folder / "config.toml").write_bytes(content)
    for module in ("services.dialogue", "services.tools"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--config", str(folder)],
            cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert f"config error:\n{folder / 'config.toml'}: " in done.stderr
        assert "Traceback" not in done.stderr
    (folder / "config.toml").write_text("")
    (folder / "tools" / "bad.toml").write_bytes(content)
    done = subprocess.run(
        [sys.executable, "-m", "services.tools", "--config", str(folder)],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"tool file error:\n{folder / 'tools' / 'bad.toml'}: " in done.stderr


def teardown_module() -> None:
    print(f"\nfuzzed files tried: {dict(TRIED)}")
