"""A double of the model hosts on 127.0.0.1, in the shapes the real ones answer in.

Like Hugging Face, ``/<repo>/resolve/main/<file>`` answers 302 to a CDN-like
path with the file's sha256 in ``X-Linked-Etag``; like GitHub's releases,
``/<owner>/<repo>/releases/download/...`` answers 302 with no hash at all. The
CDN path serves the bytes with ``Content-Length`` and an ``ETag``, and honours
``Range`` (206) when ``If-Range`` still matches. ``corrupt`` serves other bytes
than the hash names; ``drop_once`` sends half a file and closes the connection.
"""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ModelHost:
    def __init__(self, files: dict[str, bytes]) -> None:
        """``files``: URL path (as on the real host) → the file's bytes."""
        self.files = files
        self.corrupt: set[str] = set()
        self.drop_once: set[str] = set()
        self.requests: list[tuple[str, dict[str, str]]] = []
        """(path, headers) of every request, redirects included."""
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                host.requests.append((self.path, dict(self.headers.items())))
                if self.path.startswith("/cdn/"):
                    host._serve(self, self.path.removeprefix("/cdn"))
                elif self.path in host.files:
                    host._redirect(self, self.path)
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def etag(self, path: str) -> str:
        return '"' + hashlib.md5(self.files[path]).hexdigest() + '"'  # noqa: S324 (a CDN's tag)

    def _redirect(self, handler: BaseHTTPRequestHandler, path: str) -> None:
        handler.send_response(302)
        handler.send_header("Location", f"/cdn{path}")
        if "/resolve/" in path:  # Hugging Face names the LFS file's sha256 on its redirect
            digest = hashlib.sha256(self.files[path]).hexdigest()
            handler.send_header("X-Linked-Etag", f'"{digest}"')
            handler.send_header("X-Linked-Size", str(len(self.files[path])))
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _serve(self, handler: BaseHTTPRequestHandler, path: str) -> None:
        body = self.files[path]
        if path in self.corrupt:
            body = bytes(b ^ 0xFF for b in body)
        start = 0
        wanted = handler.headers.get("Range", "")
        if_range = handler.headers.get("If-Range")
        if wanted.startswith("bytes=") and (if_range is None or if_range == self.etag(path)):
            start = int(wanted.removeprefix("bytes=").partition("-")[0])
        handler.send_response(206 if start else 200)
        handler.send_header("ETag", self.etag(path))
        handler.send_header("Accept-Ranges", "bytes")
        handler.send_header("Content-Length", str(len(body) - start))
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        handler.end_headers()
        if path in self.drop_once:
            self.drop_once.discard(path)
            handler.wfile.write(body[start : start + (len(body) - start) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            return
        handler.wfile.write(body[start:])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

    def __enter__(self) -> ModelHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
