"""``python -m bus.tap``: print every message on the bus (or those under given prefixes)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from bus import eventloop
from bus.client import Bus
from bus.liveness import Liveness
from bus.message import Message
from bus.messages import Heartbeat
from bus.process import add_common_arguments, connect, endpoints_of, load_or_exit
from bus.registry import DecodeError
from bus.trace import TOPICS as TRACE_TOPICS
from bus.trace import trace_turns

ENVELOPE = ("v", "id", "ts", "src", "turn", "site", "reply_to")
CHECK_EVERY = 0.1
"""Seconds between two looks for services whose heartbeats stopped."""


def summarize_bytes(data: bytes, rate: int | None) -> str:
    if rate:
        return f"<{len(data)} bytes, {len(data) / 2 / rate:.2f} s>"
    return f"<{len(data)} bytes>"


def clock_of(ts: float) -> str:
    """``HH:MM:SS.mmm`` of ``ts``; any float is valid on the bus, so one no clock can show
    (NaN, infinite, past the year 9999) is printed as it is rather than killing the tap."""
    try:
        return time.strftime("%H:%M:%S", time.localtime(ts)) + f".{int(ts * 1000) % 1000:03d}"
    except (OverflowError, OSError, ValueError):
        return repr(ts)


def format_line(msg: Message) -> str:
    """``HH:MM:SS.mmm topic src [turn] (answers <id>) key=value ...`` with bytes summarised."""
    clock = clock_of(msg.ts)
    # The end of the id: a process's ids share their first 16 characters, then count.
    turn = f" [{msg.turn[-8:]}]" if msg.turn else ""
    if msg.reply_to:
        turn += f" (answers {msg.reply_to[-8:]})"
    rate = getattr(msg, "rate", None)
    parts = []
    for f in dataclasses.fields(msg):
        if f.name in ENVELOPE:
            continue
        value = getattr(msg, f.name)
        text = summarize_bytes(value, rate) if isinstance(value, bytes) else repr(value)
        parts.append(f"{f.name}={text}")
    return f"{clock} {msg.TOPIC} {msg.src}{turn} {' '.join(parts)}".rstrip()


def to_json(msg: Message) -> dict[str, Any]:
    """Every decoded field, bytes as ``{"bytes": N}``, under ``topic``."""
    return {"topic": msg.TOPIC, **_plain(msg)}


def _plain(value: Any) -> Any:
    """``value`` as ``json.dumps`` takes it. A field may nest what the registry allows
    (a catalog's list of ToolSpec dataclasses, free-form lists and maps): each is walked,
    and bytes at any depth become their size (audio is no use as text)."""
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value  # str, int, float, bool, None


def format_invalid(frames: list[bytes], error: DecodeError, as_json: bool) -> str:
    size = sum(len(f) for f in frames)
    if as_json:
        return json.dumps(
            {"topic": error.topic, "invalid": error.reason, "frames": len(frames), "bytes": size}
        )
    return f"{time.strftime('%H:%M:%S')} INVALID {error.topic} ({error.reason}; {size} bytes)"


class LivenessLines:
    """A line when a service comes up, restarts, or goes down (three heartbeats missed)."""

    def __init__(self, as_json: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.as_json = as_json
        self.liveness = Liveness(clock)
        self.down: set[str] = set()

    def saw(self, beat: Heartbeat) -> list[str]:
        known = self.liveness.last(beat.service)
        restarted = self.liveness.saw(beat)
        if known is None or beat.service in self.down:
            self.down.discard(beat.service)
            return [self._line("up", beat.service, beat.pid, beat.state)]
        if restarted:
            return [self._line("restarted", beat.service, beat.pid, f"was pid {known.pid}")]
        return []

    def check(self) -> list[str]:
        lines = []
        for service in self.liveness.services():
            seen = self.liveness.last(service)
            if service in self.down or seen is None or self.liveness.alive(service):
                continue
            self.down.add(service)
            why = (
                "stopping"
                if seen.state == "stopping"
                else f"no heartbeat for {self.liveness.silent_for(service):.1f} s"
            )
            lines.append(self._line("down", service, seen.pid, why))
        return lines

    def _line(self, event: str, service: str, pid: int, detail: str) -> str:
        now = time.time()
        if self.as_json:
            record = {"liveness": event, "service": service, "pid": pid, "detail": detail}
            return json.dumps({**record, "ts": now})
        clock = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        return f"{clock} LIVENESS {service} {event} (pid {pid}, {detail})"


async def tap(
    bus: Bus, prefixes: list[str], as_json: bool, out: TextIO, count: int | None = None
) -> None:
    """Print every message under ``prefixes`` (``count`` of them, or forever), and a
    liveness line whenever a service comes up, restarts or goes down."""
    wanted = tuple(prefixes or [""])
    bus.subscribe(*wanted, Heartbeat.TOPIC)
    lines = LivenessLines(as_json)
    seen = 0
    while count is None or seen < count:
        msg = await bus.recv(timeout=CHECK_EVERY)
        events = lines.check()
        if isinstance(msg, Heartbeat):
            events += lines.saw(msg)
        for line in events:
            print(line, file=out, flush=True)
        if msg is None or not msg.TOPIC.startswith(wanted):
            continue
        line = json.dumps(to_json(msg), ensure_ascii=False) if as_json else format_line(msg)
        print(line, file=out, flush=True)
        seen += 1


def build_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("prefixes", nargs="*", help="topic prefixes (default: everything)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--turns", action="store_true", help="one line per completed turn with its stage times "
        "(docs/bus.md, Turn stages)"
    )
    return parser


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    config = load_or_exit(args.config)
    as_json = args.json

    def show_invalid(frames: list[bytes], error: DecodeError) -> None:
        print(format_invalid(frames, error, as_json), file=out, flush=True)

    async def main() -> None:
        # Ctrl-C and SIGTERM stop the tap cleanly even when it was started with SIGINT
        # ignored (a background job of a non-interactive shell, nohup): not left to Python.
        task = asyncio.current_task()
        assert task is not None
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
        bus = Bus(endpoints_of(config), "tap", on_invalid=show_invalid)
        try:
            # Subscribed before the probe: once it is back, nothing of a turn can be missed.
            bus.subscribe(*(TRACE_TOPICS if args.turns else args.prefixes or [""]))
            await connect(bus, "tap")
            what = "one line per turn" if args.turns else "every message"
            print(f"tap: listening at {bus.endpoints.sub}: {what}", file=sys.stderr, flush=True)
            if args.turns:
                await trace_turns(bus, as_json, out)
            else:
                await tap(bus, args.prefixes, as_json, out)
        finally:
            await bus.close()

    try:
        eventloop.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bus.tap", description="Print bus traffic.")
    add_common_arguments(parser)
    args = build_parser(parser).parse_args(argv)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
