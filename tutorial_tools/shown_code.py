"""What a page shows of the code it includes: the lesson's lines, and each import where it is first used.

A page includes sections of the library (`--8<-- "tutorial_code/masks.py:causal_mask"`). The library's functions
carry long docstrings and input checks that a lesson is not about; the complete function stays one click away,
in a folded box or on its API page. So, in a block the reader sees unfolded:

- a docstring keeps its first line;
- a call to a `check_*` function (the library's input checks) is left out;

and on the whole page, an imported name that a block does not use moves to the first later block that does
(or goes, when none does). The blocks still run as shown, one after the other (tests/site/test_pages.py), and
the build and the tests read the same code from here.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from tutorial_tools import sections

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})python\b(?P<options>[^\n]*)$")
FOLDED = re.compile(r"^\s*\?\?\?(?!\+)")  # `??? note "..."`: collapsed until the reader opens it
WIDTH = 80  # the code box's width at 1280 px


@dataclass
class Fence:
    """A Python fence of a page whose body is include lines."""

    start: int  # the line of its opening fence
    end: int  # the line of its closing fence
    indent: str
    includes: list[sections.Include]
    folded: bool  # inside a collapsed `???` box
    drawn_only: bool  # `run="markdown"`: the page shows what it printed or drew, not its code

    @property
    def in_lesson(self) -> bool:
        """Code a reader sees without a click."""
        return not self.folded and not self.drawn_only


def fences(lines: list[str]) -> list[Fence]:
    """Every Python fence of a page made of include lines, with whether a collapsed box holds it."""
    found, index = [], 0
    while index < len(lines):
        match = FENCE.match(lines[index].rstrip("\n"))
        if not match:
            index += 1
            continue
        start, fence = index, match["fence"]
        index += 1
        while index < len(lines) and lines[index].strip() != fence:
            index += 1
        body = [line for line in lines[start + 1 : index] if line.strip()]
        includes = [sections.include(line) for line in body]
        if body and all(includes):
            drawn_only = 'run="markdown"' in match["options"]
            found.append(Fence(start, index, match["indent"], includes, folded_at(lines, start), drawn_only))
        index += 1
    return found


def folded_at(lines: list[str], number: int) -> bool:
    """Whether line `number` sits inside a collapsed `???` box (`???+` opens expanded)."""
    indent = len(lines[number]) - len(lines[number].lstrip())
    for above in reversed(lines[:number]):
        if above.strip() and len(above) - len(above.lstrip()) < indent:
            indent = len(above) - len(above.lstrip())
            if FOLDED.match(above):
                return True
            if indent == 0:
                return False
    return False


def trimmed(code: str) -> str:
    """`code` with each docstring cut to its first line and each `check_*(...)` statement left out."""
    tree = ast.parse(code)
    lines = code.splitlines()
    cuts: list[tuple[int, int, list[str]]] = []  # (first line, last line, replacement), numbered from 1
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        first = body[0] if body else None
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
            and first.end_lineno > first.lineno
        ):
            line = lines[first.lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            summary = first.value.value.strip().splitlines()[0].strip()
            quote = '"""' if '"""' not in summary else "'''"
            one_line = f"{indent}{quote}{summary}{quote}"
            kept = [one_line] if len(one_line) <= WIDTH else [f"{indent}{quote}{summary}", f"{indent}{quote}"]
            cuts.append((first.lineno, first.end_lineno, kept))
        for statement in body:
            if _only_checks(statement) and len(body) > 1:
                cuts.append((statement.lineno, statement.end_lineno, []))
    for first, last, replacement in sorted(cuts, reverse=True):
        lines[first - 1 : last] = replacement
    return "\n".join(lines) + ("\n" if code.endswith("\n") else "")


def _only_checks(statement: ast.stmt) -> bool:
    """A `check_*(...)` call, or an `if` that holds nothing else (`if mask is not None: check_mask(...)`)."""
    if isinstance(statement, ast.If) and not statement.orelse:
        return all(_only_checks(inner) for inner in statement.body)
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and _called(call).startswith("check_")


def _trimmed_if_python(code: str) -> str:
    try:
        return trimmed(code)
    except SyntaxError:  # a fragment or a session: shown as it is
        return code


def _called(call: ast.Call) -> str:
    function = call.func
    return function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")


@dataclass(frozen=True)
class Imported:
    """One name an import binds: `import torch`, `import torch.nn.functional as F`, `from torch import nn`."""

    module: str
    name: str | None  # None for `import module`
    alias: str | None

    @property
    def bound(self) -> str:
        if self.alias:
            return self.alias
        return self.name if self.name is not None else self.module.split(".")[0]


def _imports(statement: ast.stmt) -> list[Imported]:
    if isinstance(statement, ast.Import):
        return [Imported(alias.name, None, alias.asname) for alias in statement.names]
    if isinstance(statement, ast.ImportFrom) and statement.module != "__future__" and statement.level == 0:
        return [Imported(statement.module or "", alias.name, alias.asname) for alias in statement.names]
    return []


def _needed(tree: ast.Module) -> set[str]:
    """The names a block reads before its own statements define them."""
    defined: set[str] = set()
    needed: set[str] = set()
    for statement in tree.body:
        names = [node for node in ast.walk(statement) if isinstance(node, ast.Name)]
        needed |= {node.id for node in names if isinstance(node.ctx, ast.Load)} - defined
        defined |= {node.id for node in names if isinstance(node.ctx, ast.Store)}
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(statement.name)
    return needed


def _used(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def render(imports: list[Imported], indent: str = "") -> list[str]:
    """Import statements for `imports`, one `from` line per module, in the order met."""
    lines, grouped = [], {}
    for item in imports:
        if item.name is None:
            lines.append(f"{indent}import {item.module}" + (f" as {item.alias}" if item.alias else ""))
        else:
            grouped.setdefault(item.module, []).append(item)
            if len(grouped[item.module]) == 1:
                lines.append(item.module)  # its place
    rendered = []
    for line in lines:
        if line in grouped:
            names = [f"{i.name} as {i.alias}" if i.alias else str(i.name) for i in grouped[line]]
            one = f"{indent}from {line} import {', '.join(names)}"
            if len(one) <= WIDTH:
                rendered.append(one)
            else:
                inner: list[list[str]] = [[]]  # the names packed into lines that fit the column
                for name in names:
                    if inner[-1] and len(f"{indent}    {', '.join([*inner[-1], name])},") > WIDTH:
                        inner.append([])
                    inner[-1].append(name)
                inner = [f"{indent}    {', '.join(part)}" + ("," if part is not inner[-1] else "") for part in inner]
                rendered += [f"{indent}from {line} import (", *inner, f"{indent})"]
        else:
            rendered.append(line)
    return rendered


def placed(codes: list[str], in_lesson: list[bool]) -> list[str]:
    """The codes of a page's blocks, in page order: those of the lesson (`in_lesson`: unfolded and shown) trimmed
    (`trimmed`), and every import in the lesson block that first uses its name, even when a folded box above
    imported it (a folded box that uses a name first gets its import too)."""
    codes = [_trimmed_if_python(code) if lesson else code for code, lesson in zip(codes, in_lesson, strict=True)]
    offered: list[Imported] = []  # imported above, and not by the lesson yet
    in_the_lesson: set[str] = set()  # the names the lesson's blocks imported so far
    result = []
    for code, lesson in zip(codes, in_lesson, strict=True):
        try:
            tree = ast.parse(code)
        except SyntaxError:
            result.append(code)
            continue
        lines = code.splitlines()
        top = [statement for statement in tree.body if _imports(statement)]
        rest = ast.Module(body=[s for s in tree.body if not _imports(s)], type_ignores=[])
        used = _used(rest)
        own = {item.bound for statement in top for item in _imports(statement)}
        wanted = _needed(rest) - own - in_the_lesson
        arriving = list({item.bound: item for item in offered if item.bound in wanted}.values())
        for statement in top:
            items = _imports(statement)
            offered += [item for item in items if item.bound not in used or not lesson]
        if lesson:
            in_the_lesson |= {item.bound for item in arriving} | (own & used)
            offered = [item for item in offered if item.bound not in in_the_lesson]
            for statement in reversed(top):
                items = _imports(statement)
                kept = [item for item in items if item.bound in used]
                if len(kept) != len(items):
                    lines[statement.lineno - 1 : statement.end_lineno] = render(kept)
        if arriving:  # at the top of the block
            lines[0:0] = render(arriving) + ([""] if not top else [])
        result.append("\n".join(_without_blank_runs(lines)) + "\n")
    return result


def _without_blank_runs(lines: list[str]) -> list[str]:
    """No empty line first, and no more than two in a row (where imports were removed)."""
    kept: list[str] = []
    for line in lines:
        if not line.strip() and (not kept or (len(kept) >= 2 and not kept[-1].strip() and not kept[-2].strip())):
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def shown_codes(markdown: str, read_section: Callable[[str, str | None], str]) -> list[tuple[Fence, str]]:
    """Each include fence of a page with the code it shows. `read_section(path, name)` gives a section's text."""
    lines = markdown.splitlines()
    found = fences(lines)
    codes = ["".join(read_section(include.path, include.section) for include in fence.includes) for fence in found]
    return list(zip(found, placed(codes, [fence.in_lesson for fence in found]), strict=True))


def expand(markdown: str, read_section: Callable[[str, str | None], str]) -> str:
    """The page with each include fence's lines replaced by the code it shows."""
    lines = markdown.splitlines(keepends=True)
    for fence, code in reversed(shown_codes(markdown, read_section)):
        body = [fence.indent + line + "\n" if line.strip() else "\n" for line in code.splitlines()]
        lines[fence.start + 1 : fence.end] = body
    return "".join(lines)


def section_reader(root) -> Callable[[str, str | None], str]:
    """`read_section` for a checkout: what pymdownx.snippets includes (a named section, dedented)."""

    def read(path: str, name: str | None) -> str:
        text = (root / path).read_text(encoding="utf-8")
        if name is None:
            return text
        body = sections.section_text(text, name)
        if body is None:
            raise LookupError(f"section {name!r} not found in {path}")
        return textwrap.dedent(body + "\n")

    return read
