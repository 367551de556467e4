"""Read the pages the way pymdownx.snippets does, so tests can run what a page shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

from tutorial_tools import contents, sections, shown_code

DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*\{?\s*\.?(?P<lang>[\w-]*)(?P<options>[^\n]*)$")


@dataclass
class Block:
    page: Path
    lang: str
    options: str
    body: list[str]
    line: int = 0  # the fence's line in the page, counted from 0
    shown_code: str | None = None  # what the page shows (tutorial_tools.shown_code), for a fence of includes

    @property
    def executed(self) -> bool:
        """A `python run` fence: the build shows what its chapter sections printed."""
        return bool(re.match(r"\s*run\b", self.options))

    @property
    def shown(self) -> bool:
        """Whether a reader sees the code (`run="markdown"` shows only the output)."""
        return 'run="markdown"' not in self.options

    def typed_lines(self) -> list[str]:
        return [line for line in self.body if line.strip() and not sections.include(line)]

    def code(self) -> str:
        """The code the page shows: its sections, as tutorial_tools.shown_code puts them on the page."""
        if self.shown_code is not None:
            return self.shown_code
        parts = []
        for line in self.body:
            match = sections.include(line)
            if match:
                parts.append(section(match.path, match.section))
        return "\n".join(parts)


def page_file(name: str) -> Path:
    """The English page of a name as checks and messages give it: a chapter's (`masks`) or another page's."""
    return DOCS / name / "index.md" if (DOCS / name).is_dir() else DOCS / f"{name}.md"


def page_name(page: Path) -> str:
    """A page's name: its chapter folder's (`docs/masks/index.md`: `masks`), or its file's (`notebooks`, `index`)."""
    if page.parent != DOCS and page.name.startswith("index."):
        return page.parent.name
    return page.name.split(".")[0]


def pages() -> list[Path]:
    """The English pages; each Chinese edition (`*.zh.md`) holds the same blocks (tests/unit/test_translations.py)."""
    return sorted(page for page in DOCS.rglob("*.md") if not page.name.endswith(".zh.md"))


def blocks(page: Path) -> list[Block]:
    markdown = page.read_text(encoding="utf-8")
    shown = {fence.start: code for fence, code in shown_code.shown_codes(markdown, shown_code.section_reader(ROOT))}
    lines = markdown.splitlines()
    found, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        i += 1
        if not match:
            continue
        start, body = i - 1, []
        while i < len(lines) and not lines[i].strip().startswith(match["fence"]):
            body.append(lines[i])
            i += 1
        i += 1
        found.append(Block(page, match["lang"], match["options"], body, start, shown.get(start)))
    return found


def section(path: str, name: str | None) -> str:
    """What pymdownx.snippets includes: a named section of a file of this checkout, dedented."""
    return shown_code.section_reader(ROOT)(path, name)


def python_blocks(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.lang in ("python", "py", "pycon")]


# ---------------------------------------------------------------- the shape of a lesson

FOLDED = shown_code.FOLDED  # `??? note "..."`: collapsed until the reader opens it


def folded_blocks(page: Path) -> list[tuple[Block, bool]]:
    """Each Python block of `page` with whether it sits inside a collapsed `???` box (`???+` opens expanded)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    result, code = [], iter(python_blocks(page))
    in_fence = None
    for number, line in enumerate(lines):
        match = FENCE.match(line)
        if in_fence is not None:
            if line.strip().startswith(in_fence):
                in_fence = None
            continue
        if not match:
            continue
        in_fence = match["fence"]
        if match["lang"] not in ("python", "py", "pycon"):
            continue
        result.append((next(code), shown_code.folded_at(lines, number)))
    return result


def mkdocs_config() -> dict:
    """mkdocs.yml as data (its `!relative`-style tags read as None)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506


def nav_pages() -> list[Path]:
    """Every written page of the English navigation, in order (the API reference left out)."""

    def walk(items):
        for item in items:
            for value in item.values():
                if isinstance(value, list):
                    yield from walk(value)
                elif value.endswith(".md"):
                    yield DOCS / value

    return list(walk(contents.navigation("en")))


def chapter_pages() -> list[Path]:
    """The numbered chapters' pages, in reading order."""
    return [DOCS / chapter.page_path for chapter in contents.CHAPTERS if chapter.number is not None]
