"""Read the pages the way pymdownx.snippets does, so tests can run what a page shows."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*\{?\s*\.?(?P<lang>[\w-]*)(?P<options>[^\n]*)$")
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"\s*$')


@dataclass
class Block:
    page: Path
    lang: str
    options: str
    body: list[str]

    @property
    def executed(self) -> bool:
        """A `python run` fence: the build shows what its chapter sections printed."""
        return bool(re.match(r"\s*run\b", self.options))

    @property
    def shown(self) -> bool:
        """Whether a reader sees the code (`run="markdown"` shows only the output)."""
        return 'run="markdown"' not in self.options

    def typed_lines(self) -> list[str]:
        return [line for line in self.body if line.strip() and not INCLUDE.match(line)]

    def code(self) -> str:
        parts = []
        for line in self.body:
            match = INCLUDE.match(line)
            if match:
                parts.append(section(match["path"], match["section"]))
        return "\n".join(parts)


def pages() -> list[Path]:
    """The English pages; each Chinese edition (`*.zh.md`) holds the same blocks (tests/unit/test_translations.py)."""
    return sorted(page for page in DOCS.rglob("*.md") if not page.name.endswith(".zh.md"))


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        i += 1
        if not match:
            continue
        body = []
        while i < len(lines) and not lines[i].strip().startswith(match["fence"]):
            body.append(lines[i])
            i += 1
        i += 1
        found.append(Block(page, match["lang"], match["options"], body))
    return found


def section(path: str, name: str | None) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    if name is None:
        return text
    match = re.search(
        rf"^[ \t]*# --8<-- \[start:{re.escape(name)}\][^\n]*\n(?P<body>.*?)^[ \t]*# --8<-- \[end:{re.escape(name)}\]",
        text,
        flags=re.S | re.M,
    )
    if not match:
        raise LookupError(f"section {name!r} not found in {path}")
    return textwrap.dedent(match["body"])


def python_blocks(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.lang in ("python", "py", "pycon")]
