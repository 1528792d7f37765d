"""Benchmark: one-way latency and throughput through the broker.

Compares, for a 200-byte control message, a 32 ms PCM16 16 kHz chunk
(1 KB) and a 5 s utterance (160 KB), over ipc and tcp on 127.0.0.1:
- ``project``: the project's own client (``bus.client.Bus``: msgpack
  envelope, registry decode, asyncio on uvloop, as the services run it)
  through the project's broker;
- ``pyzmq``: plain PUB/SUB sockets through a raw XSUB/XPUB ``zmq.proxy``
  (the floor for anything built on ZeroMQ);
- ``codec`` (ipc only): the project's messages (frozen dataclass, msgpack
  envelope, registry decode) on plain blocking pyzmq sockets through the raw
  proxy: ``pyzmq`` plus the contract, without asyncio, so that the
  ``project`` row's cost splits into the contract's and the event loop's;
- ``mosquitto``: paho-mqtt through Mosquitto (started here on 127.0.0.1
  only), the broker of Rhasspy's Hermes protocol.

Sender and receiver are separate processes. Every message carries its send
time (``time.time_ns``, one clock on one machine): stamp 1 = warm-up, sent
until the receiver has one; then ``count`` stamped messages paced 1 ms
apart (latency, queues empty); then a burst with stamp 0 (throughput,
first to last message received; PUB drops past its high-water mark, so
losses are counted, not waited for); then stamp 2 until the receiver has it.

    python -m bench.bus [--count 2000] [--burst 20000] [--payload control] [--rounds 1] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PAYLOADS = {"control 200 B": 200, "audio 1 KB": 1024, "utterance 160 KB": 160_000}
WARMUP, BURST, DONE = 1, 0, 2

Send = Callable[[int, bytes], None]
Recv = Callable[[], int]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- transports: each gives a sender and a receiver, both blocking ----------------


def project_pair(pub: str, sub: str, role: str) -> tuple[Any, Any]:
    import asyncio

    from bus import eventloop
    from bus.client import Bus
    from bus.endpoints import Endpoints
    from bus.messages import Utterance

    loop = eventloop.new_loop()  # the services' loop
    asyncio.set_event_loop(loop)

    async def connect() -> Bus:
        bus = Bus(Endpoints(pub, sub), f"bench-{role}")
        if role == "rx":
            bus.subscribe("audio.utterance")
        await bus.wait_connected()
        return bus

    bus = loop.run_until_complete(connect())

    def send(stamp: int, payload: bytes) -> None:
        bus.publish(Utterance(pcm=payload, rate=16000, duration=0.0, speech_end=float(stamp)))

    async def recv() -> int:
        msg = await bus.recv()  # as the services wait (the parent gives up after 300 s)
        assert isinstance(msg, Utterance)
        return int(msg.speech_end)

    return send, recv


def pyzmq_pair(pub: str, sub: str, role: str) -> tuple[Any, Any]:
    import zmq

    ctx = zmq.Context()
    if role == "tx":
        sock = ctx.socket(zmq.PUB)
        sock.setsockopt(zmq.SNDHWM, 100_000)
        sock.connect(pub)
    else:
        sock = ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.RCVHWM, 100_000)
        sock.connect(sub)
        sock.setsockopt(zmq.SUBSCRIBE, b"t")

    def send(stamp: int, payload: bytes) -> None:
        sock.send_multipart([b"t", stamp.to_bytes(8, "little") + payload])

    def recv() -> int:
        return int.from_bytes(sock.recv_multipart()[1][:8], "little")

    return send, recv


def codec_pair(pub: str, sub: str, role: str) -> tuple[Any, Any]:
    import zmq

    import bus.messages  # noqa: F401  (fills the registry)
    from bus.messages import Utterance
    from bus.registry import decode, encode

    ctx = zmq.Context()
    if role == "tx":
        sock = ctx.socket(zmq.PUB)
        sock.setsockopt(zmq.SNDHWM, 10_000)  # as bus.client.Bus
        sock.connect(pub)
    else:
        sock = ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.RCVHWM, 10_000)
        sock.connect(sub)
        sock.setsockopt(zmq.SUBSCRIBE, Utterance.TOPIC.encode())

    def send(stamp: int, payload: bytes) -> None:
        msg = Utterance(pcm=payload, rate=16000, duration=0.0, speech_end=float(stamp))
        with contextlib.suppress(zmq.Again):  # dropped past the high-water mark, as Bus does
            sock.send_multipart(encode(msg, "bench-tx"), flags=zmq.NOBLOCK)

    def recv() -> int:
        msg = decode(sock.recv_multipart())
        assert isinstance(msg, Utterance)
        return int(msg.speech_end)

    return send, recv


def mqtt_pair(port: int, role: str) -> tuple[Any, Any]:
    import queue

    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    inbox: queue.SimpleQueue[int] = queue.SimpleQueue()
    subscribed = queue.SimpleQueue[bool]()
    client.on_message = lambda c, u, m: inbox.put(int.from_bytes(m.payload[:8], "little"))
    client.on_subscribe = lambda *a: subscribed.put(True)
    client.connect("127.0.0.1", port)
    client.loop_start()
    if role == "rx":
        client.subscribe("t", qos=0)
        subscribed.get(timeout=10)

    def send(stamp: int, payload: bytes) -> None:
        client.publish("t", stamp.to_bytes(8, "little") + payload, qos=0)

    def recv() -> int:
        return inbox.get(timeout=30)

    return send, recv


def make_pair(kind: str, where: dict[str, Any], role: str) -> tuple[Send, Recv]:
    if kind == "mosquitto":
        return mqtt_pair(where["port"], role)
    pair = {"project": project_pair, "codec": codec_pair}.get(kind, pyzmq_pair)
    return pair(where["pub"], where["sub"], role)


# -- the protocol -------------------------------------------------------------------


class Tally:
    """What the receiver counts: latencies of stamped messages, then the burst."""

    def __init__(self) -> None:
        self.lat: list[int] = []
        self.first = self.last = 0.0
        self.burst = 0

    def add(self, stamp: int) -> bool:
        """Count one message; False once the sender says the burst is over."""
        now = time.time_ns()
        if stamp == DONE:
            return False
        if stamp == BURST:
            self.last = time.perf_counter()
            self.first = self.first or self.last
            self.burst += 1
        elif stamp != WARMUP:
            self.lat.append(now - stamp)
        return True

    def result(self) -> tuple[list[int], int, float]:
        return self.lat, self.burst, self.last - self.first


def receiver(kind: str, where: dict[str, Any], seen: Any, out: Any) -> None:
    _, recv = make_pair(kind, where, "rx")
    tally = Tally()
    if kind != "project":
        while recv() != WARMUP:
            pass
        seen.set()
        while tally.add(recv()):
            pass
        out.put(tally.result())
        return

    async def run() -> None:  # the project's client is asyncio: so is its receive loop
        while await recv() != WARMUP:
            pass
        seen.set()
        while tally.add(await recv()):
            pass

    import asyncio

    asyncio.get_event_loop().run_until_complete(run())
    out.put(tally.result())


def sender(
    kind: str, where: dict[str, Any], size: int, count: int, burst: int, seen: Any, done: Any
) -> None:
    send, _ = make_pair(kind, where, "tx")
    payload = bytes(size)
    while not seen.is_set():
        send(WARMUP, payload)
        time.sleep(0.01)
    for _ in range(count):
        send(time.time_ns(), payload)
        time.sleep(0.001)
    for i in range(burst):
        send(BURST, payload)
        if i % 500 == 499:
            time.sleep(0.001)  # let the sender's I/O thread drain: PUB drops past its HWM
    while not done.wait(0.2):  # the end marker, until the receiver has it
        send(DONE, payload)


def percentiles(lat: list[int]) -> dict[str, float]:
    """p50 and p99 in µs of one-way latencies in ns."""
    lat = sorted(lat)
    return {
        "p50_us": round(lat[len(lat) // 2] / 1000, 1),
        "p99_us": round(lat[int(len(lat) * 0.99)] / 1000, 1),
    }


def measure(
    kind: str, where: dict[str, Any], size: int, count: int, burst: int
) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    seen, done, out = ctx.Event(), ctx.Event(), ctx.Queue()
    rx = ctx.Process(target=receiver, args=(kind, where, seen, out))
    tx = ctx.Process(target=sender, args=(kind, where, size, count, burst, seen, done))
    rx.start()
    tx.start()
    lat, got, seconds = out.get(timeout=300)
    done.set()
    tx.join(30)
    rx.join(30)
    return {
        **percentiles(lat),
        "msg_per_s": round(got / seconds) if seconds else 0,
        "lost": burst - got,
    }


# -- brokers ------------------------------------------------------------------------


def raw_proxy(pub: str, sub: str) -> None:
    import zmq

    ctx = zmq.Context()
    xsub, xpub = ctx.socket(zmq.XSUB), ctx.socket(zmq.XPUB)
    for s in (xsub, xpub):
        s.setsockopt(zmq.SNDHWM, 100_000)
        s.setsockopt(zmq.RCVHWM, 100_000)
    xsub.bind(pub)
    xpub.bind(sub)
    zmq.proxy(xsub, xpub)


def project_broker(pub: str, sub: str) -> None:
    from bus.broker import Broker
    from bus.endpoints import Endpoints

    Broker(Endpoints(pub, sub)).start()
    while True:
        time.sleep(3600)


def endpoints(transport: str, folder: Path) -> dict[str, Any]:
    if transport == "ipc":
        return {"pub": f"ipc://{folder}/pub", "sub": f"ipc://{folder}/sub"}
    return {"pub": f"tcp://127.0.0.1:{free_port()}", "sub": f"tcp://127.0.0.1:{free_port()}"}


def run_zmq(kind: str, transport: str, size: int, count: int, burst: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="da-bench-"))
    where = endpoints(transport, folder)
    ctx = mp.get_context("spawn")
    target = project_broker if kind == "project" else raw_proxy
    broker = ctx.Process(target=target, args=(where["pub"], where["sub"]), daemon=True)
    broker.start()
    try:
        return measure(kind, where, size, count, burst)
    finally:
        broker.kill()
        shutil.rmtree(folder, ignore_errors=True)


def run_mosquitto(size: int, count: int, burst: int) -> dict[str, float]:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="da-mqtt-"))
    conf = folder / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n")
    proc = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        return measure("mosquitto", {"port": port}, size, count, burst)
    finally:
        proc.terminate()
        proc.wait(5)
        shutil.rmtree(folder, ignore_errors=True)


CLIENTS = [
    ("project", "ipc"),
    ("pyzmq", "ipc"),
    ("codec", "ipc"),
    ("project", "tcp"),
    ("pyzmq", "tcp"),
    ("mosquitto", "tcp"),
]


def summarize(rows: list[dict[str, Any]]) -> list[str]:
    """Medians over the rounds, and the project's p50 over raw pyzmq's, round by round.

    The ratio is taken within each round (the two ran seconds apart) before
    its median: on a shared machine, the load moves more between runs than
    the clients differ.
    """
    runs: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        runs.setdefault((row["payload"], row["client"], row["transport"]), []).append(row)
    lines = []
    for (payload, client, transport), mine in runs.items():
        p50, p99, rate = (
            statistics.median(r[k] for r in mine) for k in ("p50_us", "p99_us", "msg_per_s")
        )
        line = f"{payload:17} {client:9} {transport:3}  median p50 {p50:7.1f} µs  "
        line += f"p99 {p99:7.1f} µs  {rate:8.0f} msg/s"
        raw = {r["round"]: r["p50_us"] for r in runs.get((payload, "pyzmq", transport), [])}
        ratios = sorted(r["p50_us"] / raw[r["round"]] for r in mine if raw.get(r["round"]))
        if client == "project" and ratios:
            line += f"  p50/pyzmq {statistics.median(ratios):.2f}x"
            line += f" ({ratios[0]:.2f}-{ratios[-1]:.2f})"
        lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="paced messages for latency")
    parser.add_argument("--burst", type=int, default=20000, help="messages in the throughput burst")
    parser.add_argument(
        "--payload",
        action="append",
        choices=[label.split()[0] for label in PAYLOADS],
        help="only this payload (repeatable; default all)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="run every client this many times, interleaved"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for label, size in PAYLOADS.items():
        if args.payload and label.split()[0] not in args.payload:
            continue
        burst = args.burst if size < 100_000 else max(200, args.burst // 50)
        for number in range(args.rounds):
            for kind, transport in CLIENTS:
                if kind == "mosquitto":
                    result = run_mosquitto(size, args.count, burst)
                else:
                    result = run_zmq(kind, transport, size, args.count, burst)
                row = {"payload": label, "client": kind, "transport": transport, **result}
                rows.append({**row, "round": number})
                if not args.json:
                    print(
                        f"{label:17} {kind:9} {transport:3}  p50 {row['p50_us']:8.1f} µs  "
                        f"p99 {row['p99_us']:8.1f} µs  {row['msg_per_s']:>8} msg/s  "
                        f"lost {row['lost']}",
                        flush=True,
                    )
    if args.json:
        print(json.dumps(rows, indent=2))
    elif args.rounds > 1:
        print(f"\nover {args.rounds} rounds:")
        print("\n".join(summarize(rows)))


if __name__ == "__main__":
    main()
