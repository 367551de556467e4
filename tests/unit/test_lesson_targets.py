"""Each core chapter is a lesson a newcomer reads in one sitting (issue "The lesson, then the lab"): what is
unfolded is at most 1,300 words and 8 Python blocks, the core path at most 9,000 words, and the shown code holds
only the computing lines. Everything else is one click away: the lab at the end of the page, folded as a whole,
or a folded box. `python scripts/lesson_stats.py --lessons` prints the table these tests hold."""

import pytest
from conftest import ROOT
from lesson_measures import measure

from tutorial_tools import contents

MAX_WORDS = 1300  # unfolded words of one core chapter's lesson, its exercises included
MAX_BLOCKS = 8  # unfolded Python blocks whose code a reader sees
MAX_CORE_WORDS = 9000  # chapters 1 to 9 together

CORE = [chapter for chapter in contents.CHAPTERS if contents.part(chapter) == "core"]


def lesson(chapter):
    return measure(ROOT / "docs" / chapter.page_path)


@pytest.mark.parametrize("chapter", CORE, ids=lambda chapter: chapter.slug)
def test_a_core_lesson_reads_in_one_sitting(chapter):
    found = lesson(chapter)
    assert found.words <= MAX_WORDS, (
        f"{chapter.slug}: {found.words} unfolded words; move into the lab what a newcomer does not need to "
        "write the next chapter's code"
    )
    assert found.blocks <= MAX_BLOCKS, (
        f"{chapter.slug}: {found.blocks} unfolded blocks; fold the complete versions or move measurements into the lab"
    )


def test_the_core_path_reads_in_a_few_sittings():
    words = sum(lesson(chapter).words for chapter in CORE)
    assert words <= MAX_CORE_WORDS, f"the core path has {words} unfolded words"


@pytest.mark.parametrize("chapter", CORE, ids=lambda chapter: chapter.slug)
def test_the_lesson_code_shows_the_computing_lines_only(chapter):
    found = lesson(chapter)
    assert found.unused_imports == [], f"{chapter.slug}: imports that its block never uses: {found.unused_imports}"
    assert found.docstring_lines == 0, f"{chapter.slug}: {found.docstring_lines} docstring lines beyond the first"
    assert found.check_calls == 0, f"{chapter.slug}: {found.check_calls} input checks in unfolded code"


@pytest.mark.parametrize("chapter", CORE, ids=lambda chapter: chapter.slug)
def test_a_common_mistake_quotes_no_number_typed_by_hand(chapter):
    """What the source articles printed belongs on the corrections page; a learner's mistake is shown with the
    page's own numbers, printed by its code."""
    assert lesson(chapter).typed_numbers_in_mistakes == []


def test_the_measure_counts_what_is_unfolded_and_finds_each_kind_of_excess(tmp_path, monkeypatch):
    import lesson_measures

    (tmp_path / "code.py").write_text(
        '# --8<-- [start:f]\nimport math\nimport torch\n\n\ndef f(x):\n    """One.\n\n    Two.\n    """\n'
        "    check_width(x)\n    return torch.relu(x)\n# --8<-- [end:f]\n",
        encoding="utf-8",
    )
    page = tmp_path / "page.md"
    page.write_text(
        '# A page\n\nThree words here.\n\n```python\n--8<-- "code.py:f"\n```\n\n'
        '!!! warning "A common mistake"\n    Reporting 8.23 by hand.\n\n'
        '??? note "Folded"\n\n    Many folded words that count for nothing at all.\n\n    ```python\n'
        '    --8<-- "code.py:f"\n    ```\n',
        encoding="utf-8",
    )
    import snippets

    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    found = lesson_measures.measure(page)
    assert found.blocks == 1
    assert found.typed_numbers_in_mistakes == ["8.23"]
    assert found.words == len("A page Three words here A common mistake Reporting 8 23 by hand".split())
    # the shown code is the lesson's view: one docstring line, no check, and only the imports it uses
    assert found.unused_imports == [] and found.docstring_lines == 0 and found.check_calls == 0
    assert found.imports == 1
