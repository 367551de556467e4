"""The core path shows what attention computes, not mostly that it equals something: at most a fifth of the
printed outputs a reader meets unfolded on a core chapter are equality lines ("largest difference ...",
"... : True"). Equality checks go in a folded "How we know this is right" box beside what they check.

`python tests/site/test_equality_outputs.py` prints the count per chapter from the last build's runs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: find conftest and snippets as pytest does
    sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import pytest
from conftest import executed_chapters, stdout_of
from snippets import chapter_pages, folded_blocks, page_name

from tutorial_tools import contents, sections

MOST = 0.2  # of a core chapter's unfolded printed outputs
EQUALITY = re.compile(
    r"largest difference|difference from|allclose|equals? |same as|: (True|False)\b|\bmatch(es)?\b", re.IGNORECASE
)


def is_equality(output: str) -> bool:
    """Whether at least half of an output's lines report an equality or a difference."""
    lines = [line for line in output.splitlines() if line.strip()]
    return bool(lines) and 2 * sum(bool(EQUALITY.search(line)) for line in lines) >= len(lines)


def outputs_by_section(run: dict) -> dict[str, str]:
    sections_of = [cell.get("metadata", {}).get("section") for cell in run["cells"] if cell["cell_type"] == "code"]
    return dict(zip(sections_of, stdout_of(run), strict=True))


def unfolded_outputs(page: Path, run: dict) -> list[str]:
    """What each unfolded `python run` block of `page` prints, from the chapter's run."""
    printed = outputs_by_section(run)
    found = []
    for block, folded in folded_blocks(page):
        if folded or not block.executed or 'run="markdown"' in block.options:
            continue
        includes = [sections.include(line) for line in block.body]
        text = "".join(printed.get(i.section, "") for i in includes if i and i.path.startswith("docs/"))
        if text.strip():
            found.append(text)
    return found


CORE = [page for page in chapter_pages() if contents.part(contents.by_slug()[page_name(page)]) == "core"]


def test_the_classifier_tells_an_equality_line_from_a_result():
    assert is_equality("largest difference from MultiHeadAttention: 0.0e+00\n")
    assert is_equality("x (2, 5)\nsame as the module: True\n")
    assert not is_equality("output:  (2, 5, 16) (B, T, d_model)\nweights: (2, 4, 5, 5)\n")
    assert not is_equality("")


@pytest.mark.parametrize("page", CORE, ids=page_name)
def test_equality_lines_are_at_most_a_fifth_of_a_core_chapters_outputs(site, page):
    outputs = unfolded_outputs(page, executed_chapters()[page_name(page)])
    equal = [output.splitlines()[0] for output in outputs if is_equality(output)]
    assert len(equal) <= MOST * len(outputs), (
        f"{page_name(page)}: {len(equal)} of {len(outputs)} unfolded outputs are equality lines ({equal[:3]}); "
        'fold them in a `??? info "How we know this is right: ..."` box'
    )


if __name__ == "__main__":
    runs = executed_chapters()
    for page in chapter_pages():
        outputs = unfolded_outputs(page, runs[page_name(page)])
        equal = sum(map(is_equality, outputs))
        print(f"{page_name(page):30} {equal:2} of {len(outputs):2} unfolded outputs are equality lines")
