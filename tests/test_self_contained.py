"""Code and docs stand on their own: no pointer to documents that a clone of the repo lacks.

A reader of a clone cannot follow a reference to a design note kept elsewhere, so each
behaviour and its reason is written where it is used. The patterns are written as regular
expressions so that this file does not match itself.
"""

from __future__ import annotations

import re

from tests.helpers.processes import ROOT
from tests.helpers.tracked import tracked_files

OUTSIDE = re.compile(
    r"\.\./shared|CONTRACTS\.md|DESIGN\.md|STYLE\.md|\bseed 0\d\d\b", re.IGNORECASE
)


def references_outside(text: str) -> list[str]:
    """Each line of ``text`` that points outside the repository, with its line number."""
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line)
    ]


def test_the_pattern_finds_each_kind_of_outside_reference() -> None:
    lines = [
        "see .." + "/shared/notes.md",
        "as CONTRACTS" + ".md lists",
        "DESIGN" + ".md",
        "Seed " + "000 keeps them out",
        "the HTTP API of seed " + "003",
    ]
    assert references_outside("\n".join(lines)) == [
        f"{n}: {line}" for n, line in enumerate(lines, 1)
    ]


def test_a_random_seed_is_not_an_outside_reference() -> None:
    assert references_outside("random.seed(7)\nseeded with 0\nseed 42 and seed=000") == []


def test_no_tracked_text_file_points_outside_the_repository() -> None:
    files = tracked_files()
    assert ROOT / "README.md" in files  # the listing works, so an empty result means something
    found = {}
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a picture or other binary file
        if hits := references_outside(text):
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}
