"""Every word a figure draws has its Chinese, found before the build: the text that a chapter script or a
drawing module hands to matplotlib (titles, axis labels, `ax.text`, legend labels, tick labels) is matched
against the figure words (`i18n/figures.zh.yml`, and `figures:` in the chapter's `strings.zh.yml`), as the
Chinese edition's figures are (`sitebuild.in_mkdocs.editions.figure_in_chinese`).

A text made at run time (an f-string) is matched by its fixed parts; a text passed in a variable is left to
the build, which stops on it with the same advice."""

import ast
import re
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from sitebuild.in_mkdocs import editions

POSITION = {"text": 2, "set_title": 0, "set_xlabel": 0, "set_ylabel": 0, "suptitle": 0, "annotate": 0}
POSITION |= {"supxlabel": 0, "supylabel": 0, "set_label": 0, "set_xticklabels": 0, "set_yticklabels": 0}
KEYWORDS = {"label", "title", "xlabel", "ylabel"}
DRAWING = sorted((ROOT / "tutorial_code" / "diagrams").glob("*.py"))
SCRIPTS = sorted((ROOT / "docs").glob("*/script.py"))


def text_pattern(node: ast.expr) -> re.Pattern[str] | None:
    """A string literal as itself, an f-string with each `{...}` matching any text; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.compile(re.escape(node.value))
    if isinstance(node, ast.JoinedStr):
        parts = [re.escape(v.value) if isinstance(v, ast.Constant) else ".+?" for v in node.values]
        return re.compile("".join(parts))
    return None


def texts(node: ast.expr):
    pattern = text_pattern(node)
    if pattern is not None:
        yield node.lineno, pattern
    elif isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            yield from texts(element)


def drawn_texts(source: str):
    """`(line, pattern)` of each text the source hands to matplotlib."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute | ast.Name):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if name in POSITION and len(node.args) > POSITION[name]:
            yield from texts(node.args[POSITION[name]])
        for keyword in node.keywords:
            if keyword.arg in KEYWORDS:
                yield from texts(keyword.value)


def figure_words(chapter: str | None) -> dict[str, str]:
    """The English figure texts a chapter's figures may draw: the shared ones and the chapter's own; for a
    drawing module (no chapter), the shared ones and every chapter's."""
    words = dict(yaml.safe_load((ROOT / editions.FIGURE_WORDS).read_text(encoding="utf-8")) or {})
    for strings in sorted((ROOT / "docs").glob(f"{chapter or '*'}/{editions.STRINGS}")):
        words |= (yaml.safe_load(strings.read_text(encoding="utf-8")) or {}).get("figures") or {}
    return words


def untranslated(path: Path, chapter: str | None) -> list[str]:
    """Each line of a text drawn in `path` that is English and matches no figure word, with where to add it."""
    phrases = editions.figure_phrases(ROOT, chapter)
    known = list(figure_words(chapter))
    where = (
        f"under `figures:` in docs/{chapter}/{editions.STRINGS} (or in i18n/figures.zh.yml, if several chapters "
        "draw it)"
        if chapter
        else f"to i18n/figures.zh.yml, or under `figures:` in the {editions.STRINGS} of the chapter that draws it"
    )
    problems = []
    for line, pattern in drawn_texts(path.read_text(encoding="utf-8")):
        for piece in re.split(r"\\\n", pattern.pattern):  # one SVG text per line of a text
            fixed = re.sub(r"\.\+\?", "7", piece).replace("\\", "")
            translated = any(p.fullmatch(fixed) for p, _ in phrases)
            translated |= any(re.fullmatch(piece, word) for word in known)
            if not translated and editions.english_words(fixed):
                relative = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                problems.append(f"{relative}:{line} draws {fixed!r}, which has no Chinese: add it {where}")
    return problems


@pytest.mark.parametrize("path", DRAWING + SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_drawn_text_has_its_chinese(path):
    chapter = path.parent.name if path.name == "script.py" else None
    assert untranslated(path, chapter) == []


def test_a_new_word_is_found_and_the_message_says_where_to_add_it(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "ax.set_title('keys a query never saw')\n"
        "ax.text(0, 1, f'step {i} of the loop')\n"
        "ax.set_xlabel(f'key {j}')\n"  # "key {index}" is a shared figure word
        "ax.plot(x, label='42')\n",  # a number stays as drawn
        encoding="utf-8",
    )
    problems = untranslated(script, "masks")
    assert problems == [
        "script.py:1 draws 'keys a query never saw', which has no Chinese: add it under `figures:` in "
        "docs/masks/strings.zh.yml (or in i18n/figures.zh.yml, if several chapters draw it)",
        "script.py:2 draws 'step 7 of the loop', which has no Chinese: add it under `figures:` in "
        "docs/masks/strings.zh.yml (or in i18n/figures.zh.yml, if several chapters draw it)",
    ]
