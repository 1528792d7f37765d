"""Spoken questions through the real virtual sound card, answered aloud into the same card.

The question is Kokoro speech played into the sink; the mic records the sink's
monitor, so it also hears every answer the assistant plays there. What the sink
played is recorded separately and transcribed with Whisper.
"""

from __future__ import annotations

import asyncio
import calendar

from bus.messages import (
    ActionRequest,
    Reply,
    Speaking,
    SpeakRequest,
    Spoken,
    ToolRequest,
    ToolResult,
    Transcript,
    VolumeRequest,
    VolumeState,
)
from services.tts.pcm import TONE_HZ, TONE_LEVEL, TONE_SECONDS
from tests.helpers import llm_chunks as c
from tests.helpers.assistant import Recorder
from tests.helpers.hearing import loud_regions, loud_span, says_time, tone_peak, transcribe
from tests.helpers.speech import read_wav
from tests.helpers.words import words
from tests.system.e2e.world import World, first_after_a_pause, script_tool_turn, voice_turn

MONTHS = {name.lower() for name in calendar.month_name if name}


def test_what_time_is_it_is_answered_aloud_with_the_time_from_date(world: World) -> None:
    assistant = world.assistant
    script_tool_turn(world, "now", "It is {}.")

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            turn = await voice_turn(assistant, rec, "What time is it?")
            mine = turn.messages(rec.seen)

            # One question, one turn: the answer played into the card was not heard as another.
            assert [t.text for t in rec.of(Transcript)] == [turn.transcript.text]
            assert words(turn.transcript.text) == ["what", "time", "is", "it"]
            assert len({m.turn for m in rec.of(Reply)}) == 1

            (call,) = [m for m in mine if isinstance(m, ToolRequest)]
            (result,) = [m for m in mine if isinstance(m, ToolResult)]
            assert (call.name, result.name, result.ok) == ("now", "now", True)
            assert says_time(result.content, turn.asked, turn.answered), result.content

            # The model was given the real result, and its answer carries it.
            second = assistant.llm.requests[1]["messages"]
            assert {"role": "tool", "content": result.content}.items() <= second[-1].items()
            assert turn.reply.text == f"It is {result.content}."
            spoken = " ".join(m.text for m in mine if isinstance(m, Spoken))
            assert result.content in spoken

            # And it was played: Whisper hears the question and the time in the sink (each on
            # its own: on the whole recording it once wrote the date and not the time after).
            question, answer = turn.question_and_answer()
            assert "what time is it" in " ".join(words(transcribe(question)))
            heard = words(transcribe(answer))
            (month,) = [m for m in words(result.content) if m in MONTHS]
            assert {"it", "is", month} <= set(heard), heard
            # All of the answer was played, the time at its end too: the sink sounded at least
            # as long as the audio the speaker wrote for the turn (longer where speech waited
            # to be synthesized, after the tone). (Whisper tiny.en is no judge of
            # Kokoro's numbers: it has written "12:25" as "12 or 25", "22:08" as "2020", and
            # once left the time out; the numbers are checked in the text above.)
            sent, rate = read_wav(assistant.wav_out / f"{turn.turn}.wav")
            regions = loud_regions(answer)
            played = regions[-1][1] - regions[0][0]
            assert played > loud_span(sent, rate) - 0.1, (played, regions)

    asyncio.run(scenario())


def test_louder_by_voice_reaches_the_speaker_before_the_answer_is_played(world: World) -> None:
    assistant = world.assistant
    llm = assistant.llm
    llm.script(c.tool_calls([c.call("adjust_volume", direction="up")]), c.text("Okay, louder."))

    async def scenario() -> None:
        async with Recorder(assistant) as rec:
            start = VolumeRequest(action="set", value=0.5)
            state = await rec.bus.request(
                start, VolumeState, 10
            )
            assert state.volume == 0.5
            try:
                turn = await voice_turn(assistant, rec, "Turn the volume up, please.")
            finally:
                reset = VolumeRequest(action="set", value=1.0)
                await rec.bus.request(
                    reset, VolumeState, 10
                )
            mine = turn.messages(rec.seen)
            assert len(rec.of(Transcript)) == 1

            # The model was offered the volume tool and used it.
            offered = {t["function"]["name"] for t in llm.requests[0]["tools"]}
            assert "adjust_volume" in offered
            assert turn.reply.control == [{"type": "adjust_volume", "direction": "up"}]

            # On the bus: the control, then the speaker's new volume, then the answer's audio.
            kinds_of_order = ActionRequest | VolumeState | SpeakRequest | Speaking
            order = [m for m in mine if isinstance(m, kinds_of_order)]
            kinds = [type(m).__name__ for m in order]
            control = kinds.index("ActionRequest")
            volume = kinds.index("VolumeState")
            first_say = next(
                i for i, m in enumerate(order) if isinstance(m, SpeakRequest) and m.text
            )
            first_audio = next(
                i for i, m in enumerate(order) if isinstance(m, Speaking) and m.speaking
            )
            assert control < volume < first_audio and control < first_say, kinds
            new_state = order[volume]
            assert isinstance(new_state, VolumeState)
            assert abs(new_state.volume - 0.6) < 1e-6
            assert new_state.ts <= order[first_audio].ts

            # And the answer sounds louder: its acknowledgement tone, a fixed 880 Hz blip,
            # comes out of the card at 0.6 of its level, not at the 0.5 set before. The
            # tone is the answer's first sound; speech may follow it at once or after a
            # pause (whether it is ready by then depends on the machine's speed).
            regions = loud_regions(turn.heard)
            tone_start, _ = first_after_a_pause(regions)
            level = tone_peak(turn.heard, tone_start, TONE_SECONDS, TONE_HZ) / TONE_LEVEL
            assert abs(level - 0.6) < 0.03, (level, regions)

    asyncio.run(scenario())
