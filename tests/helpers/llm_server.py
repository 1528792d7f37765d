"""A scripted OpenAI-compatible chat server on 127.0.0.1: real HTTP/1.1, chunked SSE.

It stands in for llama-server, Ollama and vLLM (``docs/dialogue.md``): each
``POST /v1/chat/completions`` takes the next scripted response and records
the request body. A response is plain JSON, so another process can script it
too (``POST /_script``, ``GET /_requests``, ``POST /_gate/NAME``), and
``python -m tests.helpers.llm_server`` runs one on its own.

Response forms:
- ``{"stream": [item, ...]}``; an item is ``{"data": obj}`` (one SSE event),
  ``{"raw": text}`` (sent as is), ``{"gate": name}`` (hold until the gate is
  released) or ``{"cut": true}`` (drop the connection mid-body);
- ``{"status": code, "body": obj}``: an HTTP error with a JSON body;
- ``{"json": obj}``: a complete non-streamed answer.
The chunk builders are in :mod:`tests.helpers.llm_chunks`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

Response = dict[str, Any]
GATE_TIMEOUT = 30.0
"""A gate nobody releases gives up after this long, so a failed test cannot hang the server."""


class ScriptedLLM:
    """The server, its script and what it received; a context manager that runs it in a thread."""

    def __init__(self, port: int = 0, model: str = "scripted-model") -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.streamed = 0
        """Streamed responses written to the end (a gated one counts once released)."""
        self.responder: Callable[[dict[str, Any]], Response] | None = None
        """Called for a request when the queue is empty (and no ``default`` is set)."""
        self.default: Response | None = None
        self.loading = False
        """While True, every API route answers 503 as llama-server does while loading."""
        self.api_key = ""
        """When set, every API route wants ``Authorization: Bearer`` it and answers 401
        without, as ``vllm --api-key`` does."""
        self.authorizations: list[str] = []
        """The ``Authorization`` header of every API request, as received ('' for none)."""
        self._queue: deque[Response] = deque()
        self._gates: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.llm = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ScriptedLLM:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop as a killed server would: kept-alive connections are closed too."""
        with self._lock:
            for gate in self._gates.values():
                gate.set()
        if self._thread is not None:  # shutdown() waits for serve_forever, which never ran
            self._httpd.shutdown()
            self._thread = None
        self._httpd.server_close()
        for connection in list(self._httpd.connections):
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    # -- scripting ---------------------------------------------------------------

    def script(self, *responses: Response) -> None:
        """Queue responses, one per request, in order."""
        with self._lock:
            self._queue.extend(responses)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.responder = None
            self.default = None
            self.loading = False
            self.api_key = ""
            self.authorizations.clear()
            for gate in self._gates.values():
                gate.set()
            self._gates.clear()

    def gate(self, name: str) -> threading.Event:
        """The event a ``{"gate": name}`` item waits on; ``.set()`` it to let the stream go on."""
        with self._lock:
            return self._gates.setdefault(name, threading.Event())

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Poll until ``count`` chat requests have arrived; return them all."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(self.requests)} of {count} LLM requests arrived")
            time.sleep(0.005)
        return list(self.requests)

    def _next(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self.requests.append(body)
            if self._queue:
                return self._queue.popleft()
            responder, default = self.responder, self.default
        if default is not None:
            return default
        if responder is not None:
            return responder(body)
        return {"status": 500, "body": {"error": {"code": 500, "message": "no scripted response"}}}


class _Server(ThreadingHTTPServer):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.connections: set[socket.socket] = set()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("connection from %s ended abruptly", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)  # type: ignore[attr-defined]

    def finish(self) -> None:
        self.server.connections.discard(self.connection)  # type: ignore[attr-defined]
        super().finish()

    @property
    def llm(self) -> ScriptedLLM:
        return self.server.llm  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib name)
        log.debug(format, *args)

    def _loading(self) -> bool:
        """Answers 503 while loading, or 401 without the key; True when it did."""
        if self.path.startswith("/v1/"):
            given = self.headers.get("Authorization", "")
            self.llm.authorizations.append(given)
            if self.llm.api_key and given != f"Bearer {self.llm.api_key}":
                self._json(401, {"error": "Unauthorized"})  # vLLM's very words
                return True
        if self.llm.loading and not self.path.startswith("/_"):
            error = {"code": 503, "message": "Loading model", "type": "unavailable_error"}
            self._json(503, {"error": error})
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802 (stdlib name)
        if self._loading():
            return
        if self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": self.llm.model, "object": "model"}]})
        elif self.path == "/health":
            self._json(200, {"status": "ok"})
        elif self.path == "/_requests":
            self._json(200, {"requests": self.llm.requests})
        else:
            self._json(404, {"error": {"code": 404, "message": "File Not Found"}})

    def do_POST(self) -> None:  # noqa: N802 (stdlib name)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if len(raw) < length:
            return  # the client went away mid-request (cancelled): there is no request
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._json(400, {"error": {"code": 400, "message": "invalid JSON"}})
            return
        if self._loading():
            return
        if self.path == "/v1/chat/completions":
            self._respond(self.llm._next(body))
        elif self.path == "/_script":
            self.llm.script(*body.get("responses", []))
            if "default" in body:
                self.llm.default = body["default"]
            self._json(200, {"queued": len(body.get("responses", []))})
        elif self.path.startswith("/_gate/"):
            self.llm.gate(self.path.removeprefix("/_gate/")).set()
            self._json(200, {})
        elif self.path == "/_reset":
            self.llm.reset()
            self._json(200, {})
        else:
            self._json(404, {"error": {"code": 404, "message": "File Not Found"}})

    def _respond(self, response: Response) -> None:
        if "stream" in response:
            self._stream(response["stream"])
        elif "json" in response:
            self._json(200, response["json"])
        else:
            self._json(int(response.get("status", 500)), response.get("body", {}))

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, items: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for item in items:
            if "gate" in item:
                if not self.llm.gate(item["gate"]).wait(GATE_TIMEOUT):
                    log.warning("gate %s was never released", item["gate"])
            elif "cut" in item:
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            else:
                text = item["raw"] if "raw" in item else f"data: {json.dumps(item['data'])}\n\n"
                self._chunk(text.encode())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        with self.llm._lock:
            self.llm.streamed += 1

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a scripted OpenAI-compatible chat server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: {'responses': [...], 'default': {...}}")
    args = parser.parse_args()
    server = ScriptedLLM(args.port)
    if args.script:
        with open(args.script) as f:
            script = json.load(f)
        server.script(*script.get("responses", []))
        server.default = script.get("default")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with server:
        print(f"listening {server.url}", flush=True)
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
