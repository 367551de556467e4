"""What a reader meets on each chapter's English page, as Markdown tables.

    .venv/bin/python scripts/lesson_stats.py --lessons         # the core chapters' lessons, from the Markdown
    .venv/bin/python scripts/lesson_stats.py [SITE]            # SITE: the built site folder, `site` by default
    .venv/bin/python scripts/lesson_stats.py SITE --longest    # and the shown Python lines over 80 characters

`--lessons` measures what a newcomer reads on each core chapter without a click (tests/lesson_measures.py, whose
targets tests/unit/test_lesson_targets.py holds): the unfolded words and Python blocks, and in those blocks the
import lines, the docstring lines beyond one per definition, the unused imported names and the `check_` calls;
the decimals typed into "A common mistake" boxes; the implement exercises whose answer is printed above them.

Columns, for the article of each page (`article.md-content__inner`: no navigation, header or footer):

- words: runs of letters or digits in the prose; code blocks, printed outputs, math (`.arithmatex`) and the
  titles of boxes that hold a code block are left out; inline `code` in a sentence counts.
- unfolded / shown: non-empty lines of the Python blocks; unfolded: those inside no collapsed `<details>`.
- repeated: shown Python lines of 12 characters or more (stripped) met again on the page, each repeat once.
- equality: unfolded printed outputs (the build's `text` fences) that are equality outputs, as
  tests/site/test_equality_outputs.py's `is_equality` defines them (imported) / all printed outputs.
- figures: images of `figures/`; idea: those whose script section calls a function of tutorial_code/diagrams/
  other than plots.py (plots.py draws measurements).
- ex.: the exercises (headings under "Exercises"); above: implement exercises whose answer an unfolded
  block prints above them (computed from the pages' Markdown by tests/unit/test_lesson_shape.py).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import astuple, dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # tutorial_tools; the tests' conftest and snippets

from tutorial_tools import contents, sections  # noqa: E402
from tutorial_tools.exercises.catalogue import EXERCISES  # noqa: E402

WORD = re.compile(r"[^\W_]+")  # a run of letters or digits
MAX_WIDTH = 80
REPEATED_FROM = 12  # characters of a stripped line
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def load(relative: str) -> ModuleType:
    """Import a test file by its path (tests/ is not a package), to reuse its definitions."""
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def walk(self) -> Iterator[Node]:
        """This node and every element under it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()


class Tree(HTMLParser):
    """A page as a tree of `Node`s (a `<tag/>` opens and closes; a void `<img>` opens nothing)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("document", {})
        self.open = [self.root]
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def language(node: Node) -> str | None:
    """`python`, `text`, `diff`...: the language of a highlighted code block; None for any other element."""
    found = [name.removeprefix("language-") for name in node.classes if name.startswith("language-")]
    return found[0] if found and "highlight" in node.classes else None


@dataclass
class Page:
    words: int = 0
    python: list[tuple[list[str], bool]] = field(default_factory=list)  # (non-empty lines, folded) per block
    outputs: list[tuple[str, bool]] = field(default_factory=list)  # (text, folded) per printed output
    figures: list[str] = field(default_factory=list)  # the names of its figures/<name>.png
    exercises: int = 0

    @property
    def shown(self) -> list[str]:
        return [line for lines, _ in self.python for line in lines]

    def unfolded(self) -> int:
        return sum(len(lines) for lines, folded in self.python if not folded)

    def repeated(self) -> int:
        counts = Counter(line.strip() for line in self.shown if len(line.strip()) >= REPEATED_FROM)
        return sum(count - 1 for count in counts.values())


def read(node: Node, folded: bool, page: Page) -> None:
    """Add what `node`'s children hold to `page`; `folded`: inside a collapsed `<details>`."""
    for child in node.children:
        if isinstance(child, str):
            page.words += len(WORD.findall(child))
        elif (kind := language(child)) == "python":
            page.python.append(([line for line in child.text().splitlines() if line.strip()], folded))
        elif kind == "text":
            page.outputs.append((child.text(), folded))
        elif kind is not None or "arithmatex" in child.classes or child.tag in ("script", "style"):
            continue  # a diff, math
        elif (child.tag == "summary" or "admonition-title" in child.classes) and any(map(language, node.walk())):
            continue  # the title of a box with code in it
        else:
            if child.tag == "img" and "figures/" in (src := child.attrs.get("src") or ""):
                page.figures.append(Path(src).stem)
            closed = child.tag == "details" and "open" not in child.attrs
            read(child, folded or closed, page)


def read_page(path: Path) -> Page:
    tree = Tree(path.read_text(encoding="utf-8")).root
    article = next(n for n in tree.walk() if n.tag == "article" and "md-content__inner" in n.classes)
    page, in_exercises = Page(), False
    read(article, False, page)
    for node in article.walk():
        if node.tag == "h2":
            in_exercises = node.attrs.get("id") == "exercises"
        page.exercises += in_exercises and node.tag == "h3"
    return page


def html_of(site: Path, page: str) -> Path:
    """The built page of `docs/<page>` (MkDocs' directory URLs)."""
    name = page.removesuffix(".md").removesuffix("index").strip("/")
    return site / name / "index.html"


