"""Each chapter reads as a lesson: nothing used before it is shown, code in lesson-sized blocks, lines that fit the
content column, and a figure on every chapter page.

`python tests/unit/test_lesson_shape.py` prints the table these tests check, one row per page.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

if __name__ == "__main__":  # run as a script: find conftest and snippets as pytest does
    sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import pytest
from snippets import chapter_pages, folded_blocks, nav_pages, page_name, section

from tutorial_tools import sections

MAX_UNFOLDED = 40  # non-empty lines of an unfolded block
MAX_WIDTH = 80  # characters of a shown line: the code box shows 82 at 1280 px
FIGURE = re.compile(r"!\[[^\]]+\]\((?:\.\./)?figures/[\w-]+\.(?:png|svg)\)")
ASIDE = {"diagrams.plots"}  # the chart helpers: shown code calls them, but they teach nothing of their own


@dataclass
class Shape:
    """What a reader meets on one page."""

    page: str
    largest_unfolded: int = 0
    unfolded_lines: int = 0
    shown_lines: int = 0
    long_lines: list[str] = field(default_factory=list)
    figures: int = 0


def shape(page: Path) -> Shape:
    found = Shape(page_name(page), figures=len(FIGURE.findall(page.read_text(encoding="utf-8"))))
    for block, folded in folded_blocks(page):
        if not block.shown:
            continue
        lines = [line for line in block.code().splitlines() if line.strip()]
        found.shown_lines += len(lines)
        if not folded:
            found.unfolded_lines += len(lines)
            found.largest_unfolded = max(found.largest_unfolded, len(lines))
        found.long_lines += [line for line in lines if len(line) > MAX_WIDTH]
    return found


def statements(code: str) -> list[ast.stmt]:
    """The top-level statements of a shown block; none when it is not Python on its own (a fragment, a session)."""
    try:
        return ast.parse(code).body
    except SyntaxError:
        return []


def definitions(code: str) -> set[str]:
    """The names a shown block defines at its top level (its functions, classes and assignments)."""
    names = set()
    for node in statements(code):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def printed_twice(page: Path) -> list[str]:
    """The functions and classes whose code two shown blocks of `page` print, folded or not."""
    counts: dict[str, int] = {}
    for block, _ in folded_blocks(page):
        if not block.shown:
            continue
        for node in statements(block.code()):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                counts[node.name] = counts.get(node.name, 0) + 1
    return sorted(name for name, count in counts.items() if count > 1)


def imports(code: str) -> set[tuple[str, str]]:
    """`(module, name)` for each `from tutorial_code.module import name` of a shown block."""
    return {
        (node.module.removeprefix("tutorial_code."), alias.name)
        for statement in statements(code)
        for node in ast.walk(statement)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tutorial_code.")
        for alias in node.names
    }


def first_shown(pages: list[Path]) -> dict[tuple[str, str], int]:
    """For each `(module, name)` of `tutorial_code`, the index in `pages` of the first page that shows its code."""
    shown: dict[tuple[str, str], int] = {}
    for index, page in enumerate(pages):
        for block, _ in folded_blocks(page):
            for line in block.body:
                match = sections.include(line)
                if not match or not match.path.startswith("tutorial_code/") or "/chapters/" in match.path:
                    continue
                module = match.path.removeprefix("tutorial_code/").removesuffix(".py").replace("/", ".")
                for name in definitions(section(match.path, match.section)):
                    shown.setdefault((module, name), index)
    return shown


def forward_references(pages: list[Path]) -> list[str]:
    """Each shown import of a name whose code the site first shows on a later page, in navigation order."""
    shown, found = first_shown(pages), []
    for index, page in enumerate(pages):
        for block, _ in folded_blocks(page):
            if not block.shown:
                continue
            for module, name in sorted(imports(block.code())):
                first = shown.get((module, name))
                if module not in ASIDE and first is not None and first > index:
                    found.append(f"{page_name(page)} uses {module}.{name}, first shown on {page_name(pages[first])}")
    return sorted(set(found))


def printed(code: str) -> set[str]:
    """The functions a shown block prints, and the methods of the classes it prints as "Class.method"."""
    names = set()
    for node in statements(code):
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{item.name}" for item in node.body if isinstance(item, ast.FunctionDef)}
    return names


EXERCISES_HEADING = re.compile(r"^## .*\{ #exercises \}$|^## Exercises$")


def answers_shown_above(pages: list[Path], exercises) -> list[str]:
    """Each implement exercise whose answer (a function or method it asks for) an unfolded block prints on an
    earlier page of `pages`, or on its own page before the exercises."""
    unfolded: dict[Path, set[str]] = {}  # for each page, what its unfolded blocks above the exercises print
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        end = next((n for n, line in enumerate(lines) if EXERCISES_HEADING.match(line)), len(lines))
        unfolded[page] = set()
        for block, folded in folded_blocks(page):
            if block.shown and not folded and block.line < end:
                unfolded[page] |= printed(block.code())
    found = []
    for exercise in exercises:
        if exercise.bug or exercise.chapter not in {page_name(page) for page in pages}:
            continue
        index = next(n for n, page in enumerate(pages) if page_name(page) == exercise.chapter)
        for page in pages[: index + 1]:
            for name in exercise.write:
                if name in unfolded[page]:
                    found.append(f"{exercise.name}: {name} is printed unfolded on {page_name(page)}")
    return found


PAGES = nav_pages()
CHAPTERS = chapter_pages()


def test_nothing_is_used_before_the_page_that_shows_it():
    assert forward_references(PAGES) == []


@pytest.mark.parametrize("page", CHAPTERS, ids=page_name)
def test_code_comes_in_lesson_sized_blocks_that_fit_the_column(page):
    found = shape(page)
    assert found.largest_unfolded <= MAX_UNFOLDED, (
        f"{page_name(page)}: an unfolded block of {found.largest_unfolded} lines; show the computing lines and fold "
        "the complete version in a `???` box"
    )
    assert found.long_lines == [], f"{page_name(page)}: shown lines over {MAX_WIDTH} characters: {found.long_lines[:3]}"


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_each_function_is_printed_once_per_page(page):
    assert printed_twice(page) == [], (
        f"{page_name(page)} prints these twice: show each once, and link to it from the other place"
    )


def test_no_implement_exercise_has_its_answer_printed_above_it():
    from tutorial_tools.exercises.catalogue import EXERCISES

    assert answers_shown_above(PAGES, EXERCISES.values()) == [], (
        "show the computing lines instead of the function, fold the function after the exercise, or ask for a "
        "variant the page does not show"
    )


def test_the_answer_check_finds_an_answer_printed_above_its_exercise(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import snippets

    module = tmp_path / "tutorial_code" / "early.py"
    module.parent.mkdir()
    module.write_text(
        "# --8<-- [start:thing]\nclass Thing:\n    def forward(self):\n        return 1\n# --8<-- [end:thing]\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    monkeypatch.setattr(snippets, "DOCS", tmp_path / "docs")
    page = tmp_path / "docs" / "one" / "index.md"
    page.parent.mkdir(parents=True)
    solution = (
        '## Exercises\n\n### Write it\n\n??? success "Solution"\n\n'
        '    ```python\n    --8<-- "tutorial_code/early.py:thing"\n    ```\n'
    )
    exercise = SimpleNamespace(name="thing", chapter="one", write=("Thing.forward",), bug=None)
    page.write_text(solution, encoding="utf-8")
    assert answers_shown_above([page], [exercise]) == []
    page.write_text('```python\n--8<-- "tutorial_code/early.py:thing"\n```\n\n' + solution, encoding="utf-8")
    assert answers_shown_above([page], [exercise]) == ["thing: Thing.forward is printed unfolded on one"]


@pytest.mark.parametrize("page", CHAPTERS, ids=page_name)
def test_every_chapter_has_a_figure(page):
    assert shape(page).figures >= 1, f"{page_name(page)} has no figure"


def test_the_checks_find_a_forward_reference_a_long_block_and_a_folded_one(tmp_path, monkeypatch):
    import snippets

    module = tmp_path / "tutorial_code" / "early.py"
    module.parent.mkdir()
    module.write_text("# --8<-- [start:thing]\ndef thing():\n    return 1\n# --8<-- [end:thing]\n", encoding="utf-8")
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    first = tmp_path / "one.md"
    chapter = tmp_path / "docs" / "one" / "script.py"
    chapter.parent.mkdir(parents=True)
    chapter.write_text(
        "# --8<-- [start:use]\nfrom tutorial_code.early import thing\n\nx = thing()\n# --8<-- [end:use]\n",
        encoding="utf-8",
    )
    first.write_text('```python run\n--8<-- "docs/one/script.py:use"\n```\n', encoding="utf-8")
    second = tmp_path / "two.md"
    long_block = "\n".join(f"y{i} = {i}" for i in range(41))
    second.write_text(
        '```python\n--8<-- "tutorial_code/early.py:thing"\n```\n\n??? note "All of it"\n\n    ```python\n'
        + "\n".join(f"    {line}" for line in long_block.splitlines())
        + "\n    ```\n",
        encoding="utf-8",
    )
    assert forward_references([first, second]) == ["one uses early.thing, first shown on two"]
    assert printed_twice(second) == []
    third = tmp_path / "three.md"
    third.write_text(
        '```python\n--8<-- "tutorial_code/early.py:thing"\n```\n\n??? success "Solution"\n\n    ```python\n'
        '    --8<-- "tutorial_code/early.py:thing"\n    ```\n',
        encoding="utf-8",
    )
    assert printed_twice(third) == ["thing"]
    assert forward_references([second, first]) == []
    assert [folded for _, folded in folded_blocks(second)] == [False, True]


def table(pages: list[Path]) -> str:
    rows = [
        f"| page | largest unfolded block | unfolded lines | shown lines | lines over {MAX_WIDTH} | figures |",
        "|---|---|---|---|---|---|",
    ]
    for page in pages:
        s = shape(page)
        rows.append(
            f"| {s.page} | {s.largest_unfolded} | {s.unfolded_lines} | {s.shown_lines} | {len(s.long_lines)} | "
            f"{s.figures} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(CHAPTERS))
    print("\nforward references:")
    print("\n".join(forward_references(PAGES)) or "none")
