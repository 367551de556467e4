"""Every Python block on a page is included from tutorial_code, the blocks of a page run as one program,
and every block a reader sees runs after the blocks shown before it.

Each page with code has a chapter script, `docs/<chapter>/script.py` (the home
page's is `docs/overview/script.py`). Its sections appear on the page in the script's order, so the
chapter command prints exactly what the page shows.
"""

import ast
import builtins
import re
import subprocess
import symtable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT, notebook_stdout, prepared_command, prepared_env
from snippets import DOCS, page_name, pages, python_blocks

from sitebuild.in_chapter.recorded_runs import recorded_functions
from tutorial_tools import sections
from tutorial_tools.contents import CHAPTERS

PAGES_WITH_CODE = [p for p in pages() if python_blocks(p)]
CHAPTER_OF_PAGE = {chapter.page_path: chapter.slug for chapter in CHAPTERS}
BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__doc__"}


def chapter_of(page) -> str:
    return CHAPTER_OF_PAGE.get(page.relative_to(DOCS).as_posix(), page_name(page))


@pytest.mark.parametrize("page", pages(), ids=page_name)
def test_no_python_is_typed_into_a_page(page):
    typed = {i: b.typed_lines() for i, b in enumerate(python_blocks(page)) if b.typed_lines()}
    assert typed == {}, f"{page_name(page)}: include code with --8<-- from tutorial_code instead of typing it"


@pytest.mark.parametrize(
    "page", [p for p in PAGES_WITH_CODE if any(b.executed for b in python_blocks(p))], ids=page_name
)
def test_page_runs_every_section_of_its_chapter_script_in_order(page):
    script = ROOT / "docs" / chapter_of(page) / "script.py"
    assert script.exists(), f"{page_name(page)} executes code but has no chapter script {script.relative_to(ROOT)}"
    in_script = [
        found[1]
        for found in map(sections.marker, script.read_text(encoding="utf-8").splitlines())
        if found and found[0] == "start"
    ]
    on_page = [
        include.section
        for block in python_blocks(page)
        if block.executed
        for include in map(sections.include, block.body)
        if include and include.path == script.relative_to(ROOT).as_posix()
    ]
    assert on_page == in_script


def normalize(output: str) -> str:
    # The only numbers allowed to differ between two runs are wall-clock times.
    output = re.sub(r"\d+\.\d+ (s|times)\b", r"<time> \1", output)
    return re.sub(r"(?m)^ *\d+ +\d+\.\d +\d+\.\d +\d+\.\d$", "<timing row>", output)


def with_recorded_runs_imported(code: str) -> str:
    """`code` with each definition of a recorded comparison (`@recorded` in tutorial_code) replaced by an import
    of the library's function. A reader who pastes the definition trains every seed (minutes, and timings of
    their own); the build read the comparison from benchmarks/recorded-runs.json, and so does the test."""
    recorded = recorded_functions(ROOT)
    tree = ast.parse(code)
    lines = code.splitlines()
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name in recorded:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            lines[first : node.end_lineno] = [f"from {recorded[node.name]} import {node.name}"]
    return "\n".join(lines)


def test_a_pasted_recorded_comparison_is_imported_instead():
    code = "import torch\n\n\ndef held_out_mse_per_seed(steps):\n    return [steps]\n\n\nx = 1\n"
    assert with_recorded_runs_imported(code).splitlines() == [
        "import torch", "", "", "from tutorial_code.sum_task import held_out_mse_per_seed", "", "", "x = 1"
    ]  # fmt: skip


@pytest.fixture(scope="module")
def pasted_programs(site, tmp_path_factory) -> Path:
    """Every page's blocks pasted into one file each, all run by one process (tests/run_programs.py: each as a
    fresh process runs it, without 17 imports of PyTorch); the folder of the programs and what they printed."""
    folder = tmp_path_factory.mktemp("pasted")
    programs = []
    for page in PAGES_WITH_CODE:
        program = folder / f"{page_name(page)}.py"
        program.write_text("\n".join(with_recorded_runs_imported(b.code()) for b in python_blocks(page)), "utf-8")
        programs.append(str(program))
    command = prepared_command(str(ROOT / "tests" / "run_programs.py"))
    result = subprocess.run(
        [*command, *programs], capture_output=True, text=True, cwd=folder, timeout=900, env=prepared_env()
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return folder


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=page_name)
def test_copying_the_blocks_in_order_gives_a_program_that_prints_the_page(site, page, pasted_programs):
    """A reader pastes every block of the page into one file: it runs and prints what the page's chapter
    printed when the site was built (its notebook's outputs). Trainings the build already did are reused, and
    recorded comparisons are read from their record (`with_recorded_runs_imported`)."""
    error = pasted_programs / f"{page_name(page)}.err"
    assert not error.exists(), error.read_text(encoding="utf-8")[-3000:]
    printed = (pasted_programs / f"{page_name(page)}.out").read_text(encoding="utf-8")
    assert normalize(printed) == normalize(notebook_stdout(site, chapter_of(page)))