def idea_pictures() -> set[str]:
    """The sections of the chapter scripts (the figures are figures/<section>.png) that call a function
    imported from a tutorial_code.diagrams module other than plots."""
    found = set()
    for chapter in contents.CHAPTERS:
        source = (ROOT / chapter.script).read_text(encoding="utf-8")
        drawers = {
            alias.asname or alias.name
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tutorial_code.diagrams.")
            if node.module != "tutorial_code.diagrams.plots"
            for alias in node.names
        }
        starts = [sections.marker(line) for line in source.splitlines()]
        names = {marker[1] for marker in starts if marker and marker[0] == "start"}
        for name in names:
            code = ast.parse(textwrap.dedent(sections.section_text(source, name) or ""))
            calls = {n.func.id for n in ast.walk(code) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            if calls & drawers:
                found.add(name)
    return found


def answers_above() -> Counter[str]:
    """Per chapter, the implement exercises whose answer is printed unfolded above them (test_lesson_shape)."""
    shape = load("tests/unit/test_lesson_shape.py")
    found = {line.split(":")[0] for line in shape.answers_shown_above(shape.PAGES, EXERCISES.values())}
    return Counter(EXERCISES[name].chapter for name in found)


@dataclass
class Counts:
    """One row of the table."""

    words: int = 0
    unfolded: int = 0
    shown: int = 0
    repeated: int = 0
    equality: int = 0  # unfolded equality outputs
    outputs: int = 0
    figures: int = 0
    ideas: int = 0
    exercises: int = 0
    above: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def cells(self) -> str:
        return (
            f"{self.words} | {self.unfolded} / {self.shown} | {self.repeated} | {self.equality}/{self.outputs} | "
            f"{self.figures} | {self.ideas} | {self.exercises} | {self.above}"
        )


def counts(page: Page, is_equality: Callable[[str], bool], ideas: set[str], above: int) -> Counts:
    return Counts(
        words=page.words,
        unfolded=page.unfolded(),
        shown=len(page.shown),
        repeated=page.repeated(),
        equality=sum(is_equality(text) for text, folded in page.outputs if not folded),
        outputs=len(page.outputs),
        figures=len(page.figures),
        ideas=len([name for name in page.figures if name in ideas]),
        exercises=page.exercises,
        above=above,
    )


def lesson_table() -> str:
    """The core chapters' lessons, one row each, and the core path's total."""
    from lesson_measures import measure

    above = answers_above()
    columns = ["words", "blocks", "imports", "docstring lines", "unused imports", "check_ calls", "typed numbers"]
    rows = [f"| # | chapter | {' | '.join(columns)} | answers above |", f"|---|---|{'---|' * (len(columns) + 1)}"]
    words = 0
    for chapter in contents.CHAPTERS:
        if contents.part(chapter) != "core":
            continue
        lesson = measure(ROOT / "docs" / chapter.page_path)
        words += lesson.words
        cells = [lesson.words, lesson.blocks, lesson.imports, lesson.docstring_lines, len(lesson.unused_imports)]
        cells += [lesson.check_calls, len(lesson.typed_numbers_in_mistakes), above[chapter.slug]]
        rows.append(f"| {chapter.number} | `{chapter.slug}` | {' | '.join(map(str, cells))} |")
    rows.append(f"| | core path | {words} |{' |' * (len(columns))}")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="site", type=Path, help="the built site (default: site)")
    parser.add_argument("--longest", action="store_true", help=f"list shown Python lines over {MAX_WIDTH} chars")
    parser.add_argument("--lessons", action="store_true", help="the core chapters' lessons, from the Markdown")
    args = parser.parse_args()
    if args.lessons:
        print(lesson_table())
        return
    is_equality = load("tests/site/test_equality_outputs.py").is_equality
    ideas, above = idea_pictures(), answers_above()
    chapters = [chapter for chapter in contents.CHAPTERS if chapter.number is not None]
    others = [c.page_path for c in contents.CHAPTERS if c.number is None] + [p for p, _, _ in contents.PAGES_AFTER]
    pages = {chapter.slug: read_page(html_of(args.site, chapter.page_path)) for chapter in chapters}
    pages |= {page: read_page(html_of(args.site, page)) for page in others}
    rows = {name: counts(page, is_equality, ideas, above[name]) for name, page in pages.items()}

    columns = "words | unfolded / shown | repeated | equality | figures | idea | ex. | above |"
    print(f"| # | chapter (slug) | {columns}\n|---|---|{'---|' * 8}")
    for chapter in chapters:
        print(f"| {chapter.number} | {chapter.title} (`{chapter.slug}`) | {rows[chapter.slug].cells()} |")
    core = sum((rows[c.slug] for c in chapters if contents.part(c) == "core"), Counts())
    print(f"\n| total | {columns}\n|---|{'---|' * 8}")
    print(f"| core path (chapters 1 to {contents.CORE_PATH_ENDS}) | {core.cells()} |")
    print(f"| chapters 1 to {len(chapters)} | {sum((rows[c.slug] for c in chapters), Counts()).cells()} |")
    print(f"| whole site (the chapters, home, guides, other pages) | {sum(rows.values(), Counts()).cells()} |")
    if args.longest:
        print(f"\nShown Python lines over {MAX_WIDTH} characters, per page:")
        long = [(name, line) for name, page in pages.items() for line in page.shown if len(line) > MAX_WIDTH]
        print("\n".join(f"- {name}: {len(line)}: `{line.strip()}`" for name, line in long) or "none")


if __name__ == "__main__":
    main()
