"""The English texts the exercises and checks show a learner, and their Chinese in the catalogues: a chapter's
texts in its folder's `docs/<chapter>/cli.zh.yml`, the tools' texts (and any text two chapters share) in
i18n/cli.zh.yml.

    python scripts/cli_strings.py            add every new English text to its catalogue (its Chinese empty),
                                             drop the texts no source holds any more, and list what lacks Chinese
    python scripts/cli_strings.py --check    exit 1 when a text lacks its Chinese (tests/unit/test_cli_language.py)

A text is a string or an f-string of the graders (`docs/<chapter>/graders.py`), of the grading tools
(`tutorial_tools/exercises/`), of the command line's own messages (`tutorial_tools/cli.py` and the modules it
uses; argparse's formats, `tutorial_tools.language.ARGPARSE`), or an exercise's title and description.
An f-string's values become numbered places, `{0}`, `{1}`, which the Chinese keeps, in any order:
`tutorial_tools.language` finds the English around them in what a check says, and puts the values into the
Chinese.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "i18n" / "cli.zh.yml"  # the tools' texts
CHAPTER_CATALOGUE = "cli.zh.yml"  # a chapter's texts, in its folder (tutorial_tools.language.CHAPTER_CATALOGUE)
TOOLS = [
    *(ROOT / "tutorial_tools" / "exercises" / name for name in ("checks.py", "common.py", "grading.py", "commands.py")),
    ROOT / "tutorial_tools" / "exercises" / "starter.py",
    *(ROOT / "tutorial_tools" / name for name in ("cli.py", "arguments.py", "trained_models.py")),
    ROOT / "tutorial_code" / "saved_models.py",
]
WORD = re.compile(r"[A-Za-z]{2,}")


def template(node: ast.AST) -> str | None:
    """The text of a string or f-string, each value of an f-string as a numbered place; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts, number = [], 0
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value).replace("{", "{{").replace("}", "}}"))
            else:
                parts.append(f"{{{number}}}")
                number += 1
        return "".join(parts)
    return None


def shown(text: str) -> bool:
    """Whether a text reads as words to a learner, not as code or a name: two words or more, one of them English."""
    plain = re.sub(r"\{\d+\}", "", text)
    words = len(WORD.findall(plain)) + (plain != text)  # a value counts as a word: "{0}expected {1}"
    return " " in text.strip() and words >= 2 and not plain.lstrip().startswith(("import ", "from "))


def docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def texts_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    inner = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inner:
            continue
        text = template(node)
        if text is not None and shown(text):
            found.append(text)
    return found


def chapter_texts() -> dict[str, list[str]]:
    """Each chapter's texts: its graders' strings, its exercises' titles and tasks."""
    sys.path.insert(0, str(ROOT))
    from tutorial_tools.exercises.catalogue import EXERCISES

    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "docs").glob("*/graders.py")):
        found.setdefault(path.parent.name, []).extend(texts_of(path))
    for exercise in EXERCISES.values():
        found.setdefault(exercise.chapter, []).extend((exercise.title, exercise.task))
    return found


def english_texts() -> dict[Path, list[str]]:
    """Every English text, in source order, once, by the catalogue it belongs to: a text of one chapter only in
    that chapter's, every other in the tools'."""
    from tutorial_tools.language import ARGPARSE

    tools = [text for path in TOOLS for text in texts_of(path)] + list(ARGPARSE)
    chapters = chapter_texts()
    owners: dict[str, set[str]] = {}
    for chapter, texts in chapters.items():
        for text in texts:
            owners.setdefault(text, set()).add(chapter)
    shared = set(tools) | {text for text, names in owners.items() if len(names) > 1}
    found = {CATALOGUE: list(dict.fromkeys(tools + [text for text in owners if text in shared]))}
    for chapter, texts in chapters.items():
        found[ROOT / "docs" / chapter / CHAPTER_CATALOGUE] = list(dict.fromkeys(t for t in texts if t not in shared))
    return found


def read_catalogue() -> dict[str, str]:
    """Every catalogue's entries, the tools' and the chapters'."""
    entries: dict[str, str] = {}
    for path in [CATALOGUE, *sorted((ROOT / "docs").glob(f"*/{CHAPTER_CATALOGUE}"))]:
        entries.update(yaml.safe_load(path.read_text(encoding="utf-8")) or {} if path.exists() else {})
    return entries


def places(text: str) -> list[str]:
    return sorted(re.findall(r"\{\d+\}", text))


HEADER = """\
# The Chinese of what the exercises and checks say (`transformer-tutorial exercise|check --lang zh`, or LANG=zh_CN).
# Keys: the English texts of {owner}, f-string values as {{0}}, {{1}}; written by
# scripts/cli_strings.py, which adds new texts with an empty Chinese. Values: the Chinese, with the same places in
# any order. Code, names and numbers stay as they are. tests/unit/test_cli_language.py fails on an empty value.
"""


def write(path: Path, catalogue: dict[str, str]) -> None:
    if path != CATALOGUE and not catalogue:
        path.unlink(missing_ok=True)
        return
    owner = "the grading tools and the command line"
    if path != CATALOGUE:
        owner = f"the exercises of docs/{path.parent.name}"
    body = yaml.safe_dump(catalogue, allow_unicode=True, sort_keys=False, width=100_000, default_style='"')
    path.write_text(HEADER.format(owner=owner) + body, encoding="utf-8")


def main(argv: list[str]) -> int:
    by_file = english_texts()
    english = [text for texts in by_file.values() for text in texts]
    catalogue = read_catalogue()
    missing = [text for text in english if not catalogue.get(text)]
    wrong = [text for text in english if catalogue.get(text) and places(catalogue[text]) != places(text)]
    if argv[:1] == ["--check"]:
        for text in missing:
            print(f"no Chinese: {text!r}")
        for text in wrong:
            print(f"other places in the Chinese: {text!r} -> {catalogue[text]!r}")
        return 1 if missing or wrong else 0
    for path, texts in by_file.items():
        write(path, {text: catalogue.get(text, "") for text in texts})
    for path in (ROOT / "docs").glob(f"*/{CHAPTER_CATALOGUE}"):  # a chapter whose texts all went
        if path not in by_file:
            path.unlink()
    print(f"{len(english)} texts, {len(missing)} without Chinese, {len(wrong)} with other places: {len(by_file)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
