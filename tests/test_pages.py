"""Every Python block on a page is included from tutorial_code, and the blocks of a page run as one program.

Each page with code has a chapter script, `tutorial_code/chapters/<page>.py` (the home
page's is `overview.py`). Its sections appear on the page in the script's order, so the
chapter command prints exactly what the page shows.
"""

import re
import subprocess
import sys

import pytest
from conftest import cached_env
from snippets import INCLUDE, ROOT, pages, python_blocks

PAGES_WITH_CODE = [p for p in pages() if python_blocks(p)]
SCRIPT_FOR_PAGE = {"index": "overview"}


def chapter_of(page) -> str:
    return SCRIPT_FOR_PAGE.get(page.stem, page.stem)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_no_python_is_typed_into_a_page(page):
    typed = {i: b.typed_lines() for i, b in enumerate(python_blocks(page)) if b.typed_lines()}
    assert typed == {}, f"{page.name}: include code with --8<-- from tutorial_code instead of typing it"


@pytest.mark.parametrize(
    "page", [p for p in PAGES_WITH_CODE if any(b.executed for b in python_blocks(p))], ids=lambda p: p.name
)
def test_page_runs_every_section_of_its_chapter_script_in_order(page):
    script = ROOT / "tutorial_code" / "chapters" / f"{chapter_of(page)}.py"
    assert script.exists(), f"{page.name} executes code but has no chapter script {script.name}"
    in_script = re.findall(r"^# --8<-- \[start:([\w-]+)\]", script.read_text(encoding="utf-8"), flags=re.M)
    on_page = [
        INCLUDE.match(line)["section"]
        for block in python_blocks(page)
        if block.executed
        for line in block.body
        if INCLUDE.match(line) and INCLUDE.match(line)["path"] == script.relative_to(ROOT).as_posix()
    ]
    assert on_page == in_script


def run(*args: str) -> str:
    # Trained models come from the build's result cache when it has them (tutorial_code.result_cache):
    # the program still runs every line, it only skips re-training what the same code already trained.
    result = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600, env=cached_env()
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def normalize(output: str) -> str:
    # The only numbers allowed to differ between two runs are wall-clock times.
    output = re.sub(r"\d+\.\d+ s\b", "<time> s", output)
    return re.sub(r"(?m)^ *\d+ +\d+\.\d +\d+\.\d +\d+\.\d$", "<timing row>", output)


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_copying_the_blocks_in_order_gives_a_program_that_prints_the_page(page):
    """A reader pastes every block of the page into one file: it runs and prints what the
    chapter command (and so the page) prints."""
    whole_program = "\n".join(b.code() for b in python_blocks(page))
    chapter_output = run("-m", f"tutorial_code.chapters.{chapter_of(page)}")
    assert normalize(run("-c", whole_program)) == normalize(chapter_output)
