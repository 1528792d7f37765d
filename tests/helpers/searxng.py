"""A local SearXNG: ``GET /search?q=...&format=json`` over real HTTP, with its real refusals.

Like SearXNG's webapp: a format missing from ``search.formats`` is refused
with werkzeug's HTML 403 page, an empty query with format json is a 400
``{"error": "No query"}``, and results carry the fields SearXNG sends.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.helpers.httpdouble import Answer, HttpDouble, json_answer

OUTPUT_FORMATS = ["html", "csv", "json", "rss"]
FORBIDDEN_PAGE = (
    b"<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n"
    b"<p>You don&#39;t have the permission to access the requested resource. It is either "
    b"read-protected or not readable by the server.</p>\n"
)


def result(title: str, content: str, url: str, engine: str = "duckduckgo") -> dict[str, Any]:
    parts = urlsplit(url)
    return {
        "url": url,
        "title": title,
        "content": content,
        "engine": engine,
        "parsed_url": [parts.scheme, parts.netloc, parts.path, "", parts.query, ""],
        "template": "default.html",
        "engines": [engine],
        "positions": [1],
        "score": 1.0,
        "category": "general",
        "publishedDate": None,
        "thumbnail": "",
    }


def default_results(query: str, count: int = 8) -> list[dict[str, Any]]:
    return [
        result(f"Result {i} for {query}", f"Snippet {i} about {query}.", f"https://example.org/{i}")
        for i in range(1, count + 1)
    ]


class FakeSearxng(HttpDouble):
    def __init__(self, formats: tuple[str, ...] = ("html", "json")) -> None:
        self.formats = list(formats)
        self.results: dict[str, list[dict[str, Any]]] = {}
        """Results for a query; any other query gets :func:`default_results`."""
        super().__init__({"/search": self.search})

    def search(self, query: dict[str, str]) -> Answer:
        output = query.get("format", "html")
        if output not in OUTPUT_FORMATS:
            output = "html"
        if output not in self.formats:
            return 403, "text/html; charset=utf-8", FORBIDDEN_PAGE
        text = query.get("q", "")
        if not text:
            if output == "html":
                return 200, "text/html; charset=utf-8", b"<!doctype html><title>SearXNG</title>"
            return json_answer(400, {"error": "No query"})
        found = self.results.get(text, default_results(text))
        return json_answer(
            200,
            {
                "query": text,
                "number_of_results": 0,
                "results": found,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            },
        )
