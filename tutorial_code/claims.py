"""Sentences that state a measured result, checked on the values a chapter computed.

A page says "clipping keeps a high learning rate in check" because a chapter measured it.
Code changes; the sentence would not. So the chapter states the sentence once more, next to
the numbers, as a condition those numbers must meet:

    claim(clipped_mse < plain_mse, "best_practices: clipping keeps a high learning rate in check")

When the site is built and the condition stops holding, the build stops with an error that names
the page and the sentence ([`check`][tutorial_code.claims.check]), until one of them is fixed. In a
reader's own run, with other settings, a claim that does not hold prints a note instead.
"""

# --8<-- [start:claim]
import math


class ClaimError(AssertionError):
    """A sentence of a page no longer matches what its chapter measured."""


def check(holds: object, statement: str) -> None:
    """Raise [`ClaimError`][tutorial_code.claims.ClaimError] unless a measured result still supports a sentence.

    The site build checks every claim this way, so a sentence that stops holding stops the build.

    Args:
        holds: The condition, computed from the chapter's own values, for example `a < b`.
            Anything with a truth value: a bool, a NumPy bool, a one-element tensor.
        statement: `"page: sentence"`: the page (its file name without `.md`) and the sentence as
            it stands on that page.

    Raises:
        ClaimError: If `holds` is false; the message names the page and the sentence.
        ValueError: If `statement` does not read `"page: sentence"`, or `holds` is NaN.

    Examples:
        >>> check(2 < 3, "index: two is less than three")
        >>> try:
        ...     check(2 > 3, "index: two is more than three")
        ... except ClaimError as error:
        ...     print(str(error).split(",")[0])
        docs/index.md says "two is more than three"
    """
    page, _, sentence = statement.partition(": ")
    if not page or not sentence or " " in page:
        raise ValueError(f"statement must read 'page: sentence', for example 'masks: ...'; got {statement!r}")
    if isinstance(holds, float) and math.isnan(holds):
        raise ValueError(f"the condition of {statement!r} is NaN, which is neither true nor false")
    if not holds:
        raise ClaimError(
            f'docs/{page}.md says "{sentence}", but the values its chapter computed no longer show it. '
            "Find what changed the result, or rewrite the sentence and this check together."
        )


def claim(holds: object, statement: str) -> None:
    """Note when this run does not show what a page says; the site build turns the note into an error.

    A chapter run with other settings (another seed, fewer steps) can give other results. Then
    the sentence on the page, written for the published run, may not describe this one: the
    claim prints a note that says so, and the run goes on.

    Args:
        holds: The condition, computed from the chapter's own values.
        statement: `"page: sentence"`, as for [`check`][tutorial_code.claims.check].

    Raises:
        ValueError: If `statement` does not read `"page: sentence"`.

    Examples:
        >>> claim(2 > 3, "index: two is more than three")
        Note: this run does not show what docs/index.md says ("two is more than three");
        the page's numbers come from the chapter's default settings.
    """
    try:
        check(holds, statement)
    except ClaimError:
        page, _, sentence = statement.partition(": ")
        print(
            f'Note: this run does not show what docs/{page}.md says ("{sentence}"); '
            "the page's numbers come from the chapter's default settings."
        )


# --8<-- [end:claim]
