"""``RemoteChat``: ask the brain over HTTP, retrying once with the same request_id.

Copy this file into your voice UI. The brain de-duplicates by ``request_id``,
so the retry after a lost response returns the same answer without running
the language model or any tool again.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import httpx

ATTEMPTS = 2
"""The first try and one retry."""


class RemoteChat:
    def __init__(
        self,
        brain_url: str,
        session_id: str,
        token: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.brain_url = brain_url.rstrip("/")
        self.session_id = session_id
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(30.0, connect=5.0), headers=headers, transport=transport
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteChat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def health(self) -> None:
        """Raise ``httpx.HTTPStatusError`` unless the brain, its dialogue and its tools are up."""
        self._client.get(f"{self.brain_url}/health/ready").raise_for_status()

    def ask(self, text: str, client_type: str = "voice") -> tuple[str, list[dict[str, Any]]]:
        """``(conversation, control)``; raises the last ``httpx.HTTPError`` after the retry."""
        payload = {
            "session_id": self.session_id,
            "request_id": str(uuid4()),
            "text": text,
            "client_type": client_type,
        }
        last_error: httpx.HTTPError | None = None
        for _attempt in range(ATTEMPTS):
            try:
                response = self._client.post(f"{self.brain_url}/ask", json=payload)
                response.raise_for_status()
                data = response.json()
                return data["conversation"], data.get("control", [])
            except httpx.HTTPError as error:
                last_error = error
        assert last_error is not None
        raise last_error  # the caller (the voice UI) decides what a failure sounds like

    def clear_history(self) -> None:
        response = self._client.post(
            f"{self.brain_url}/clear_history", json={"session_id": self.session_id}
        )
        response.raise_for_status()
