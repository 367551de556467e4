"""No unchecked result sentence: every sentence of an English page that compares or counts (`tests/result_sentences.py`)
is read by a check of its chapter, live or recorded, or is listed as no result, with the reason.

A chapter lists its own in `docs/<chapter>/checks.py` (`checks.not_a_result(sentence, reason)`); the pages that
belong to no chapter list theirs below.
"""

from pathlib import Path

import pytest
from conftest import ROOT
from result_sentences import RESULT_WORDS, covered, result_sentences, sentences
from snippets import page_name, pages

from sitebuild.in_chapter.claims import checks_of

pytestmark = pytest.mark.unit

#: Sentences of the pages that belong to no chapter, which read like results and are not, with the reason.
NOT_RESULTS = {
    "index": {
        "The second line takes PyTorch's CPU build, far smaller than its CUDA build": "an install instruction; "
        "the sizes of the two builds are PyTorch's, not measured here",
    },
    "corrections": {
        "the measured value is lower for every seed the chapter tries": "quotes the feed-forward chapter's checked "
        "sentence, whose check reads that chapter's values (feed_forward_and_norm)",
    },
}

#: The English pages; the API pages (docs/reference) hold docstrings, not prose.
ENGLISH = [page for page in pages() if ".zh." not in page.name and page.parent.name != "reference"]


@pytest.mark.parametrize("page", ENGLISH, ids=[page_name(page) for page in ENGLISH])
def test_every_result_sentence_is_checked_or_listed(page: Path):
    name = page_name(page)
    checks = checks_of(name, ROOT)
    listed = {**checks.not_results, **NOT_RESULTS.get(name, {})}
    statements = [claim.sentence for claim in checks.claims] + list(listed)
    unchecked = [sentence for sentence in result_sentences(page) if not covered(sentence, statements)]
    assert unchecked == [], (
        f"{page.name} ({name}) states results that no check reads: {unchecked}. Check each in docs/{name}/checks.py "
        "(checks.after on this build's values, checks.recorded on a recorded run's), or, if it is no result, list it "
        "there with checks.not_a_result(sentence, reason)"
    )


def test_every_listed_sentence_is_still_on_its_page():
    by_name = {page_name(page): page for page in ENGLISH}
    stale = []
    for name, page in by_name.items():
        listed = {**checks_of(name, ROOT).not_results, **NOT_RESULTS.get(name, {})}
        found = result_sentences(page)
        stale += [f"{name}: {sentence!r}" for sentence in listed if not covered(sentence, found)]
    assert stale == [], f"listed as no result, but no longer a result sentence of its page: {stale}"


def test_the_lint_finds_comparisons_and_counts_of_seeds():
    found = [s for s in sentences("It ended worse on every seed. The code below prints it. It is 3 times faster.")]
    assert [bool(RESULT_WORDS.search(s)) for s in found] == [True, False, True]
    assert covered("Without it, every seed ends lower by more than a point.", ["every seed ends lower"])
    assert not covered("Clipping ended with the largest error on every seed.", ["the loop took about the time"])
