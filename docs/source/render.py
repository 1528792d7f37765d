"""Render the generated parts of docs/bus.md and docs/config.md from the code.

``python docs/source/render.py`` rewrites the parts between the
``<!-- generated:NAME -->`` markers; ``--check`` exits 1 when a file is stale.
Message fields come from the attribute docstrings in ``bus/messages/*.py``,
the diagram from ``topology.toml``, config keys from the pydantic schema.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path
from typing import Literal, get_args, get_origin

ROOT = Path(__file__).resolve().parents[2]
BUS_DOC = ROOT / "docs" / "bus.md"
CONFIG_DOC = ROOT / "docs" / "config.md"
MESSAGES = ROOT / "bus" / "messages"
TOPOLOGY = Path(__file__).with_name("topology.toml")


def message_classes(nested: bool = False) -> list[dict[str, object]]:
    """Every registered class in bus/messages, in file order, with its fields; with
    ``nested``, the types carried inside them instead (dataclasses without a topic)."""
    classes = []
    for path in sorted(MESSAGES.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes.append(_describe(node, path.stem))
    return [c for c in classes if bool(c["topic"]) != nested]


def _describe(node: ast.ClassDef, module: str) -> dict[str, object]:
    topic = ""
    fields: list[tuple[str, str, str, str]] = []
    body = node.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and getattr(stmt.targets[0], "id", "") == "TOPIC":
            topic = ast.literal_eval(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            kind = ast.unparse(stmt.annotation)
            default = "required" if stmt.value is None else _default(stmt.value)
            doc = ""
            nxt = body[i + 1] if i + 1 < len(body) else None
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
                doc = " ".join(str(nxt.value.value).split())
            fields.append((name, kind, default, doc))
    return {
        "name": node.name,
        "module": module,
        "topic": topic,
        "doc": " ".join((ast.get_docstring(node) or "").split()),
        "fields": fields,
    }


def _default(value: ast.expr) -> str:
    text = ast.unparse(value)
    match = re.match(r"field\(default_factory=(\w+)\)", text)
    if match:
        return {"list": "[]", "dict": "{}"}.get(match.group(1), match.group(1) + "()")
    return f"`{text}`"


def render_topics() -> str:
    out = []
    nested = message_classes(nested=True)
    for cls in message_classes() + nested:
        if cls in nested:
            out.append(f"### {cls['name']} (inside a message)\n")
        else:
            out.append(f"### `{cls['topic']}`: {cls['name']}\n")
        if cls["doc"]:
            out.append(f"{cls['doc']}\n")
        if cls["fields"]:
            out.append("| field | type | default | meaning |")
            out.append("|---|---|---|---|")
            for name, kind, default, doc in cls["fields"]:  # type: ignore[attr-defined]
                out.append(f"| `{name}` | `{kind}` | {default} | {doc} |")
        else:
            out.append("No fields beyond the envelope.")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_diagram() -> str:
    topology = tomllib.loads(TOPOLOGY.read_text())
    lines = ["```mermaid", "flowchart LR"]
    ids: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = re.sub(r"\W", "_", name)
            lines.append(f'    {ids[name]}["{name}"]')
        return ids[name]

    for process in topology["processes"]:
        node(process)
    for flow in topology["flow"]:
        for src in flow["from"]:
            for dst in flow["to"]:
                lines.append(f"    {node(src)} -- {flow['topic']} --> {node(dst)}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def topology_topics() -> set[str]:
    return {flow["topic"] for flow in tomllib.loads(TOPOLOGY.read_text())["flow"]}


def render_config() -> str:
    sys.path.insert(0, str(ROOT))
    from pydantic import BaseModel

    from settings.schema import Config, McpConfig, SatelliteConfig, VoiceConfig

    out: list[str] = []

    def table(model: type[BaseModel], title: str) -> None:
        rows = []
        nested = []
        for name, info in model.model_fields.items():
            kind = info.annotation
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                nested.append((name, kind))
                continue
            if info.is_required():
                default = "required"
            else:
                default = f"`{info.get_default(call_default_factory=True)!r}`"
            type_name = getattr(kind, "__name__", None) or str(kind).replace("typing.", "")
            if get_origin(kind) is Literal:
                type_name = " or ".join(f"`{choice}`" for choice in get_args(kind))
            if name == "voice":
                type_name, default = "tables `[voice.LANG]`", "`it`, `en`"
            if name == "satellite":
                type_name, default = "tables `[satellite.NAME]`", "none"
            if name == "mcp":
                type_name, default = "tables `[mcp.NAME]`", "none"
            doc = " ".join((info.description or "").split())
            rows.append(f"| `{name}` | {type_name} | {default} | {doc} |")
        if rows:
            out.extend(
                [f"### {title}\n", "| key | type | default | meaning |", "|---|---|---|---|"]
            )
            out.extend(rows)
            out.append("")
        for name, kind in nested:
            table(kind, f"[{name}]")

    table(Config, "Top level")
    table(VoiceConfig, "[voice.LANG]")
    table(SatelliteConfig, "[satellite.NAME]")
    table(McpConfig, "[mcp.NAME]")
    return "\n".join(out).rstrip() + "\n"


def render(text: str, parts: dict[str, str], doc: Path) -> str:
    for name, body in parts.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- end:{name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise SystemExit(f"{doc}: marker <!-- generated:{name} --> missing")
        text = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(2), text)
    return text


SYSTEMD_DIR = ROOT / "deploy" / "systemd"
SYSTEMD_ROOT = "%h/desktop-assistant"
"""Where deploy/systemd's reference units expect the clone (``desktop-assistant
systemd install`` writes units for wherever the checkout really is)."""


def sync_systemd(check: bool) -> int:
    sys.path.insert(0, str(ROOT))
    from desktop_assistant.systemd import render_units

    units = render_units(ROOT / "Procfile", SYSTEMD_ROOT, f"{SYSTEMD_ROOT}/.venv/bin/python")
    present = {p.name for p in SYSTEMD_DIR.glob("desktop-assistant*")}
    stale = present != set(units) or any(
        (SYSTEMD_DIR / name).read_text() != text for name, text in units.items()
    )
    if stale and check:
        print(f"{SYSTEMD_DIR} is stale: run python docs/source/render.py", file=sys.stderr)
        return 1
    if stale:
        for name in present - set(units):
            (SYSTEMD_DIR / name).unlink()
        for name, text in units.items():
            (SYSTEMD_DIR / name).write_text(text)
    return 0


def main(argv: list[str]) -> int:
    stale = sync_systemd("--check" in argv)
    docs = {
        BUS_DOC: {"topics": render_topics(), "diagram": render_diagram()},
        CONFIG_DOC: {"keys": render_config()},
    }
    for doc, parts in docs.items():
        current = doc.read_text()
        fresh = render(current, parts, doc)
        if fresh == current:
            continue
        if "--check" in argv:
            print(f"{doc} is stale: run python docs/source/render.py", file=sys.stderr)
            stale = 1
        else:
            doc.write_text(fresh)
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
