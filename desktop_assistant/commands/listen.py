"""``desktop-assistant listen``: open the mic for one question (bind it to a key).

This is push-to-talk in ``[listen] mode = "push"``, and the same as saying the wake
word in ``wake`` mode; only ``always`` mode, where the mic is never closed, ignores it.
``--mode MODE`` instead switches the running mic's mode, until it restarts (as the page's
control does).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bus.client import Bus, RequestTimeout
from bus.messages import Heartbeat, ListenModeRequest, ListenModeState, ListenRequest
from bus.messages.audio import LISTEN_MODES
from bus.process import load_or_exit
from desktop_assistant.commands.busclient import cli_bus
from desktop_assistant.exit_codes import ExitCode
from services.base.names import MIC

MODE_PATIENCE = 2.0
"""Seconds the mic, which has just answered with its heartbeat, may take to say its mode."""


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "listen",
        help='open the mic for one question, as the wake word does ([listen] mode push or wake)',
    )
    parser.add_argument(
        "--mode", choices=LISTEN_MODES,
        help="instead, switch the running mic to this listen mode until it restarts "
             "([listen] mode is the one it starts with)",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.mode:
        return asyncio.run(switch_mode(args.config, args.mode))
    return asyncio.run(listen(args.config))


async def switch_mode(config_dir: str | None, mode: str) -> int:
    """Ask the mic to switch; print the mode it is in (and why not ``mode``, if it is not)."""
    config = load_or_exit(config_dir)
    async with cli_bus(config_dir) as bus:
        patience = 2 * config.bus.heartbeat + 1
        bus.subscribe(ListenModeState.TOPIC)  # before asking: a quick answer is not lost
        await bus.wait_connected(timeout=patience)
        try:
            state = await bus.request(ListenModeRequest(mode=mode), ListenModeState, patience)
        except RequestTimeout:
            print("no mic service is running: start the assistant or `python -m services.mic`",
                  file=sys.stderr)
            return ExitCode.UNAVAILABLE
    if state.error:
        print(f"listen mode: {state.error}", file=sys.stderr)
    print(state.mode)
    return ExitCode.OK if state.mode == mode else ExitCode.FAILED


async def listen(config_dir: str | None) -> int:
    config = load_or_exit(config_dir)
    async with cli_bus(config_dir) as bus:
        # Publish first: the user is about to speak. Then check that a mic heard it.
        patience = 2 * config.bus.heartbeat + 1
        mic = asyncio.ensure_future(
            bus.wait_for(Heartbeat, lambda h: h.service == MIC, timeout=patience)
        )
        bus.subscribe(ListenModeState.TOPIC)  # which mode it is in: see below
        try:
            # The heartbeat subscription must reach the broker before the request: the mic
            # answers it with a heartbeat at once, which would otherwise be missed.
            await bus.wait_connected(timeout=patience)
            bus.publish(ListenRequest())
            beat = await mic
        except RequestTimeout:
            mic.cancel()
            print("no mic service is running: start the assistant or `python -m services.mic`",
                  file=sys.stderr)
            return ExitCode.UNAVAILABLE
        mode = await running_mode(bus, config.listen.mode)
    if mode == "always":
        print('the mic is always listening; set [listen] mode = "wake" or "push" to open it'
              " on request", file=sys.stderr)
    elif beat.state != "ready":
        print(f"the mic is {beat.state}: {beat.detail}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


async def running_mode(bus: Bus, configured: str) -> str:
    """The mode the mic is in: the page or ``--mode`` may have switched it since it started
    in the ``configured`` one (which a mic too old to answer is taken to be in)."""
    try:
        state = await bus.request(ListenModeRequest(), ListenModeState, MODE_PATIENCE)
    except RequestTimeout:
        return configured
    return state.mode
