"""A small MCP server written with the official SDK, for the tests: one read-only tool,
one destructive, one that hangs, one that crashes the server, one with a huge result.

``python mcp_test_server.py`` serves stdio; ``python mcp_test_server.py --http PORT``
streamable HTTP on 127.0.0.1. ``NOTES`` (the environment) names the file the
destructive tool appends to. Run as a script (the SDK only): the tools service starts
it from its own folder with a small environment.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)
server = MCPServer("notes-test")


@server.tool(description="Look a word up in the notes.", annotations=READ_ONLY)
def lookup(word: str) -> str:
    return f"found {word}"


@server.tool(description="Delete a note.", annotations=ToolAnnotations(read_only_hint=False,
                                                                        destructive_hint=True))
def delete_note(title: str) -> str:
    with open(os.environ["NOTES"], "a") as notes:
        notes.write(f"deleted {title}\n")
    return f"deleted {title}"


@server.tool(description="Touch a file (unannotated).")
def touch() -> str:
    return "touched"


@server.tool(description="Never answers.", annotations=READ_ONLY)
async def hang() -> str:
    await anyio.sleep(3600)
    return "late"


@server.tool(description="Ends the server.", annotations=READ_ONLY)
def crash() -> str:
    os._exit(3)


@server.tool(description="A very long answer.", annotations=READ_ONLY)
def huge() -> str:
    return "x" * 200_000


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        anyio.run(lambda: server.run_streamable_http_async(port=int(sys.argv[2])))
    else:
        anyio.run(server.run_stdio_async)
