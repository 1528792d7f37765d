#!/usr/bin/env python3
"""A stand-in for whisper.cpp's ``whisper-server``: the real HTTP protocol, scripted text.

Started exactly like the real binary (``-m MODEL --host H --port P -l LANG``),
it serves ``GET /health`` (503 ``{"status":"loading model"}`` while it
"loads", then 200 ``{"status":"ok"}``) and ``POST /inference`` with
multipart/form-data: a ``file`` part holding a 16 kHz mono PCM16 WAV, and the
parts ``language`` and ``response_format`` (``json``, ``verbose_json``,
``text``). Errors are the real ones: 400 ``{"error":"no 'file' field in the
request"}``, 400 ``{"error":"failed to read audio data"}``, and what the
script asks for. Standard library only, so it runs under any ``python3``.

Controlled through the environment (the tests set it for the process that
starts the server):
- ``WHISPER_STANDIN_SCRIPT``: a JSON file read at start-up and at every
  request: ``{"text": " Hello.\\n", "language": "english", "status": 200,
  "error": "...", "delay": 0.0, "load": 0.0}`` (every key optional; ``load`` is
  the seconds of "loading" at start-up; ``delay`` makes an answer slow; ``raw``: this
  text as a 200 ``application/json`` body, as is (garbage); ``cut``: a 200 whose body
  breaks off after a few bytes, the connection closed).
- ``WHISPER_STANDIN_LOG``: a JSON-lines file; one line per request (method,
  path, status, form fields, the WAV's format) and one at start-up (pid).
"""

from __future__ import annotations

import email.parser
import email.policy
import io
import json
import os
import socket
import sys
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CODES = {"english": "en", "italian": "it", "japanese": "ja", "german": "de", "french": "fr"}


def script() -> dict[str, Any]:
    path = os.environ.get("WHISPER_STANDIN_SCRIPT")
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def record(entry: dict[str, Any]) -> None:
    path = os.environ.get("WHISPER_STANDIN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def parse_args(argv: list[str]) -> dict[str, str]:
    options = {"model": "models/ggml-base.en.bin", "host": "127.0.0.1", "port": "8080"}
    options["language"] = "en"
    names = {"-m": "model", "--model": "model", "--host": "host", "--port": "port",
             "-l": "language", "--language": "language", "-t": "threads", "--threads": "threads",
             "-dev": "device", "--device": "device"}
    i = 0
    while i < len(argv):
        name = names.get(argv[i])
        if name is None:
            print(f"error: unknown argument: {argv[i]}", file=sys.stderr)
            sys.exit(0)  # what whisper-server does
        options[name] = argv[i + 1]
        i += 2
    return options


class Server(ThreadingHTTPServer):
    daemon_threads = True
    ready_at = 0.0
    inference = threading.Lock()  # whisper-server runs one inference at a time


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass

    def answer(self, status: int, body: Any, kind: str = "application/json", **logged: Any) -> None:
        if isinstance(body, bytes):
            data = body
        else:
            data = (json.dumps(body) if kind == "application/json" else str(body)).encode()
        # Logged before answering: whoever got the answer finds the request in the log.
        record({"method": self.command, "path": self.path, "status": status, **logged})
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path != "/health":
            self.answer(404, "File Not Found", "text/plain")
        elif time.time() < self.server.ready_at:
            self.answer(503, {"status": "loading model"})
        else:
            self.answer(200, {"status": "ok"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path != "/inference":
            self.answer(404, "File Not Found", "text/plain")
            return
        if time.time() < self.server.ready_at:
            self.answer(503, {"status": "loading model"})
            return
        fields, upload = self.form(body)
        with self.server.inference:
            self.infer(fields, upload)

    def form(self, body: bytes) -> tuple[dict[str, str], bytes | None]:
        head = f"Content-Type: {self.headers.get('Content-Type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        fields: dict[str, str] = {}
        upload = None
        if message.is_multipart():
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                payload = part.get_payload(decode=True) or b""
                if name == "file":
                    upload = payload
                elif isinstance(name, str):
                    fields[name] = payload.decode(errors="replace")
        return fields, upload

    def infer(self, fields: dict[str, str], upload: bytes | None) -> None:
        if upload is None:
            self.answer(400, {"error": "no 'file' field in the request"}, fields=fields)
            return
        try:
            with wave.open(io.BytesIO(upload)) as wav:
                audio = {"rate": wav.getframerate(), "channels": wav.getnchannels(),
                         "width": wav.getsampwidth(), "frames": wav.getnframes()}
        except (wave.Error, EOFError):
            audio = None
        if audio is None or (audio["rate"], audio["channels"], audio["width"]) != (16000, 1, 2):
            self.answer(400, {"error": "failed to read audio data"}, fields=fields, audio=audio)
            return
        plan = script()
        time.sleep(float(plan.get("delay", 0.0)))
        status = int(plan.get("status", 200))
        if "raw" in plan:
            self.answer(200, str(plan["raw"]).encode(), fields=fields, audio=audio)
            return
        if plan.get("cut"):
            record({"method": self.command, "path": self.path, "status": 200, "cut": True})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"text": " Hel')
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if status != 200:
            self.answer(status, {"error": plan.get("error", "failed to process audio")},
                        fields=fields, audio=audio)
            return
        text = plan.get("text", " Hello.\n")
        language = plan.get("language", "english")
        duration = audio["frames"] / 16000
        fmt = fields.get("response_format", "json")
        if fmt == "text":
            self.answer(200, text, "text/html; charset=utf-8", fields=fields, audio=audio)
        elif fmt == "verbose_json":
            self.answer(200, {
                "task": "transcribe", "language": language, "duration": duration, "text": text,
                "segments": [{"id": 0, "text": text, "start": 0.0, "end": duration,
                              "tokens": [], "words": [], "temperature": 0.0,
                              "avg_logprob": -0.2, "no_speech_prob": 0.01}],
                "detected_language": language, "detected_language_probability": 0.97,
                "language_probabilities": {CODES.get(language, "en"): 0.97},
            }, fields=fields, audio=audio)
        else:
            self.answer(200, {"text": text}, fields=fields, audio=audio)


def main() -> int:
    options = parse_args(sys.argv[1:])
    if not os.path.isfile(options["model"]):
        print("error: failed to initialize whisper context", file=sys.stderr)
        return 3
    server = Server((options["host"], int(options["port"])), Handler)
    server.ready_at = time.time() + float(script().get("load", 0.0))
    record({"started": os.getpid(), "argv": sys.argv[1:]})
    print(f"\nwhisper server listening at http://{options['host']}:{options['port']}\n", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
