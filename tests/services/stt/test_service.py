"""The STT service's loop on a real broker, with a scripted backend in place of Whisper.

What the model hears is not the point here (tests/services/stt/test_embedded.py and
test_server_backend.py run the real ones): these check what the service does with the
backend's answers and failures, fast and on any machine.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bus.client import Bus
from bus.endpoints import Endpoints
from bus.message import Message
from bus.messages import (
    Error,
    SpeakRequest,
    SpeculativeTranscript,
    SpeechResumed,
    Transcript,
    TurnDropped,
    Utterance,
)
from hearing.stt.engine import Recognized, Stop, SttFailed, SttUnavailable, give_up_if
from services.base.phrases import APOLOGIES
from services.base.runner import StartupError
from services.stt.service import SpeechToText, serve, start
from settings.schema import Config
from tests.helpers.busrun import with_buses
from tests.helpers.polling import until

OUT = (Transcript, SpeculativeTranscript, Error, SpeakRequest, TurnDropped)
"""What the service publishes for a turn."""


class ScriptedBackend:
    """Answers each audio with what the test scripted for it; runs wait while ``gate`` is shut."""

    def __init__(self, answers: dict[bytes, Recognized | Exception]) -> None:
        self.answers = answers
        self.heard: list[bytes] = []
        self.usual: list[str | None] = []
        """The language hint each run was given."""
        self.stops: list[Stop | None] = []
        """Each run's stop: set once its text was no longer wanted."""
        self.gate = asyncio.Event()
        self.gate.set()

    async def transcribe(
        self, pcm: bytes, rate: int, usual: str | None = None, stop: Stop | None = None
    ) -> Recognized:
        self.heard.append(pcm)
        self.usual.append(usual)
        self.stops.append(stop)
        await self.gate.wait()
        give_up_if(stop)  # the next step, as the embedded model's
        answer = self.answers[pcm]
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def close(self) -> None:
        pass


def audio(tag: int) -> bytes:
    """A distinct, well-formed second of PCM16 for each ``tag``."""
    return bytes([tag, 0]) * 16000


def utterance(turn: str, pcm: bytes, *, partial: bool = False, rate: int = 16000,
              speech_end: float = 0.0) -> Utterance:
    return Utterance(pcm=pcm, rate=rate, duration=1.0, speech_end=speech_end, partial=partial,
                     turn=turn)


Body = Callable[[SpeechToText, ScriptedBackend, Bus], Awaitable[None]]


def run(
    endpoints: Endpoints,
    answers: dict[bytes, Recognized | Exception],
    body: Body,
    *,
    speculative: bool = True,
    lang: str = "en",
) -> ScriptedBackend:
    """The service on its own bus client, a test client that sees all it publishes, ``body``."""
    backend = ScriptedBackend(answers)

    async def main(stt_bus: Bus, test: Bus) -> None:
        stt = SpeechToText(stt_bus, backend, speculative=speculative, lang=lang)
        stt.subscribe(stt_bus)
        test.subscribe(*(kind.TOPIC for kind in OUT))
        await stt_bus.wait_path(test)
        await test.wait_path(stt_bus)
        serving = asyncio.ensure_future(stt.serve())
        try:
            await body(stt, backend, test)
        finally:
            serving.cancel()
            await stt.close()

    with_buses(endpoints, ["stt", "test"], main)
    return backend


async def next_for(test: Bus, turn: str) -> Message:
    """The next message the service published for ``turn`` (others' turns are skipped)."""
    while True:
        msg = await test.recv(timeout=10)
        assert msg is not None, f"nothing more for turn {turn}"
        if isinstance(msg, OUT) and msg.turn == turn:
            return msg