class ShownCode(HTMLParser):
    """The text of every Python code block in a built page, in page order (output blocks are `text`).

    The solution of a find-the-bug exercise shows the repair as a diff, after a line that says what the bug was:
    the reader's starter file holds the rest, so a Python block there is left out (`bug_solutions` counts them).
    """

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self.depth = 0  # inside a <div class="language-python ..."> once > 0
        self.details = 0  # inside a <details> once > 0
        self.in_bug_solution = False
        self.bug_solutions = 0

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        self.details += tag == "details"
        if self.depth:
            self.depth += tag == "div"
        elif tag == "div" and "language-python" in classes:
            self.depth = 1
            self.blocks.append("")
        elif tag == "div" and "language-diff" in classes and self.in_bug_solution:
            self.bug_solutions += 1  # the repair as a diff: no Python to run

    def handle_endtag(self, tag):
        if self.depth and tag == "div":
            self.depth -= 1
            if not self.depth and self.in_bug_solution:
                self.blocks.pop()
                self.bug_solutions += 1
        if tag == "details":
            self.details -= 1
            self.in_bug_solution = self.in_bug_solution and self.details > 0

    def handle_data(self, data):
        if self.depth:
            self.blocks[-1] += data
        elif self.details and data.strip() == "The bug:":
            self.in_bug_solution = True


def unresolved_names(source: str, known: set[str]) -> set[str]:
    """Names that `source` reads but neither defines nor imports, and that are not in `known` or builtins.

    Module-level code must find its names defined before it runs; a function or class body finds
    names at call time, so the names defined anywhere in the same block count too.
    """
    table = symtable.symtable(source, "<block>", "exec")
    defined = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    missing = {
        s.get_name()
        for s in table.get_symbols()
        if s.is_referenced() and not (s.is_assigned() or s.is_imported()) and s.get_name() not in known
    }
    pending = list(table.get_children())
    while pending:
        scope = pending.pop()
        pending.extend(scope.get_children())
        for symbol in scope.get_symbols():
            if symbol.is_global() and symbol.is_referenced() and symbol.get_name() not in known | defined:
                missing.add(symbol.get_name())
    return missing - BUILTINS


@pytest.mark.parametrize("page", [p for p in PAGES_WITH_CODE if any(b.shown for b in python_blocks(p))], ids=page_name)
def test_every_shown_block_uses_only_names_that_the_blocks_shown_before_it_define(site, page):
    """Copied in order, each block a reader sees works: no function calls a helper the page never shows."""
    relative = page.relative_to(DOCS)  # masks/index.md is masks/index.html, notebooks.md notebooks/index.html
    folder = relative.parent if page.name == "index.md" else relative.with_suffix("")
    html = site / folder / "index.html"
    parser = ShownCode()
    parser.feed(html.read_text(encoding="utf-8"))
    assert parser.blocks, f"no Python block found in {html}"
    known: set[str] = set()
    problems = {}
    for index, block in enumerate(parser.blocks):
        missing = unresolved_names(block, known)
        if missing:
            problems[f"block {index + 1}: {block.strip().splitlines()[0][:60]}"] = sorted(missing)
        table = symtable.symtable(block, "<block>", "exec")
        known |= {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    assert problems == {}, f"{page_name(page)}: names used before any shown block defines them"
    assert parser.bug_solutions == page.read_text(encoding="utf-8").count("**The bug:**")


def test_only_the_blocks_of_find_the_bug_solutions_are_left_out():
    html = (
        '<div class="language-python"><pre>a = 1</pre></div>'
        '<details class="success"><summary>Solution</summary><p>Plain.</p>'
        '<div class="language-python"><pre>b = a</pre></div></details>'
        '<details class="success"><summary>Solution</summary><p><strong>The bug:</strong> a flipped mask.</p>'
        '<div class="language-python"><div><pre>c = hidden</pre></div></div></details>'
        '<div class="language-python"><pre>d = b</pre></div>'
    )
    parser = ShownCode()
    parser.feed(html)
    assert parser.blocks == ["a = 1", "b = a", "d = b"]
    assert parser.bug_solutions == 1


def test_the_self_contained_check_catches_a_hidden_helper():
    helper_only_in_the_package = "def padding_mask(lengths):\n    return _describe(lengths)\n"
    assert unresolved_names(helper_only_in_the_package, set()) == {"_describe"}
    assert unresolved_names(helper_only_in_the_package, {"_describe"}) == set()
    assert unresolved_names("class Encoder:\n    layer = EncoderLayer\n", set()) == {"EncoderLayer"}
    assert unresolved_names("import torch\nx = torch.zeros(1)\nprint(len(x))", set()) == set()
