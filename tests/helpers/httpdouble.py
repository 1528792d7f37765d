"""A real HTTP server on 127.0.0.1 in a thread, for the doubles of outside services."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Answer = tuple[int, str, bytes]
"""HTTP status, content type, body."""
Route = Callable[[dict[str, str]], Answer]


def json_answer(status: int, body: Any) -> Answer:
    return status, "application/json", json.dumps(body).encode()


class HttpDouble:
    """Serves ``routes`` (path → handler of the query) on a free port until :meth:`close`.

    Every request is recorded in :attr:`requests` as ``(path, query)``.
    """

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, dict[str, str]]] = []
        double = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                parts = urlsplit(self.path)
                query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
                double.requests.append((parts.path, query))
                route = double.routes.get(parts.path)
                status, kind, body = route(query) if route else (404, "text/plain", b"no route")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep the test output clean

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

    def __enter__(self) -> HttpDouble:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
