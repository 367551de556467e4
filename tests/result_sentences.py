"""The sentences of the English pages that state a result: a comparison, a count of seeds, a ratio.

`tests/unit/test_result_sentences.py` fails on every such sentence that no check reads (`docs/<chapter>/checks.py`,
live or recorded) and that the chapter's checks do not list as no result (`checks.not_a_result`), with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from snippets import FENCE

#: Words that make a sentence a comparison or a count, the forms a measured result takes.
RESULT_WORDS = re.compile(
    r"\b(?:more than|less than|fewer than|every seed|each seed|all (?:three |the )?seeds|in each seed"
    r"|on \w+ of (?:the )?\w+ seeds|one of (?:the )?two|twice as"
    r"|\d+(?:\.\d+)? times (?:as|more|less|faster|slower|larger|smaller)"
    r"|half as|faster|slower|larger than|smaller than|higher than|lower than|better than|worse than"
    r"|(?:is|are|was|were|ends?|ended|stays?|stayed|falls?|fell|rises?|rose|lands?|landed) (?:well |far |just )?"
    r"(?:below|above|under|over|lower|higher|worse|better) |ended (?:worse|better|lower|higher)|outperform\w*"
    r"|(?:lowest|highest|largest|smallest|best|worst) (?:on|in|at|with|without)|nothing to gain|rescued)\b",
    flags=re.IGNORECASE,
)
#: Sentences that state a rule for the learner's code, not a result: an exercise's task.
TASKS = re.compile(r"^(?:Raise|Return|Write|Implement|Make|Compute)\b")


def plain(text: str) -> str:
    """Markdown as plain words, as the checks quote it: links, emphasis and code marks removed, spaces collapsed."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[*`]", "", text)
    return " ".join(text.split())


def paragraphs(page: Path) -> Iterator[str]:
    """The prose paragraphs of a page, admonitions' included, without code, tables, figures, HTML or headings."""
    lines, fence, current = page.read_text(encoding="utf-8").splitlines(), None, []
    for line in lines:
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        match = FENCE.match(line)
        if match:
            fence = match["fence"]
            yield from _flush(current)
            continue
        if not stripped or stripped.startswith(("|", "<", "#", "!!!", "???", "--8<--", "![", "$$")):
            yield from _flush(current)
            continue
        current.append(stripped)
    yield from _flush(current)


def _flush(current: list[str]) -> Iterator[str]:
    if current:
        yield plain(" ".join(current))
        current.clear()


def sentences(paragraph: str) -> list[str]:
    """A paragraph cut after each full stop, question or exclamation mark that a capital or a mark follows."""
    return [part for part in re.split(r"(?<=[.!?])\s+(?=[A-Z\"(`$])", paragraph) if part]


def result_sentences(page: Path) -> list[str]:
    """Every sentence of `page` with a result word in it."""
    found = (s for paragraph in paragraphs(page) for s in sentences(paragraph))
    return [s for s in found if RESULT_WORDS.search(s) and not TASKS.match(s)]


def covered(sentence: str, statements: list[str]) -> bool:
    """Whether a checked or listed statement overlaps `sentence`: one holds the other, or they share a stretch of
    40 characters (a check may quote the half of a sentence that states the result, or run over two)."""
    low = sentence.lower()
    for statement in statements:
        other = plain(statement).lower()
        if other in low or low in other:
            return True
        if _shared(low, other) >= min(40, len(other), len(low)):
            return True
    return False


def _shared(a: str, b: str) -> int:
    from difflib import SequenceMatcher

    match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size