def test_a_final_utterance_becomes_a_transcript_in_the_language_heard(
    module_broker: Endpoints,
) -> None:
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): Recognized(text=" What time is it? ", lang="en"),
        audio(2): Recognized(text="Che ore sono?", lang=None),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1)))
        first = await next_for(test, "t1")
        assert isinstance(first, Transcript)
        assert (first.text, first.lang) == ("What time is it?", "en")
        test.publish(utterance("t2", audio(2)))
        second = await next_for(test, "t2")
        assert isinstance(second, Transcript)
        assert (second.text, second.lang) == ("Che ore sono?", "it")  # none named: the default

    run(module_broker, answers, body, lang="it")


def test_each_site_hints_the_language_its_user_spoke_last(module_broker: Endpoints) -> None:
    """A word or two tells little of its language: the backend is told what the user there
    spoke last. Only a question's language counts; a Wyoming client's dictation does not."""
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): Recognized("Che ore sono?", "it"),
        audio(2): Recognized("Stop.", "en"),
        audio(3): Recognized("Hello.", "en"),
        audio(4): Recognized("Basta.", "it"),
    }

    def said(turn: str, pcm: bytes, site: str | None = None, purpose: str = "turn") -> Utterance:
        return Utterance(pcm=pcm, rate=16000, duration=1.0, speech_end=0.0, turn=turn,
                         site=site, purpose=purpose)

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        for turn, pcm, site, purpose in [("t1", audio(1), None, "turn"),
                                         ("t2", audio(2), "kitchen", "turn"),
                                         ("t3", audio(3), None, "transcribe"),
                                         ("t4", audio(4), None, "turn"),
                                         ("t5", audio(2), "kitchen", "turn")]:
            test.publish(said(turn, pcm, site, purpose))
            assert isinstance(await next_for(test, turn), Transcript)

    backend = run(module_broker, answers, body)
    assert backend.usual == [None, None, "it", "it", "en"]


def test_a_final_with_the_partials_audio_reuses_its_run(module_broker: Endpoints) -> None:
    answers: dict[bytes, Recognized | Exception] = {audio(1): Recognized("Hello there.", "en")}

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1), partial=True))
        guess = await next_for(test, "t1")
        assert isinstance(guess, SpeculativeTranscript) and guess.text == "Hello there."
        test.publish(utterance("t1", audio(1)))
        final = await next_for(test, "t1")
        assert isinstance(final, Transcript) and final.text == "Hello there."

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1)]  # one run for both


def test_a_final_with_other_audio_than_the_partial_is_transcribed_again(
    module_broker: Endpoints,
) -> None:
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): Recognized("Turn the", "en"),
        audio(2): Recognized("Turn the volume up.", "en"),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1), partial=True))
        assert isinstance(await next_for(test, "t1"), SpeculativeTranscript)
        test.publish(utterance("t1", audio(2)))  # speech went on after the window started
        final = await next_for(test, "t1")
        assert isinstance(final, Transcript) and final.text == "Turn the volume up."

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1), audio(2)]


def test_no_partial_is_transcribed_when_speculation_is_off(module_broker: Endpoints) -> None:
    answers: dict[bytes, Recognized | Exception] = {audio(1): Recognized("Hello.", "en")}

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1), partial=True))
        test.publish(utterance("t1", audio(1)))
        final = await next_for(test, "t1")  # no SpeculativeTranscript before it
        assert isinstance(final, Transcript) and final.text == "Hello."

    backend = run(module_broker, answers, body, speculative=False)
    assert backend.heard == [audio(1)]


def test_a_partial_superseded_while_queued_never_runs(module_broker: Endpoints) -> None:
    answers: dict[bytes, Recognized | Exception] = {
        audio(n): Recognized(f"Turn {n}.", "en") for n in (1, 2, 3)
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        backend.gate.clear()  # the engine is busy with the first turn's guess
        test.publish(utterance("t1", audio(1), partial=True))
        await until(lambda: backend.heard == [audio(1)], "the first guess running")
        test.publish(utterance("t2", audio(2), partial=True))  # waits for the engine
        test.publish(utterance("t3", audio(3), partial=True))  # and supersedes it
        await until(lambda: "t3" in stt.jobs, "the third guess queued")
        backend.gate.set()
        test.publish(utterance("t3", audio(3)))
        guess = await next_for(test, "t3")
        assert isinstance(guess, SpeculativeTranscript | Transcript)
        if isinstance(guess, SpeculativeTranscript):
            guess = await next_for(test, "t3")
        assert isinstance(guess, Transcript) and guess.text == "Turn 3."

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1), audio(3)]


