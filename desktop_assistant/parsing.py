"""A subcommand parser that takes its options anywhere among its arguments.

Plain argparse fills a subcommand's optional positionals (``tools run [NAME]
[KEY=VALUE...]``, ``volume [ACTION] [VALUE]``) at the first positional word, so
``tools run --config DIR now`` left ``now`` over and was refused. Intermixed
parsing reads the options first and the positionals after, wherever they stand.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class IntermixedParser(argparse.ArgumentParser):
    _intermixing = False
    """True while ``parse_known_intermixed_args`` runs: it calls ``parse_known_args`` itself."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False
