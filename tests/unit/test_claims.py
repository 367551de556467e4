"""The claim helper, and every claim of the chapter scripts: well formed, and its sentence is on its page."""

import re

import pytest
from conftest import ROOT

from sitebuild.claims import Claim, ClaimSourceError, broken, claims_in, holds
from tutorial_code.claims import ClaimError, check, claim

CHAPTERS = sorted((ROOT / "tutorial_code" / "chapters").glob("[!_]*.py"))
ALL_CLAIMS = [(script.stem, found) for script in CHAPTERS for found in claims_in(script.read_text("utf-8"))]


def page_text(page: str) -> str:
    """A page's Markdown as plain words: emphasis, code marks and links removed, whitespace collapsed."""
    text = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](link) -> text
    text = re.sub(r"[*`]", "", text)
    return " ".join(text.split())


def test_a_false_claim_names_the_page_and_the_sentence():
    check(1 < 2, "masks: one is less than two")
    with pytest.raises(ClaimError, match=r'docs/masks\.md says "one is more than two"'):
        check(1 > 2, "masks: one is more than two")


def test_outside_the_build_a_false_claim_is_a_note(capsys):
    claim(1 > 2, "masks: one is more than two")
    assert 'Note: this run does not show what docs/masks.md says ("one is more than two")' in capsys.readouterr().out


def test_the_build_makes_claims_strict():
    import tutorial_code.claims as claims_module
    from sitebuild.claims import install

    original = claims_module.claim
    try:
        records = install(['claim(a > b, "masks: a beats b")'])
        a, b = 1, 2  # noqa: F841 - read by the recorder from this frame
        with pytest.raises(ClaimError):
            claims_module.claim(a > b, "masks: a beats b")
        assert records == [{"statement": "masks: a beats b", "condition": "a > b", "values": {"a": 1, "b": 2}}]
    finally:
        claims_module.claim = original


@pytest.mark.parametrize("statement", ["no page given", "two words: sentence", ": no page"])
def test_a_statement_without_its_page_is_refused(statement):
    with pytest.raises(ValueError, match="page: sentence"):
        check(True, statement)


def test_a_nan_condition_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        check(float("nan"), "masks: NaN is neither")


def test_claims_are_found_with_the_names_their_condition_reads():
    source = "claim(statistics.mean(a) < min(b) and all(x > c for x in d), 'best_practices: a sentence')"
    (found,) = claims_in(source)
    assert found == Claim(
        "best_practices: a sentence", "statistics.mean(a) < min(b) and all((x > c for x in d))", ("a", "b", "c", "d")
    )
    assert holds(found, {"a": [1, 2], "b": [3], "c": 0, "d": [1]})
    assert not holds(found, {"a": [1, 2], "b": [3], "c": 5, "d": [1]})


def test_a_claim_whose_sentence_is_not_a_literal_is_refused():
    with pytest.raises(ClaimSourceError, match="literal sentence"):
        claims_in("claim(a < b, f'masks: {a}')")


def test_broken_values_keep_their_shape():
    assert all(isinstance(value, float) for value in broken(2.5))
    assert all(len(value) == 3 for value in broken([1.0, 2.0, 3.0]))
    assert [True] == list(broken(False))


def test_the_chapters_make_claims():
    pages = {found.page for _, found in ALL_CLAIMS}
    assert len(ALL_CLAIMS) >= 10, ALL_CLAIMS
    assert len(pages) >= 6, pages


@pytest.mark.parametrize(("chapter", "found"), ALL_CLAIMS, ids=[f"{c}: {f.sentence[:40]}" for c, f in ALL_CLAIMS])
def test_every_claim_sentence_stands_on_its_page(chapter, found):
    assert (ROOT / "docs" / f"{found.page}.md").exists(), f"{chapter}: no page docs/{found.page}.md"
    assert found.sentence.lower() in page_text(found.page).lower(), (
        f"chapter {chapter} checks the sentence {found.sentence!r}, which docs/{found.page}.md no longer says"
    )
    assert found.names, f"{found.statement!r} reads no measured value"


def test_every_statement_is_made_once():
    statements = [found.statement for _, found in ALL_CLAIMS]
    assert len(statements) == len(set(statements))
