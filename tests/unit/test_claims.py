"""The checks of the chapters' measured sentences: well formed, kept out of the code readers copy, each sentence on
its page, each check run after a section its chapter has, and none reading a live timing."""

import ast
import re

import pytest
from conftest import ROOT
from snippets import page_file

from sitebuild.in_chapter.claims import CheckInputError, Checks, ClaimError, broken, check, claims_of, run_after
from sitebuild.in_mkdocs.chapters import chapter_scripts, read_notebook

CHAPTERS = chapter_scripts(ROOT)
ALL_CLAIMS = [(name, found) for name in CHAPTERS for found in claims_of(name, ROOT)]

#: Calls that measure time while the chapter runs: their results vary with the machine's load.
TIMERS = {"time_layers", "median_ms", "perf_counter", "monotonic", "time", "Timer", "timeit", "generation_speed"}


def timed_names(source: str) -> set[str]:
    """The names of a chapter that hold a live timing or a value computed from one, followed through assignments
    and loops."""
    tainted: set[str] = set()

    def reads_timing(node: ast.AST) -> bool:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in tainted:
                return True
            if isinstance(inner, ast.Call):
                called = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
                if called in TIMERS:
                    return True
        return False

    def taint(node: ast.AST) -> None:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.For | ast.comprehension):
            targets, value = [node.target], node.iter
        if value is not None and reads_timing(value):
            tainted.update(name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name))

    nodes, size = list(ast.walk(ast.parse(source))), -1
    while size != len(tainted):  # until nothing new is tainted: a loop body may read a name assigned later on
        size = len(tainted)
        for node in nodes:
            taint(node)
    return tainted


def page_text(page: str) -> str:
    """A page's Markdown as plain words: emphasis, code marks and links removed, whitespace collapsed."""
    text = page_file(page).read_text(encoding="utf-8")
    if page == "troubleshooting":  # the table's Cause and Fix prose is written beside the code that reproduces it
        from tutorial_code.troubleshooting import PROBLEMS

        text += " ".join(f" {problem.cause} {problem.fix}" for problem in PROBLEMS)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](link) -> text
    text = re.sub(r"[*`]", "", text)
    return " ".join(text.split())


def test_a_false_claim_names_the_page_and_the_sentence():
    check(1 < 2, "masks: one is less than two")
    with pytest.raises(ClaimError, match=r'docs/masks\.md says "one is more than two"'):
        check(1 > 2, "masks: one is more than two")


@pytest.mark.parametrize("statement", ["no page given", "two words: sentence", ": no page"])
def test_a_statement_without_its_page_is_refused(statement):
    with pytest.raises(ValueError, match="page: sentence"):
        check(True, statement)
    with pytest.raises(ValueError, match="page: sentence"):
        Checks().after("section", statement)(lambda: True)


def test_a_nan_condition_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        check(float("nan"), "masks: NaN is neither")


def test_a_check_runs_after_its_section_on_the_chapters_values():
    import torch

    checks = Checks()

    @checks.after("measure", "masks: a beats b")
    def a_beats_b(a, b):
        return a > b

    assert checks.claims[0].names == ("a", "b")
    assert run_after("other", checks.claims, {}) == []  # not its section: not run
    records = run_after("measure", checks.claims, {"a": torch.tensor(3.0), "b": 2, "unrelated": object()})
    assert records == [
        {"statement": "masks: a beats b", "section": "measure", "values": {"a": 3.0, "b": 2}, "holds": True}
    ]
    with pytest.raises(ClaimError, match=r'docs/masks\.md says "a beats b"'):
        run_after("measure", checks.claims, {"a": 1, "b": 2})
    reported = run_after("measure", checks.claims, {"a": 1, "b": 2}, strict=False)  # the robustness script's way
    assert reported[0]["holds"] is False
    with pytest.raises(CheckInputError, match=r"reads b, which the chapter does not define"):
        run_after("measure", checks.claims, {"a": 1})


def test_broken_values_keep_their_shape():
    assert all(isinstance(value, float) for value in broken(2.5))
    assert all(len(value) == 3 for value in broken([1.0, 2.0, 3.0]))
    assert [True] == list(broken(False))


def test_the_chapters_make_claims():
    pages = {found.page for _, found in ALL_CLAIMS}
    assert len(ALL_CLAIMS) >= 40, ALL_CLAIMS
    assert len(pages) >= 9, pages


def test_no_claim_in_the_code_readers_copy():
    """Chapter scripts and the package compute and print; the checks live in each chapter's checks.py."""
    for path in [*CHAPTERS.values(), *sorted((ROOT / "tutorial_code").rglob("*.py"))]:
        calls = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "claim"
        ]
        assert not calls, f"{path.relative_to(ROOT)} calls claim() on lines {calls}"


def test_every_checks_module_belongs_to_a_chapter():
    modules = {path.parent.name for path in (ROOT / "docs").glob("*/checks.py")}
    assert modules <= set(CHAPTERS), modules - set(CHAPTERS)


@pytest.mark.parametrize(("chapter", "found"), ALL_CLAIMS, ids=[f"{c}: {f.sentence[:40]}" for c, f in ALL_CLAIMS])
def test_every_claim_sentence_stands_on_its_page_and_follows_a_section_of_its_chapter(chapter, found):
    page = page_file(found.page).relative_to(ROOT)
    assert (ROOT / page).exists(), f"{chapter}: no page {page}"
    assert found.sentence.lower() in page_text(found.page).lower(), (
        f"chapter {chapter} checks the sentence {found.sentence!r}, which {page} no longer says"
    )
    assert found.section in read_notebook(CHAPTERS[chapter]).sections
    assert found.names, f"{found.statement!r} reads no measured value"


def test_what_each_check_reads_and_that_none_reads_a_live_timing():
    for chapter, found in ALL_CLAIMS:
        print(f"{found.statement}: reads {', '.join(found.names)}")
        timed = set(found.names) & timed_names(CHAPTERS[chapter].read_text(encoding="utf-8"))
        assert not timed, f"{found.statement!r} reads {timed}, which the chapter computes from a live timing"


def test_the_live_timings_are_found():
    source = "rows = time_layers()\nfor row in rows:\n    ratio = row.a / row.b\nother = 3\nstart = time.perf_counter()"
    assert timed_names(source) == {"rows", "row", "ratio", "start"}
    assert "recurrent_ms" not in timed_names(CHAPTERS["why_attention"].read_text(encoding="utf-8"))
    assert {"rows", "ratio"} <= timed_names(CHAPTERS["why_attention"].read_text(encoding="utf-8"))


def test_every_statement_is_made_once():
    statements = [found.statement for _, found in ALL_CLAIMS]
    assert len(statements) == len(set(statements))
