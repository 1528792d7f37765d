"""search.sh against a local SearXNG speaking the real shapes and refusals."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.examples import run_example
from tests.helpers.httpdouble import HttpDouble, closed_port_url
from tests.helpers.searxng import FakeSearxng, default_results, result


@pytest.fixture
def searxng() -> Iterator[FakeSearxng]:
    with FakeSearxng() as server:
        yield server


def search(query: str, url: str) -> Any:
    return run_example("search.sh", query, SEARXNG_URL=url)


def one_line_error(done: Any) -> str:
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return str(lines[0])


def test_top_five_results_as_title_and_snippet(searxng: FakeSearxng) -> None:
    done = search("rome weather", searxng.url)
    assert done.returncode == 0, done.stderr
    expected = [f"{r['title']}: {r['content']}" for r in default_results("rome weather")[:5]]
    assert done.stdout.splitlines() == expected
    assert searxng.requests == [("/search", {"q": "rome weather", "format": "json"})]


def test_the_query_travels_as_one_encoded_value(searxng: FakeSearxng) -> None:
    query = "x; rm -rf ~ & $(id) 'quotes' \"dq\" #hash ?q=1&format=html ünïcode"
    done = search(query, searxng.url + "/")  # a trailing slash on the base URL is fine
    assert done.returncode == 0, done.stderr
    assert searxng.requests == [("/search", {"q": query, "format": "json"})]


def test_odd_results_stay_one_line_each(searxng: FakeSearxng) -> None:
    searxng.results["odd"] = [
        result("  A title\nover two lines ", "", "https://example.org/a"),
        result("Tabs", "snippet\twith\ttabs and\n\nnewlines", "https://example.org/b"),
        result("", "No title", "https://example.org/c"),
    ]
    done = search("odd", searxng.url)
    assert done.stdout.splitlines() == [
        "A title over two lines: https://example.org/a",
        "Tabs: snippet with tabs and newlines",
        "https://example.org/c: No title",
    ]


def test_no_results(searxng: FakeSearxng) -> None:
    searxng.results["nothing here"] = []
    done = search("nothing here", searxng.url)
    assert done.returncode == 0
    assert done.stdout.strip() == "no results for 'nothing here'"


def test_json_output_disabled_is_explained(searxng: FakeSearxng) -> None:
    searxng.formats = ["html"]
    line = one_line_error(search("anything", searxng.url))
    assert (
        "HTTP 403" in line
        and "json" in line
        and "search.formats" in line
        and "settings.yml" in line
    )


def test_empty_query_is_refused_before_asking(searxng: FakeSearxng) -> None:
    assert "query is empty" in one_line_error(search("  \t", searxng.url))
    assert searxng.requests == []


def test_unreachable_and_unset_instance() -> None:
    assert one_line_error(search("x", closed_port_url())).startswith(
        "search: cannot reach SearXNG at"
    )
    assert "SEARXNG_URL is not set" in one_line_error(search("x", ""))


def test_an_answer_that_is_not_results() -> None:
    page = (200, "text/html", b"<!doctype html><title>not searxng</title>")
    with HttpDouble({"/search": lambda query: page}) as other:
        line = one_line_error(search("x", other.url))
    assert "not search results" in line
