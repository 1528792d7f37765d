"""The audio device: an output stream kept open, reopened with backoff when it fails.

While no device works the queue is drained by a clock at the real rate, so
the service keeps its contract (speaking/spoken, ``--wav-out``) and the mic
is not left deaf; the heartbeat says ``degraded`` and why.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from services.tts.playback import PlaybackQueue

log = logging.getLogger(__name__)

CLOCK_BLOCK = 0.02
"""Seconds drained per tick while there is no device."""
STALL = 2.0
"""A stream whose callback has not run for this long is dead (PortAudio has no unplug event)."""
MAX_BACKOFF = 30.0
OUTPUT_LATENCY = 0.1
"""Seconds of device buffer (``[audio] output_latency``). Shorter underruns while synthesis
keeps both cores busy, and through PulseAudio's ALSA plugin each underrun costs seconds of
stalled playback."""

StateCallback = Callable[[str, str], None]
PlayedCallback = Callable[[bytes, float], None]


class AudioOutput:
    def __init__(
        self, playback: PlaybackQueue, rate: int, device: str, on_state: StateCallback,
        on_played: PlayedCallback | None = None, latency: float = OUTPUT_LATENCY,
    ) -> None:
        self._playback = playback
        self._rate = rate
        self._device = device
        self._latency = latency
        self._on_state = on_state
        self._on_played = on_played
        """Gets a copy of every buffer the device plays, and when (the echo reference)."""
        self._stop = threading.Event()
        self._stream: Any = None
        """The stream playing (None while there is none), and the flushes asked of it."""
        self._flushes: queue.SimpleQueue[Callable[[float], None]] = queue.SimpleQueue()
        self._stream_lock = threading.Lock()
        self._last_callback = 0.0
        self._frames = 0
        self._attempts = 0
        self._thread = threading.Thread(target=self._run, name="audio-output", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def flushed(self, action: Callable[[float], None]) -> None:
        """Empty the device's buffer, run ``action(now)`` while the audio thread is stopped,
        then play on: a barge-in's fade starts at the sample being heard, not after the
        ``latency`` of audio already handed to the sound server (PortAudio's abort drops it;
        the restarted stream is heard again within about 10 ms). Done in the output's own
        thread: an abort can block on a stuck sound server, which must not stop the bus."""
        with self._stream_lock:
            if self._stream is not None:
                self._flushes.put(action)
                return
        action(time.time())  # no stream: nothing is buffered

    # -- the supervisor thread ------------------------------------------------------

    def _run(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            stream, error = self._open()
            if stream is not None:
                if self._flowing():
                    log.info("playing on %s at %d Hz, latency %.3f s",
                             self._device or "the default device", self._rate, stream.latency)
                    self._on_state("ready", "")
                    backoff = 1.0
                    with self._stream_lock:
                        self._stream = stream
                    error = self._watch(stream)
                else:
                    error = "the output device does not ask for audio"
                with self._stream_lock:
                    self._stream = None
                while not self._flushes.empty():  # asked as the stream ended: cut all the same
                    self._flushes.get()(time.time())
                _close_quietly(stream)
                if self._stop.is_set():
                    return
            log.error("no audio output (%s); retrying in %g s", error, backoff)
            self._on_state("degraded", f"no audio output: {error}")
            self._drain_by_clock(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    def _open(self) -> tuple[Any, str]:
        try:
            import sounddevice as sd
        except OSError as exc:  # libportaudio2 is not installed
            return None, f"PortAudio is missing ({exc})"
        self._attempts += 1
        if self._attempts > 1:
            # The device list is frozen when PortAudio starts: restart it to see new devices.
            sd._terminate()
            sd._initialize()
        try:
            stream = sd.RawOutputStream(
                samplerate=self._rate,
                channels=1,
                dtype="int16",
                device=self._device or None,
                latency=self._latency,
                callback=self._callback,
            )
            self._last_callback = time.monotonic()
            self._frames = 0
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            return None, f"{exc}; output devices: {_output_devices(sd)}"
        return stream, ""

    def _flowing(self) -> bool:
        """Wait until the device asks for audio at its real pace, past its first fill.

        Through PulseAudio a new stream takes its first buffer at once, then
        stalls for up to ~2 s: audio queued then would be heard late.
        """
        past_prefill = self._rate * (2 * self._latency + 0.1)
        deadline = time.monotonic() + 10.0
        while self._frames < past_prefill:
            if self._stop.wait(0.02) or time.monotonic() > deadline:
                return self._frames >= past_prefill
        return True

    def _watch(self, stream: Any) -> str:
        while not self._stop.is_set():
            try:
                self._flush(stream, self._flushes.get(timeout=0.5))
                continue
            except queue.Empty:
                pass
            if not stream.active:
                return "the output stream stopped"
            if time.monotonic() - self._last_callback > STALL:
                return f"the output device stalled for {STALL:g} s"
        return ""

    def _flush(self, stream: Any, action: Callable[[float], None]) -> None:
        try:
            stream.abort()
        except Exception as exc:  # the device died: what it holds plays out, if anything
            log.warning("could not empty the device's buffer: %s", exc)
        try:
            action(time.time())
        finally:
            try:
                stream.start()
                self._last_callback = time.monotonic()
            except Exception as exc:  # the watch sees the stopped stream and reopens it
                log.error("restarting the output after a flush failed: %s", exc)

    def _callback(self, outdata: Any, frames: int, times: Any, status: Any) -> None:
        self._last_callback = time.monotonic()
        self._frames += frames
        delay = max(0.0, times.outputBufferDacTime - times.currentTime)
        self._playback.fill(outdata, frames * 2, self._rate, delay)
        if self._on_played is not None:
            self._on_played(bytes(outdata), time.time() + delay)

    def _drain_by_clock(self, seconds: float) -> None:
        block = bytearray(2 * int(self._rate * CLOCK_BLOCK))
        tick = time.monotonic()
        end = tick + seconds
        while tick < end:
            self._playback.fill(block, len(block), self._rate)
            tick += CLOCK_BLOCK
            if self._stop.wait(max(0.0, tick - time.monotonic())):
                return


def _output_devices(sd: Any) -> str:
    try:
        names = [d["name"] for d in sd.query_devices() if d["max_output_channels"] > 0]
    except Exception as exc:  # the listing is only for the message
        return f"(cannot list: {exc})"
    return ", ".join(repr(n) for n in names) or "none"


def _close_quietly(stream: Any) -> None:
    try:
        stream.close(ignore_errors=True)
    except Exception as exc:  # a dead device may fail to close; we reopen anyway
        log.warning("closing the output stream failed: %s", exc)
