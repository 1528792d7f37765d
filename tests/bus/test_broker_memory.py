"""A subscriber that never reads costs the broker bounded memory, and the others are served.

ZeroMQ bounds its queues in messages, not bytes: at 100,000 messages per peer, a
subscriber that never read made the broker hold 1.27 GB. Here a real broker with a
64 MB budget relays 200 MB of utterances (12.7 KB each) to such a subscriber and to
one that reads.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import zmq

from bus.client import Bus
from bus.messages import ListenRequest, Utterance
from bus.registry import decode
from tests.conftest import ConfigFolder
from tests.helpers.broker import running_broker

MB = 1024 * 1024
BATCH = 500
BUDGET_MB = 64


def status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for pid {pid}")


def never_reading_subscriber(ctx: zmq.Context, endpoint: str) -> zmq.Socket:
    sock = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.RCVHWM, 1)  # its own queue holds nothing: the broker's would
    sock.setsockopt(zmq.RCVBUF, 4096)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SUBSCRIBE, Utterance.TOPIC.encode())
    sock.connect(endpoint)
    return sock


class Reader(threading.Thread):
    """A subscriber that keeps up: a thread that only receives, with the Bus's queue size.

    It keeps frames and decodes them at the end: decoding 12.7 KB utterances in Python
    while the same process floods would make it a slow subscriber too.
    """

    def __init__(self, ctx: zmq.Context, endpoint: str) -> None:
        super().__init__(daemon=True)
        self.sock = ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.RCVHWM, 10_000)
        self.sock.setsockopt(zmq.LINGER, 0)
        for topic in (Utterance.TOPIC, ListenRequest.TOPIC):
            self.sock.setsockopt(zmq.SUBSCRIBE, topic.encode())
        self.sock.connect(endpoint)
        self.frames: list[list[bytes | memoryview]] = []
        self.markers: set[str] = set()
        self.marked = threading.Condition()
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            if not self.sock.poll(100):
                continue
            frames = self.sock.recv_multipart()
            if frames[0].startswith(ListenRequest.TOPIC.encode()):
                with self.marked:
                    self.markers.add(decode(frames).id)
                    self.marked.notify_all()
            else:
                self.frames.append(frames)

    def has_seen(self, marker_id: str, timeout: float) -> bool:
        with self.marked:
            return self.marked.wait_for(lambda: marker_id in self.markers, timeout)

    def ids(self) -> set[str]:
        return {decode(frames).id for frames in self.frames}


def test_a_subscriber_that_never_reads_costs_the_broker_bounded_memory(
    config_folder: ConfigFolder, log_dir: Path
) -> None:
    toml = config_folder.path / "config.toml"
    budget_line = f"[bus]\nbroker_memory_mb = {BUDGET_MB}\n"
    toml.write_text(toml.read_text().replace("[bus]\n", budget_line, 1))
    ctx = zmq.Context()
    sleeper = never_reading_subscriber(ctx, config_folder.endpoints.sub)
    pcm = bytes(12_700)
    reader = Reader(ctx, config_folder.endpoints.sub)
    sent: list[str] = []

    async def flood(broker_pid: int) -> int:
        async with Bus(config_folder.endpoints, "sender") as sender:
            await sender.wait_connected(timeout=15)
            # The sleeper's subscription is in place once it has received one utterance.
            while not sleeper.poll(50):
                sender.publish(Utterance(pcm=b"", rate=16000, duration=0.0, speech_end=0.0))
            sleeper.recv_multipart()
            while not reader.sock.poll(50):
                sender.publish(Utterance(pcm=b"", rate=16000, duration=0.0, speech_end=0.0))
            reader.start()
            # In batches the reader keeps up with: else the sender's own queue overflows.
            for _ in range(200 * MB // len(pcm) // BATCH):
                for _ in range(BATCH):
                    msg = Utterance(pcm=pcm, rate=16000, duration=0.4, speech_end=0.0)
                    sent.append(msg.id)
                    sender.publish(msg)
                marker = ListenRequest()
                for _ in range(300):
                    sender.publish(marker)
                    if await asyncio.to_thread(reader.has_seen, marker.id, 0.1):
                        break
                else:
                    raise AssertionError("the reader was not served for 30 s")
            return status_bytes(broker_pid, "VmHWM")

    try:
        with running_broker(config_folder.path, config_folder.endpoints, log_dir) as broker:
            peak = asyncio.run(flood(broker.popen.pid))
    finally:
        sleeper.close()
        reader.stop = True
        reader.join(30)
        reader.sock.close()
        ctx.term()
    got = reader.ids()
    lost = [i for i, msg_id in enumerate(sent) if msg_id not in got]
    lost_set = set(lost)
    # Each drop loses what the broker held for the reader then, one run of messages.
    gaps = sum(1 for i in lost if i - 1 not in lost_set)
    drops = log_lines(log_dir, "over its budget of 64 MB")
    assert drops >= 1, "the flood never reached the budget: the test tests nothing"
    assert gaps <= drops, f"the reader lost {len(lost)} messages in {gaps} gaps, {drops} drops"
    assert peak < (BUDGET_MB + 64) * MB, f"the broker peaked at {peak / MB:.0f} MB"


def log_lines(log_dir: Path, text: str) -> int:
    return sum(path.read_text().count(text) for path in log_dir.glob("bus-*.log"))
