"""The part of the config the dialogue service reads, taken once at the start.

The service and its turns see these fields and nothing else of ``Config``, so a
test builds them directly and a new config key cannot be read here unnoticed.
"""

from __future__ import annotations

from dataclasses import dataclass

from settings import Config


@dataclass(frozen=True)
class TurnSettings:
    system: str
    """The system prompt, first in every request to the model."""
    tool_rounds: int
    """Rounds of tool calls a turn may make; the round after the last is offered no tools."""


@dataclass(frozen=True)
class DialogueSettings:
    llm: str
    """The model server's OpenAI-compatible base URL."""
    model: str
    """The model to ask for; empty: the first one the server lists."""
    api_key: str
    """``[dialogue] api_key`` as written: the key, ``env:NAME``, or empty for none."""
    timeout: float
    """Seconds an LLM request may take."""
    history: int
    """Messages of a session kept for the next turn."""
    lang: str
    """The language of a turn whose message names none."""
    speculative: bool
    """Whether an answer starts from the STT's guess before the final transcript."""
    longest_utterance: float
    """Seconds an utterance may last and the silence that closes it take at most: a guess
    is confirmed by its final transcript within that (and a margin), or never."""
    turn: TurnSettings
    intents: str = "prefer"
    """``prefer``, ``only`` or ``off``: common requests answered without the LLM."""
    langs: tuple[str, ...] = ("en",)
    """The languages the config has voices for: those whose sentence templates load."""


def dialogue_settings(config: Config) -> DialogueSettings:
    return DialogueSettings(
        llm=config.llm,
        model=config.dialogue.model,
        api_key=config.dialogue.api_key,
        timeout=config.dialogue.timeout,
        history=config.dialogue.history,
        lang=config.dialogue.lang,
        speculative=config.dialogue.speculative,
        longest_utterance=config.vad.max_utterance + config.vad.silence,
        turn=TurnSettings(system=config.system, tool_rounds=config.tool_rounds),
        intents=config.intents.mode,
        langs=tuple(
            sorted({n.split("-")[0].lower() for n in [*config.voice, config.dialogue.lang]})
        ),
    )
