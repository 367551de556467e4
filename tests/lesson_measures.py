"""What a newcomer reads on a chapter page, measured on its Markdown: the lesson is what is unfolded.

A collapsed box (`??? ...`, the lab included) is one click away and counts for nothing here. The measures:

- words: runs of letters or digits in the unfolded prose (headings, paragraphs, captions, admonitions that are
  open); code, printed outputs, math and the address of a link or a figure are left out;
- blocks: unfolded Python blocks whose code a reader sees (`run="markdown"` shows only what it draws);
- imports, docstring lines (those beyond the first line of each docstring), unused imported names and `check_`
  calls, in the unfolded blocks;
- typed numbers in "A common mistake" boxes: decimals a box quotes, which no sentence may type by hand;
- answers above: implement exercises whose answer's core lines an unfolded block prints above them
  (tests/unit/test_lesson_shape.py).

`scripts/lesson_stats.py` prints the table; tests/unit/test_lesson_targets.py holds the targets.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from snippets import FENCE, FOLDED, folded_blocks

WORD = re.compile(r"[^\W_]+")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")
MISTAKE_BOX = re.compile(r'^\s*(?:!!!|\?\?\?\+)\s*\w+\s+"A common mistake')


@dataclass
class Lesson:
    """The measures of one page's lesson."""

    words: int = 0
    blocks: int = 0
    imports: int = 0
    docstring_lines: int = 0
    unused_imports: list[str] = field(default_factory=list)
    check_calls: int = 0
    typed_numbers_in_mistakes: list[str] = field(default_factory=list)


def unfolded_lines(markdown: str) -> list[str]:
    """The page's lines outside every collapsed box, fences and math kept (they are removed from the prose later)."""
    kept, folded_at = [], None
    for line in markdown.splitlines():
        indent = len(line) - len(line.lstrip())
        if folded_at is not None:
            if not line.strip() or indent > folded_at:
                continue
            folded_at = None
        if FOLDED.match(line):
            folded_at = indent
            continue
        kept.append(line)
    return kept


def prose(lines: list[str]) -> str:
    """The text a reader reads: fences, display math, inline math, figures' images and link addresses left out."""
    text, fence = [], None
    for line in lines:
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        match = FENCE.match(line)
        if match:
            fence = match["fence"]
            continue
        text.append(line)
    joined = "\n".join(text)
    joined = re.sub(r"(?m)^\s*(?:!!!|\?\?\?\+?)\s*[\w-]+", " ", joined)  # a box's kind; its title is read
    joined = re.sub(r"\$\$.*?\$\$", " ", joined, flags=re.S)
    joined = re.sub(r"(?<!\\)\$[^$\n]+\$", " ", joined)
    joined = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", joined)  # a figure's image: its alt text is not read as prose
    joined = re.sub(r"\]\([^)]*\)", "]", joined)  # a link's address
    joined = re.sub(r"<[^>]+>", " ", joined)  # HTML tags; their text stays
    joined = re.sub(r"\{[^}\n]*#[\w-]+[^}\n]*\}", " ", joined)  # heading ids, `{ #exercises }`
    joined = re.sub(r'--8<--\s*"[^"]*"', " ", joined)
    return joined


def docstring_lines(tree: ast.AST) -> int:
    """Lines of docstrings beyond the first line of each."""
    extra = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                extra += len(value.value.strip().splitlines()) - 1
    return extra


def imported_names(tree: ast.AST) -> list[tuple[str, int]]:
    """`(name bound, line)` for each import of a block."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [((alias.asname or alias.name).split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(alias.asname or alias.name, node.lineno) for alias in node.names if alias.name != "*"]
    return found


def used_names(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | {
        node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }


def measure(page: Path) -> Lesson:
    markdown = page.read_text(encoding="utf-8")
    lines = unfolded_lines(markdown)
    lesson = Lesson(words=len(WORD.findall(prose(lines))))
    for block, folded in folded_blocks(page):
        if folded or not block.shown:
            continue
        lesson.blocks += 1
        code = block.code()
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        imports = imported_names(tree)
        lesson.imports += len({line for _, line in imports})
        used = used_names(tree)
        lesson.unused_imports += [name for name, _ in imports if name not in used and name != "annotations"]
        lesson.docstring_lines += docstring_lines(tree)
        lesson.check_calls += sum(
            1
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr).startswith("check_")
        )
    lesson.typed_numbers_in_mistakes = typed_numbers_in_mistake_boxes(lines)
    return lesson


def typed_numbers_in_mistake_boxes(lines: list[str]) -> list[str]:
    """The decimals typed into the open "A common mistake" boxes of the lesson."""
    found, box_at = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if box_at is not None and line.strip() and indent <= box_at:
            box_at = None
        if MISTAKE_BOX.match(line):
            box_at = indent
            continue
        if box_at is not None and not FENCE.match(line):
            found += DECIMAL.findall(re.sub(r"\$[^$]*\$", " ", line))
    return found
