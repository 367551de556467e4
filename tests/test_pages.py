"""Every Python block on a page is included from tutorial_code, and the blocks of a page run as one program."""

import re
import subprocess
import sys

import pytest
from snippets import ROOT, pages, python_blocks

PAGES_WITH_CODE = [p for p in pages() if python_blocks(p)]


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_no_python_is_typed_into_a_page(page):
    typed = {i: b.typed_lines() for i, b in enumerate(python_blocks(page)) if b.typed_lines()}
    assert typed == {}, f"{page.name}: include code with --8<-- from tutorial_code instead of typing it"


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def normalize(output: str) -> str:
    # The only numbers allowed to differ between two runs are wall-clock times.
    return re.sub(r"\d+\.\d+ s\b", "<time> s", output)


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_copying_the_blocks_in_order_gives_a_program_that_prints_the_page(page):
    """A reader pastes every block of the page into one file: it runs and prints what the page shows."""
    all_blocks = python_blocks(page)
    whole_program = "\n".join(b.code() for b in all_blocks)
    shown_output = "\n".join(b.code() for b in all_blocks if b.executed)
    assert normalize(run(whole_program)) == normalize(run(shown_output))
