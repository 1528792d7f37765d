"""``python -m bus``: run the broker."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from bus.broker import Broker
from bus.endpoints import EndpointError
from bus.logs import setup_logging
from bus.process import add_common_arguments, endpoints_of, load_or_exit

log = logging.getLogger("bus.broker")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bus", description="Run the bus broker.")
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    config = load_or_exit(args.config)
    setup_logging(args.log_level, config)
    # Before the broker relays: a client that sees it relay may stop it at once, and a
    # SIGTERM before the handler would end it without closing its sockets.
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    try:
        budget = config.bus.broker_memory_mb * 2**20 or None
        broker = Broker(endpoints_of(config), memory_budget=budget)
        broker.start()
    except EndpointError as exc:
        print(f"broker: {exc}", file=sys.stderr)
        return 1
    from bus.heartbeat_thread import HeartbeatThread
    from bus.liveness import BROKER

    beat = HeartbeatThread(BROKER, broker.endpoints, config.bus.heartbeat)
    beat.start()
    stop.wait()
    log.info("broker: stopping")
    beat.stop()
    broker.stop()
    log.info("broker: stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
