"""Every check the build ran, run again on the values it read, then on broken values.

The build records the values each check read (`sitebuild.in_chapter.claims`). Here each check must hold on them, and for
every one of those values there must be another value (reversed, zeroed, scaled, ...) that makes the same check
fail with an error naming the page and the sentence: a check that no change of an input can fail would guard nothing.
"""

import pytest
from conftest import ROOT, executed_chapters

from sitebuild.in_chapter.claims import ClaimError, broken, check, claims_of
from sitebuild.in_mkdocs.chapters import chapter_scripts

CLAIMS = {found.statement: (name, found) for name in chapter_scripts(ROOT) for found in claims_of(name, ROOT)}
PAGES = sorted({found.page for _, found in CLAIMS.values()})


@pytest.fixture(scope="module")
def recorded_claims(site) -> list[tuple[str, dict]]:
    """`(chapter, record)` for every check the chapter runs of this build made (read once: the stored runs are
    several MB of notebooks)."""
    return [(name, record) for name, run in executed_chapters().items() for record in run["metadata"].get("claims", [])]


@pytest.mark.parametrize("page", PAGES)
def test_each_claim_fails_when_any_of_its_inputs_breaks(recorded_claims, page):
    records = [(chapter, rec) for chapter, rec in recorded_claims if rec["statement"].startswith(f"{page}: ")]
    made = {statement for statement in CLAIMS if statement.startswith(f"{page}: ")}
    assert sorted(record["statement"] for _, record in records) == sorted(made), "each check runs once per chapter run"
    for chapter, record in records:
        owner, found = CLAIMS[record["statement"]]
        assert owner == chapter
        values = record["values"]
        assert set(values) == set(found.names), f"{record['statement']}: not every input was recorded"
        assert found.holds(values)
        for name, value in values.items():
            for other in broken(value):
                try:
                    still = found.holds({**values, name: other})
                except (ArithmeticError, ValueError, TypeError):
                    continue  # a value the measurement could not have given
                if not still:
                    with pytest.raises(ClaimError, match=f'docs/{page}.md says "'):
                        check(still, record["statement"])
                    break
            else:
                pytest.fail(f"{record['statement']!r}: no change of {name!r} makes the check fail")
