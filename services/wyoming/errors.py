"""What the Wyoming server refuses: a client's input answered with an ``error`` event."""

from __future__ import annotations


class ClientError(Exception):
    """Input we refuse: answered with an ``error`` event of this code."""

    def __init__(self, text: str, code: str) -> None:
        super().__init__(text)
        self.code = code
