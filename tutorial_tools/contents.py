"""The table of contents: every chapter, in reading order, described once.

Both editions' navigation, the `transformer-tutorial` command, the notebook list, the build and the
tests read it. A chapter is one folder, `docs/<slug>/`, whose `chapter.yml` describes it, and one line of
`docs/contents.yml`, which keeps the order (CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

ORDER_FILE = "contents.yml"  # in the folder of the chapter folders: the reading order
ENTRY_FILE = "chapter.yml"  # in each chapter's folder: its entry


@dataclass(frozen=True)
class Chapter:
    """One chapter: a script that runs, and the page (in each language) that shows what it prints."""

    slug: str  # its folder, docs/<slug>/
    title: str  # the page's heading, without the number
    title_zh: str
    number: int | None = None  # the numbered chapters, 1 to 14; the home page and the two guides have none
    teaches: tuple[str, ...] = ()  # the tutorial_code modules whose code this page shows first
    page: str = ""  # docs/<page>; defaults to <slug>/index.md
    runs_alone: bool = False  # it times things: the build runs it with no other chapter beside it
    data: tuple[tuple[str, str], ...] = ()  # (section, value): what the build keeps from that section's run
    publishes: tuple[tuple[str, str], ...] = ()  # (section, site path): the file made from that kept value
    extras: tuple[str, ...] = ()  # the package's extras its notebook installs (`today`: transformers)

    @property
    def folder(self) -> str:
        """Its folder in a checkout: the pages, the script, the checks, the exercises, the Chinese strings."""
        return f"docs/{self.slug}"

    @property
    def script(self) -> str:
        return f"{self.folder}/script.py"

    @property
    def page_path(self) -> str:
        """Its English page, under docs/; the Chinese page is the same name ending in `.zh.md`."""
        return self.page or f"{self.slug}/index.md"

    def file(self, name: str) -> Path:
        """A file of its folder (`script.py`): in this checkout, or in the installed package."""
        return FOLDER / self.slug / name

    @property
    def command(self) -> str:
        """Its `transformer-tutorial` command."""
        return self.slug.replace("_", "-")

    def heading(self, language: str = "en") -> str:
        """The title with its number, as the navigation and the page's first heading show it."""
        title = self.title_zh if language == "zh" else self.title
        return f"{self.number}. {title}" if self.number is not None else title


def chapter_folders() -> Path:
    """The folder of the chapter folders: `docs/` in a checkout; where the package is installed without one, its
    copy `tutorial_chapters` (pyproject.toml)."""
    checkout = Path(__file__).resolve().parent.parent / "docs"
    if checkout.is_dir():
        return checkout
    return Path(str(importlib.resources.files("tutorial_chapters")))


def read_entry(folder: Path, number: int | None = None) -> Chapter:
    """The chapter of one folder, from its `chapter.yml`; `number` is its place among the numbered chapters.

    Raises:
        ValueError: If the file lacks a title or names a field that a chapter does not have.
    """
    entry = yaml.safe_load((folder / ENTRY_FILE).read_text(encoding="utf-8")) or {}
    known = {field.name for field in fields(Chapter)} - {"slug", "number"} | {"numbered"}
    unknown = sorted(set(entry) - known)
    missing = sorted({"title", "title_zh"} - set(entry))
    if unknown or missing:
        raise ValueError(
            f"{folder / ENTRY_FILE}: unknown fields {unknown}, missing fields {missing}; the fields are {sorted(known)}"
        )
    numbered = entry.pop("numbered", True)
    for name in ("data", "publishes"):
        entry[name] = tuple((entry.get(name) or {}).items())
    entry["teaches"] = tuple(entry.get("teaches") or ())
    entry["extras"] = tuple(entry.get("extras") or ())
    return Chapter(folder.name, number=number if numbered else None, **entry)


def read_chapters(folder: Path) -> tuple[Chapter, ...]:
    """Every chapter of a folder of chapter folders, in the order of its `contents.yml`, numbered in that order."""
    order = yaml.safe_load((folder / ORDER_FILE).read_text(encoding="utf-8"))["chapters"]
    chapters, number = [], 0
    for slug in order:
        chapter = read_entry(folder / slug, number + 1)
        number += chapter.number is not None
        chapters.append(chapter)
    return tuple(chapters)


def use(folder: Path) -> None:
    """Read the table of contents from another folder of chapter folders: the `docs/` of the checkout a build
    builds (sitebuild/in_mkdocs/plugin.py)."""
    global FOLDER, CHAPTERS  # noqa: PLW0603 - one table of contents per process, read again for each build
    FOLDER, CHAPTERS = folder, read_chapters(folder)


FOLDER = chapter_folders()
CHAPTERS = read_chapters(FOLDER)
"""The chapters in reading order: the home page, the fourteen numbered chapters, the two guides."""

PAGES_AFTER = (  # pages without a script, after the chapters in the navigation: (page, title, Chinese title)
    ("where_to_go_next.md", "Where to go next", "接下来读什么"),
    ("corrections.md", "Corrections to the source articles", "对原文的更正"),
    ("notebooks.md", "Notebooks", "笔记本"),
)


def by_slug() -> dict[str, Chapter]:
    return {chapter.slug: chapter for chapter in CHAPTERS}


CORE_PATH_ENDS = 9  # the core path: chapters 1 to 9, from why attention to a trained model checked against PyTorch

PARTS = {  # the navigation's parts, in each language
    "core": ("The core path", "核心路径"),
    "further": ("Going further", "进阶"),
    "reference": ("Reference", "参考"),
}


def part(chapter: Chapter) -> str:
    """`core`, `further` or `reference`: the part of the navigation a chapter stands in (not the home page)."""
    if chapter.number is None:
        return "reference"
    return "core" if chapter.number <= CORE_PATH_ENDS else "further"


def navigation(language: str = "en") -> list:
    """The site's navigation in MkDocs' `nav` form, for one language (`en` or `zh`): the home page, then the
    core path, going further (with where to go next) and the reference (the guides and the notebooks)."""
    home, *rest = CHAPTERS
    zh = language == "zh"
    sections: dict[str, list] = {name: [] for name in PARTS}
    for chapter in rest:
        sections[part(chapter)].append({chapter.heading(language): chapter.page_path})
    for page, title, title_zh in PAGES_AFTER:
        sections["further" if page == "where_to_go_next.md" else "reference"].append({title_zh if zh else title: page})
    nav: list = [{"首页" if zh else "Home": home.page_path}]
    nav += [{PARTS[name][zh]: items} for name, items in sections.items()]
    if not zh:  # the API reference is English only; the Chinese navigation links to it (sitebuild/in_mkdocs/plugin.py)
        nav.append({"API reference": "reference/"})
    return nav
