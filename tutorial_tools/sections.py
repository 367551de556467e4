"""Named sections, the one place that reads their syntax.

A module marks a section with two comment lines, and a page includes it with one line
(pymdownx.snippets' syntax):

    # --8<-- [start:padding]          in tutorial_code/masks.py
    ...
    # --8<-- [end:padding]

    --8<-- "tutorial_code/masks.py:padding"          in docs/masks.md
"""

from __future__ import annotations

import re
from typing import NamedTuple

MARKER = re.compile(r"^[ \t]*# --8<-- \[(?P<kind>start|end):(?P<name>[\w-]+)\][ \t]*$")
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"[ \t]*$')


class Include(NamedTuple):
    """One include line of a page: the file, and the section (None: the whole file)."""

    path: str
    section: str | None


def marker(line: str) -> tuple[str, str] | None:
    """`("start" or "end", name)` when `line` is a section marker, else None."""
    match = MARKER.match(line)
    return (match["kind"], match["name"]) if match else None


def include(line: str) -> Include | None:
    """The include on `line`, or None when the line is not an include."""
    match = INCLUDE.match(line)
    return Include(match["path"], match["section"]) if match else None


def includes(text: str) -> list[Include]:
    """Every include line of a page, in order."""
    return [found for found in map(include, text.splitlines()) if found]


def section_lines(source: str, name: str) -> range | None:
    """The 0-based line numbers between the markers of section `name` (markers excluded), or None."""
    lines = source.splitlines()
    start = end = None
    for number, line in enumerate(lines):
        found = marker(line)
        if found == ("start", name) and start is None:
            start = number + 1
        elif found == ("end", name) and start is not None:
            end = number
            break
    return None if start is None or end is None else range(start, end)


def section_text(source: str, name: str) -> str | None:
    """The text of section `name` in `source`, nested markers dropped; None when there is no such section."""
    found = section_lines(source, name)
    if found is None:
        return None
    lines = source.splitlines()
    return "\n".join(lines[i] for i in found if not marker(lines[i]))


def without_markers(source: str) -> str:
    """`source` with every section marker line dropped."""
    return "\n".join(line for line in source.splitlines() if not marker(line))