def test_a_running_guess_superseded_by_the_rest_of_its_question_gives_up(
    module_broker: Endpoints,
) -> None:
    """Issue 29: the guess of a pause ran on while the user went on speaking, and the
    whole question's run waited behind it (a cut-off half often goes to the whole window:
    0.6-1.8 s). A newer partial of the turn stops it: no guess of it goes out, and the
    final is the newer partial's run, the only other one."""
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): Recognized("What's the weather like in Rome?", "en"),
        audio(2): Recognized("What's the weather like in Rome tomorrow?", "en"),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        backend.gate.clear()  # the engine is busy with the guess of the pause
        test.publish(utterance("t1", audio(1), partial=True))
        await until(lambda: backend.heard == [audio(1)], "the guess of the pause running")
        test.publish(utterance("t1", audio(2), partial=True))  # speech went on and stopped
        await until(lambda: "t1" in stt.jobs and stt.jobs["t1"].utterance.pcm == audio(2),
                    "the guess of the whole question queued")
        [stale] = backend.stops
        assert stale is not None and stale.is_set(), "the stale guess was not told to stop"
        backend.gate.set()
        test.publish(utterance("t1", audio(2)))
        got = [await next_for(test, "t1"), await next_for(test, "t1")]
        assert [type(m) for m in got] == [SpeculativeTranscript, Transcript]
        assert all(isinstance(m, SpeculativeTranscript | Transcript)
                   and m.text == "What's the weather like in Rome tomorrow?" for m in got)

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1), audio(2)]  # the final reused the whole one's run
    assert backend.stops[1] is not None and not backend.stops[1].is_set()


def test_an_engine_that_cannot_be_reached_is_reported_and_apologised_for(
    module_broker: Endpoints,
) -> None:
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): SttUnavailable("whisper-server is still loading"),
        audio(2): Recognized("Hello.", "en"),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1)))
        error = await next_for(test, "t1")
        assert isinstance(error, Error)
        assert (error.code, error.service) == ("stt-unavailable", "stt")
        assert "still loading" in error.message
        apology = await next_for(test, "t1")
        assert isinstance(apology, SpeakRequest)
        said = APOLOGIES["stt-failed"]["it"]
        assert (apology.kind, apology.final, apology.text) == ("error", True, said)
        assert stt.bus.state == "degraded"
        test.publish(utterance("t2", audio(2)))  # the engine answers again
        assert isinstance(await next_for(test, "t2"), Transcript)
        assert stt.bus.state == "ready"

    run(module_broker, answers, body, lang="it")


def test_an_engine_error_and_bad_audio_fail_the_turn_and_the_service_goes_on(
    module_broker: Endpoints,
) -> None:
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): SttFailed("model file is corrupt"),
        audio(2): Recognized("Hello.", "en"),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1)))
        failed = await next_for(test, "t1")
        assert isinstance(failed, Error) and failed.code == "stt-failed"
        test.publish(utterance("t2", audio(2), rate=8000))
        bad = await next_for(test, "t2")
        assert isinstance(bad, Error) and bad.code == "stt-failed" and "8000" in bad.message
        test.publish(utterance("t3", b"\x01"))
        odd = await next_for(test, "t3")
        assert isinstance(odd, Error) and odd.code == "stt-failed"
        test.publish(utterance("t4", audio(2)))
        assert isinstance(await next_for(test, "t4"), Transcript)
        assert stt.bus.state != "degraded"

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1), audio(2)]  # bad audio never reaches the engine


