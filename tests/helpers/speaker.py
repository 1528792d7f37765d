"""The TTS service (``services.tts``, Kokoro or espeak-ng) run for real, with its own broker."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bus.client import Bus, RequestTimeout
from bus.message import Message, new_id
from bus.messages import (
    ActionRequest,
    Error,
    Heartbeat,
    Speaking,
    SpeakRequest,
    Spoken,
    VolumeRequest,
    VolumeState,
)
from services.tts.playback import PlaybackQueue, Segment
from tests.conftest import ConfigFolder
from tests.helpers.broker import start_broker
from tests.helpers.processes import ROOT, Process
from tests.helpers.soundcard import SoundCard

T = TypeVar("T")

CACHE = ROOT / ".cache"
"""The embedded Kokoro model is assembled here once (gitignored), not in the user's home."""
NO_SOUND_SERVER = "unix:/nonexistent/pulse"


class ServiceExited(Exception):
    def __init__(self, code: int, output: str) -> None:
        super().__init__(f"exited with {code}:\n{output}")
        self.code = code
        self.output = output


class RunningTTS:
    """Broker + TTS process on a private config folder; ``--wav-out`` to :attr:`wav_dir`."""

    def __init__(self, engine: str, card: SoundCard | None, config: str = "") -> None:
        self.engine = engine
        """``kokoro`` or ``espeak`` (``--engine``): set it before a (re)start to swap."""
        self.card = card
        self.root = Path(tempfile.mkdtemp(prefix="da-tts-"))
        self.folder = ConfigFolder(self.root)
        self.folder.write(config)
        self.wav_dir = self.root / "wav"
        self.state_dir = self.root / "state"
        self.logs = self.root / "logs"
        self.logs.mkdir()
        self.broker = start_broker(self.folder.path, self.folder.endpoints, self.logs)
        self.proc: Process | None = None
        self.extra_args: list[str] = []

    def env(self) -> dict[str, str]:
        base = self.card.env() if self.card else dict(os.environ, PULSE_SERVER=NO_SOUND_SERVER)
        base.update(XDG_STATE_HOME=str(self.state_dir), XDG_CACHE_HOME=str(CACHE))
        return base

    def start(self, ready: tuple[str, ...] = ("ready",), timeout: float = 60) -> Heartbeat:
        """Start the service and wait for its heartbeat in a ``ready`` state.

        Raises :class:`ServiceExited` as soon as the process ends instead.
        """
        self.proc = proc = Process(
            "services.tts", "--engine", self.engine, *self.folder.args(),
            "--wav-out", str(self.wav_dir), *self.extra_args,
            log_dir=self.logs, env=self.env(),
        )

        async def body(bus: Bus) -> Heartbeat:
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                try:
                    return await bus.wait_for(
                        Heartbeat, lambda h: h.pid == proc.pid and h.state in ready, timeout=0.5
                    )
                except RequestTimeout:
                    if proc.popen.poll() is not None:
                        raise ServiceExited(proc.popen.returncode, proc.output()) from None
                    if asyncio.get_running_loop().time() > deadline:
                        problem = f"tts --engine {self.engine} is not {ready}:\n{proc.output()}"
                        raise AssertionError(problem) from None

        return self.session(body)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()
            self.proc = None

    def close(self) -> None:
        self.stop()
        self.broker.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def output(self) -> str:
        return self.proc.output() if self.proc else ""

    def session(self, body: Callable[[Bus], Awaitable[T]]) -> T:
        """``body(bus)`` with a client that receives everything the speaker sends."""

        async def main() -> T:
            bus = Bus(self.folder.endpoints, "test")
            try:
                bus.subscribe(Speaking.TOPIC, Spoken.TOPIC, VolumeState.TOPIC, Error.TOPIC)
                await bus.wait_connected(timeout=10)
                return await body(bus)
            finally:
                await bus.close()

        return asyncio.run(main())

    def wav(self, turn: str) -> tuple[np.ndarray, int]:
        with wave.open(str(self.wav_dir / f"{turn}.wav"), "rb") as f:
            pcm = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
            return pcm.astype(np.float32) / 32768.0, f.getframerate()


async def turn(
    bus: Bus,
    says: list[str],
    lang: str = "en",
    actions: list[dict[str, Any]] | None = None,
    kind: str = "answer",
    timeout: float = 60,
    others: list[Message] | None = None,
) -> tuple[str, list[Message]]:
    """Send one turn (its ActionRequest first, then its Says) and collect what the speaker sent
    about it until it stopped speaking; messages about other turns go to ``others``."""
    turn_id = new_id()
    if actions is not None:
        bus.publish(ActionRequest(actions=actions, lang=lang, turn=turn_id))
    for seq, text in enumerate(says):
        bus.publish(SpeakRequest(text=text, lang=lang, kind=kind, seq=seq,
                        final=seq == len(says) - 1, turn=turn_id))
    got: list[Message] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await bus.recv(timeout=max(0.0, deadline - loop.time()))
        if msg is None:
            raise AssertionError(f"turn {turn_id} did not finish; got {got}")
        if msg.turn != turn_id:
            if others is not None:
                others.append(msg)
            continue
        got.append(msg)
        if isinstance(msg, Speaking) and not msg.speaking:
            return turn_id, got


async def volume(bus: Bus, action: str, value: float | None = None) -> float:
    request = VolumeRequest(action=action, value=value)
    state = await bus.request(
        request, VolumeState, timeout=10
    )
    return state.volume


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


class Recorded(PlaybackQueue):
    """The playback queue, nothing played: what was queued."""

    def __init__(self) -> None:
        super().__init__()
        self.segments: list[Segment] = []

    def put(self, segment: Segment) -> None:
        self.segments.append(segment)
