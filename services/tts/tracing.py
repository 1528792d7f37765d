"""When a turn is first heard: trace marks stamped with the time the audio reaches the device."""

from __future__ import annotations

from bus.client import Bus
from bus.messages import TraceMark
from services.tts.playback import PlaybackEvent
from services.tts.synthesis import Line
from services.tts.turns import TurnState


def trace_start(bus: Bus, state: TurnState, line: Line, event: PlaybackEvent) -> None:
    """A segment of ``line`` starts playing: stamp the turn's first sound (``first_sound``,
    the tone or speech) and its first piece of each kind (``first_answer``...), with ``ts``
    PortAudio's estimate of when it reaches the device, and when and how fast that piece was
    synthesized (``synth_answer``..., ``detail`` = seconds). Only turns that have an id."""
    if not state.traced:
        return
    if not state.sounded:
        state.sounded = True
        bus.publish(TraceMark(stage="first_sound", ts=event.time, turn=line.turn))
    if line.spoken and line.kind not in state.first_kinds:
        state.first_kinds.add(line.kind)
        segment = event.segment
        bus.publish(TraceMark(stage=f"synth_{line.kind}", detail=f"{segment.compute:.3f}",
                              ts=segment.made, turn=line.turn))
        bus.publish(TraceMark(stage=f"first_{line.kind}", ts=event.time, turn=line.turn))