def test_audio_longer_than_the_mic_ever_sends_is_refused_untranscribed(
    module_broker: Endpoints,
) -> None:
    """200 s from a bus peer held the engine for about 20 s, and the next turn waited."""
    long_audio = audio(3) * 200  # labelled 1 s: the length is read from the audio itself
    answers: dict[bytes, Recognized | Exception] = {audio(2): Recognized("Hello.", "en")}

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        assert stt.max_seconds == 17.0  # [vad] max_utterance's default 15 s, plus the margin
        test.publish(utterance("t1", long_audio))
        refused = await next_for(test, "t1")
        assert isinstance(refused, Error) and refused.code == "stt-failed"
        assert refused.message == (
            "200.0 s of audio is longer than [vad] max_utterance allows "
            "(17 s with the margin); not transcribed"
        )
        spoken = await next_for(test, "t1")
        assert isinstance(spoken, SpeakRequest) and spoken.kind == "error" and spoken.final
        test.publish(utterance("t2", audio(2)))
        assert isinstance(await next_for(test, "t2"), Transcript)

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(2)]


def test_an_utterance_without_words_drops_the_turn(module_broker: Endpoints) -> None:
    answers: dict[bytes, Recognized | Exception] = {audio(1): Recognized("[BLANK_AUDIO]", None)}

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        test.publish(utterance("t1", audio(1)))
        dropped = await next_for(test, "t1")
        assert isinstance(dropped, TurnDropped) and dropped.reason == "no-speech"

    run(module_broker, answers, body)


def test_speech_going_on_after_the_partial_stops_its_guess_at_once(
    module_broker: Endpoints,
) -> None:
    """Issue 29: the guess of a pause ran to its end while the user was already saying the
    rest, and its answer was synthesized meanwhile; the whole question's run, at the next
    pause, then shared the CPU with both (2.4 s instead of 0.4 s). ``SpeechResumed`` stops
    the stale guess when the speech goes on, before any newer partial: nothing of it is
    published. A resumption older than a guess does not touch it."""
    answers: dict[bytes, Recognized | Exception] = {
        audio(1): Recognized("What's the weather like in Rome?", "en"),
        audio(2): Recognized("What's the weather like in Rome tomorrow?", "en"),
    }

    async def body(stt: SpeechToText, backend: ScriptedBackend, test: Bus) -> None:
        backend.gate.clear()  # the guess of the pause is running
        test.publish(utterance("t1", audio(1), partial=True, speech_end=10.0))
        await until(lambda: backend.heard == [audio(1)], "the guess of the pause running")
        test.publish(SpeechResumed(resumed_at=9.0, turn="t1"))  # before that pause: no news
        test.publish(SpeechResumed(resumed_at=10.6, turn="t2"))  # another turn's
        test.publish(SpeechResumed(resumed_at=10.6, turn="t1"))
        [stale] = backend.stops
        await until(lambda: stale is not None and stale.is_set(), "the stale guess stopped")
        assert "t1" not in stt.jobs
        backend.gate.set()
        test.publish(utterance("t1", audio(2), partial=True, speech_end=12.0))
        test.publish(utterance("t1", audio(2), speech_end=12.0))
        got = [await next_for(test, "t1"), await next_for(test, "t1")]
        assert [type(m) for m in got] == [SpeculativeTranscript, Transcript]
        assert all(isinstance(m, SpeculativeTranscript | Transcript)
                   and m.text == "What's the weather like in Rome tomorrow?" for m in got)

    backend = run(module_broker, answers, body)
    assert backend.heard == [audio(1), audio(2)]


def test_a_backend_nobody_registered_stops_the_start_naming_the_known_ones() -> None:
    config = Config.model_validate({"whisper": {"backend": "vosk"}})
    with pytest.raises(StartupError, match="stt: unknown \\[whisper\\] backend 'vosk'; known: "
                                           "auto, server, embedded") as refused:
        start(config, argparse.Namespace())
    assert refused.value.code == 2  # a bad config: a supervisor does not restart it
    assert start(Config.model_validate({"whisper": {"backend": "embedded"}}),
                 argparse.Namespace()) is serve
