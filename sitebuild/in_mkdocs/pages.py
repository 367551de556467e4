"""Put a chapter's outputs into its page: the `run` fences.

A page shows a section of its chapter script and what it printed with a fence marked `run`:

    ```python run
    --8<-- "docs/masks/script.py:padding"
    ```

becomes the section's code (a plain Python fence with the same include line, which
pymdownx.snippets fills in) followed by a `text` fence with what the section printed when
the chapter ran. `run="markdown"` shows no code and inserts what the section printed as
Markdown (a sentence with a measured number, a table); a section that only draws a
figure inserts nothing. `run="code+markdown"` shows the code, then its output as Markdown.
An empty `diff fix="NAME"` fence becomes the repair of the find-the-bug exercise NAME.
Outputs come from the chapter's one execution
([`sitebuild.in_mkdocs.chapters`][sitebuild.in_mkdocs.chapters]); no page runs code itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tutorial_tools import sections

RUN_FENCE = re.compile(
    r'^(?P<indent>[ \t]*)(?P<fence>`{3,})python[ \t]+run(?:="(?P<mode>markdown|code\+markdown)")?[ \t]*$'
)
CHAPTER_SCRIPT = re.compile(r"^docs/(?P<chapter>\w+)/script\.py$")


class PageError(ValueError):
    """A `run` fence that the build cannot fill."""


def run_fences(markdown: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every `run` fence of a page as `(mode, [(chapter, section), ...])`, in page order."""
    return [(mode, includes) for _, _, mode, includes, _ in _fences(markdown.splitlines(keepends=True), "")]


def _fences(lines: list[str], page: str):
    index = 0
    while index < len(lines):
        match = RUN_FENCE.match(lines[index].rstrip("\n"))
        if not match:
            index += 1
            continue
        start, indent, fence = index, match["indent"], match["fence"]
        includes = []
        index += 1
        while index < len(lines) and lines[index].strip() != fence:
            if lines[index].strip():
                include = sections.include(lines[index])
                script = CHAPTER_SCRIPT.match(include.path) if include else None
                if not script or include.section is None:
                    raise PageError(
                        f"{page}: a `python run` fence holds only include lines of a chapter script "
                        f'(--8<-- "docs/<chapter>/script.py:<section>"), found {lines[index].strip()!r}'
                    )
                includes.append((script["chapter"], include.section))
            index += 1
        if index == len(lines):
            raise PageError(f"{page}: the `python run` fence opened on line {start + 1} is never closed")
        yield start, index, match["mode"] or "text", includes, indent
        index += 1


def fill(
    markdown: str,
    page: str,
    output_of: Callable[[str, str, bool], str],
    note_of: Callable[[str, str], str] | None = None,
) -> str:
    """Replace every `run` fence of `markdown` by its code and output; `output_of(chapter, section, as_prose)` gives
    the text, `as_prose` telling whether the page shows it as Markdown (prose, tables) or as printed text.
    `note_of(chapter, section)` gives Markdown to put under the output (where a number came from), or ""."""
    lines = markdown.splitlines(keepends=True)
    pieces, done = [], 0
    for start, end, mode, includes, indent in list(_fences(lines, page)):
        pieces.append("".join(lines[done:start]))
        done = end + 1
        text = "".join(output_of(chapter, section, mode != "text") for chapter, section in includes)
        if mode != "markdown":
            pieces.append(f"{indent}```python\n" + "".join(lines[start + 1 : end]) + f"{indent}```\n")
        if mode != "text":
            pieces.append("\n" + _indented(text, indent) + "\n")
        elif text.strip():
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
            pieces.append(f"\n{indent}{fence}text\n" + _indented(text, indent) + f"{indent}{fence}\n")
        notes = "".join(note_of(chapter, section) for chapter, section in includes) if note_of else ""
        if notes:
            pieces.append("\n" + _indented(notes, indent) + "\n")
    pieces.append("".join(lines[done:]))
    return "".join(pieces)


FIX_FENCE = re.compile(
    r'^(?P<indent>[ \t]*)(?P<fence>`{3,})diff[ \t]+fix="(?P<name>[\w-]+)"[ \t]*\n(?P=indent)(?P=fence)[ \t]*$', re.M
)


def fill_fixes(markdown: str, page: str, diff_of: Callable[[str], str]) -> str:
    """Replace every empty `diff fix="NAME"` fence by the repair of the find-the-bug exercise NAME, as a diff
    (`diff_of(name)`): a solution shows the lines it changes, not the whole function again."""

    def filled(match: re.Match) -> str:
        try:
            diff = diff_of(match["name"])
        except (KeyError, LookupError, ValueError) as error:
            raise PageError(f'{page}: the fence `diff fix="{match["name"]}"`: {error}') from error
        indent, fence = match["indent"], match["fence"]
        return f"{indent}{fence}diff\n" + _indented(diff, indent) + f"{indent}{fence}"

    return FIX_FENCE.sub(filled, markdown)


def _indented(text: str, indent: str) -> str:
    text = text if text.endswith("\n") or not text else text + "\n"
    return "".join(indent + line if line.strip() else line for line in text.splitlines(keepends=True))
