"""Every claim the build checked, checked again on the values it read, then on broken values.

The build records the values each claim's condition read (`sitebuild.claims`). Here each claim must
hold on them, and for every one of those values there must be another value (reversed, zeroed,
scaled, ...) that makes the same check fail with an error naming the page and the sentence: a check
that no change of an input can fail would guard nothing.
"""

import json

import pytest
from conftest import ROOT

from sitebuild.chapters import chapter_scripts, read_chapter
from sitebuild.claims import broken, claims_in, holds
from tutorial_code.claims import ClaimError, check

PAGES = sorted(
    {found.page for script in chapter_scripts(ROOT).values() for found in claims_in(script.read_text("utf-8"))}
)


def recorded_claims(site) -> list[tuple[str, dict]]:
    """`(chapter, record)` for every claim call of the chapter runs this build used."""
    found = []
    for name, script in chapter_scripts(ROOT).items():
        stored = ROOT / ".cache" / "chapters" / f"{name}-{read_chapter(script).key()}.ipynb"
        assert stored.exists(), f"the build left no run of {name}"
        found += [(name, record) for record in json.loads(stored.read_text("utf-8"))["metadata"].get("claims", [])]
    return found


@pytest.mark.parametrize("page", PAGES)
def test_each_claim_fails_when_any_of_its_inputs_breaks(site, page):
    records = [(chapter, rec) for chapter, rec in recorded_claims(site) if rec["statement"].startswith(f"{page}: ")]
    made = {found.statement for s in chapter_scripts(ROOT).values() for found in claims_in(s.read_text("utf-8"))}
    assert {record["statement"] for _, record in records} == {s for s in made if s.startswith(f"{page}: ")}, (
        "a claim in a chapter script was never checked when the chapter ran"
    )
    for chapter, record in records:
        script = chapter_scripts(ROOT)[chapter]
        (found,) = [c for c in claims_in(script.read_text("utf-8")) if c.statement == record["statement"]]
        values = record["values"]
        assert set(values) == set(found.names), f"{record['statement']}: not every input was recorded"
        assert holds(found, values)
        for name, value in values.items():
            for other in broken(value):
                try:
                    still = holds(found, {**values, name: other})
                except (ArithmeticError, ValueError, TypeError):
                    continue  # a value the measurement could not have given
                if not still:
                    with pytest.raises(ClaimError, match=f'docs/{page}.md says "'):
                        check(still, record["statement"])
                    break
            else:
                pytest.fail(f"{record['statement']!r}: no change of {name!r} makes the check fail")
