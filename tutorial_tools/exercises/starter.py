"""Starter files: the reference code of an exercise with its bodies removed, or with one mistake planted.

The starter is made from the same named sections of `tutorial_code` that the chapter page shows,
so it keeps their signatures, docstrings (with shapes) and imports.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import re
import textwrap
from pathlib import Path

from tutorial_tools import sections
from tutorial_tools.exercises.catalogue import Exercise
from tutorial_tools.language import say


def module_path(module: str) -> Path:
    """The source file of a `tutorial_code` module."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise LookupError(f"no module {module!r}")
    return Path(spec.origin)


def section(module: str, name: str) -> str:
    """The text of section `name` of a module, as its chapter page shows it."""
    text = sections.section_text(module_path(module).read_text(encoding="utf-8"), name)
    if text is None:
        raise LookupError(f"{module} has no section {name!r}")
    return text.strip("\n") + "\n"


def reference_code(exercise: Exercise) -> str:
    """The exercise's imports and sections, as the page's solution shows them."""
    imports = exercise.imports if exercise.imports is not None else section(exercise.module, "imports")
    return "\n\n".join([imports.strip("\n") + "\n"] + [section(exercise.module, name) for name in exercise.sections])


def layout_free(text: str) -> re.Pattern:
    """A pattern that finds `text` in code however the formatter laid it out: line breaks and
    indentation may differ, brackets may open or close a wrapped line, a trailing comma may appear,
    and comments may stand elsewhere (a comment in `text` is left out of the pattern)."""
    gap = r"(?:\s|#[^\n]*)*"  # white space and whole comments
    body = re.sub(r"(^|\s)#[^\n]*", r"\1", text).strip()
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    parts = [re.escape(lead)]
    for token in re.findall(r"\s+|.", body, re.S):
        if token.isspace():
            parts.append(gap)
        elif token in ")]}":
            parts.append(r",?" + gap + re.escape(token))
        elif token in "([{,":
            parts.append(re.escape(token) + gap)
        else:
            parts.append(re.escape(token))
    return re.compile("".join(parts) + re.escape(trail))


def occurrences(code: str, text: str) -> int:
    """How many times `text` stands in `code`, whatever its layout."""
    return len(layout_free(text).findall(code))


def plant(code: str, correct: str, planted: str, what: str = "the mistake") -> str:
    """`code` with its one occurrence of `correct` (whatever its layout) replaced by `planted`."""
    found = occurrences(code, correct)
    if found != 1:
        raise LookupError(f"{what} needs {correct!r} exactly once in the reference, found {found}")
    return layout_free(correct).sub(lambda _: planted, code)


def fix_diff(exercise: Exercise, context: int = 2) -> str:
    """The repair of a find-the-bug exercise as a diff: `-` the planted lines, `+` the correct ones,
    with `context` unchanged lines around them (`...` between two changes far apart)."""
    if exercise.bug is None:
        raise ValueError(f"{exercise.name} is not a find-the-bug exercise: it has no diff")
    texts = [section(exercise.module, name) for name in exercise.sections]
    (fixed,) = [text for text in texts if occurrences(text, exercise.bug[0]) == 1]
    planted = plant(fixed, *exercise.bug, what=f"{exercise.name}: the planted bug")
    lines = []
    diff = difflib.unified_diff(planted.splitlines(), fixed.splitlines(), lineterm="", n=context)
    for line in list(diff)[2:]:  # after the two file headers
        if line.startswith("@@"):
            if lines:
                lines.append(" ...")
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


def starter_code(exercise: Exercise, language: str = "en") -> str:
    """The file `transformer-tutorial exercise NAME` writes: a header, then the code to complete or repair.
    The header is in `language` (`tutorial_tools.language`); the code is the page's, as the page shows it."""
    code = reference_code(exercise)
    if exercise.bug is not None:
        code = plant(code, *exercise.bug, what=f"{exercise.name}: the planted bug")
    code = _without_bodies(code, exercise.write)
    what = (
        "Find the mistake and fix it, then run:"
        if exercise.bug
        else "Write the code where `raise NotImplementedError` stands, then run:"
    )
    lines = [
        f"Exercise `{exercise.name}` (chapter: {exercise.chapter}).",
        f"{say(exercise.title, language)}{'。' if language == 'zh' else '. '}{say(exercise.task, language)}",
        say(what, language),
        f"    transformer-tutorial check {exercise.name}",
        say("The solution is on the chapter's page, folded.", language),
    ]
    lines[0] = say(lines[0], language)
    if language == "en":
        lines[1] = textwrap.fill(lines[1], 100)
    return '"""' + "\n\n".join(lines) + '\n"""\n\n' + code


def _without_bodies(code: str, targets: tuple[str, ...]) -> str:
    """Replace the body of each function or method named in `targets` ("f", "Class.method") by a raise."""
    tree = ast.parse(code)
    found: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            found.update({f"{node.name}.{item.name}": item for item in node.body if isinstance(item, ast.FunctionDef)})
    lines = code.splitlines(keepends=True)
    for target in sorted(targets, key=lambda name: found[name].lineno, reverse=True):
        function = found[target]
        body = function.body
        has_docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
        first = body[1] if has_docstring and len(body) > 1 else body[0]
        start = (body[0].end_lineno if has_docstring else first.lineno - 1) or 0
        indent = " " * first.col_offset
        lines[start : function.end_lineno] = [f'{indent}raise NotImplementedError("write {target}")\n']
    return "".join(lines)
