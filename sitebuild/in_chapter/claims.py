"""Sentences of the pages that state a measured result, checked on the values their chapter computed.

A page says "greedy decoding reverses 100 % of held-out sequences" because a chapter measured it.
Code changes; the sentence would not. So each chapter has a checks module in its folder,
`docs/<chapter>/checks.py`, that states the sentence once more, as a condition on the
chapter's values:

    checks = Checks()

    @checks.after("greedy_decoding", "encoder_decoder: reverses every held-out sequence")
    def every_sequence_reversed(accuracy):
        return accuracy == 1.0

The build runs each check right after the chapter section it names, with the values the
chapter holds then under the function's parameter names (as plain numbers and lists), and
stops with an error that names the page and the sentence when the condition is false. The
values are recorded in the executed notebook's metadata, so the tests evaluate every check again
and then break each value in turn, to show that the check depends on every input it reads.

A sentence about a recorded run (`benchmarks/recorded-runs.json`) or a recorded benchmark
(`tutorial_code/results-cpu.json`) describes that record, not this build. Its check is declared as such, and reads
only the recorded values (`tests/unit/test_checks_read_this_build.py` holds both rules):

    @checks.recorded("schedule", "best_practices: clipping ended lowest on 1 of the 3 seeds")
    def clipping_lowest_once(each_seed): ...

It runs like any other, on the values the chapter holds after its section: in the build those are the record's, and
in `scripts/check_claims_robust.py`, which records the runs again at other seeds in a scratch copy, those runs'.

The checks are not part of the code readers copy: a chapter computes and prints, nothing more.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ClaimError(AssertionError):
    """A sentence of a page no longer matches what its chapter measured."""


def check(holds: object, statement: str) -> None:
    """Raise [`ClaimError`][sitebuild.in_chapter.claims.ClaimError] unless a measured result still supports a sentence.

    Args:
        holds: The condition, computed from the chapter's values: a bool or anything with a truth value.
        statement: `"page: sentence"`: the page (its file name without `.md`) and the sentence as it stands there.

    Raises:
        ClaimError: If `holds` is false; the message names the page and the sentence.
        ValueError: If `statement` does not read `"page: sentence"`, or `holds` is NaN.
    """
    page, _, sentence = statement.partition(": ")
    if not page or not sentence or " " in page:
        raise ValueError(f"statement must read 'page: sentence', for example 'masks: ...'; got {statement!r}")
    if isinstance(holds, float) and math.isnan(holds):
        raise ValueError(f"the condition of {statement!r} is NaN, which is neither true nor false")
    if not holds:
        raise ClaimError(
            f'docs/{page}.md says "{sentence}", but the values its chapter computed no longer show it. '
            "Find what changed the result, or rewrite the sentence and its check together."
        )


@dataclass(frozen=True)
class Claim:
    """One checked sentence: the section it follows, and the condition on the chapter's values."""

    section: str
    statement: str
    condition: Callable[..., object]
    recorded: bool = False
    """Whether the sentence describes a recorded run or benchmark: its check reads only recorded values."""

    @property
    def page(self) -> str:
        return self.statement.partition(": ")[0]

    @property
    def sentence(self) -> str:
        return self.statement.partition(": ")[2]

    @property
    def names(self) -> tuple[str, ...]:
        """The chapter values the condition reads: its parameters."""
        return tuple(inspect.signature(self.condition).parameters)

    def holds(self, values: dict[str, Any]) -> bool:
        """The condition on `values` (lists stand for tensors)."""
        return bool(self.condition(**values))


@dataclass
class Checks:
    """The checks of one chapter, in the order they are written."""

    claims: list[Claim] = field(default_factory=list)
    not_results: dict[str, str] = field(default_factory=dict)
    """Sentences of the page that read like a result (a comparison, a count) and are not one, with the reason:
    `tests/unit/test_result_sentences.py` passes them without a check."""

    def not_a_result(self, sentence: str, reason: str) -> None:
        """List a sentence of the page (or a part of it) that compares or counts without stating a measured result."""
        if not reason.strip():
            raise ValueError(f"say why {sentence!r} is not a result")
        self.not_results[sentence] = reason

    def after(self, section: str, statement: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
        """Register the decorated function as the check of `statement`, run after the chapter section `section`, on
        values this build computed."""
        return self._register(section, statement, recorded=False)

    def recorded(self, section: str, statement: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
        """Register the decorated function as the check of `statement`, a sentence about a recorded run or benchmark:
        it reads that record's values, as the chapter holds them after `section`."""
        return self._register(section, statement, recorded=True)

    def _register(
        self, section: str, statement: str, recorded: bool
    ) -> Callable[[Callable[..., object]], Callable[..., object]]:
        def register(condition: Callable[..., object]) -> Callable[..., object]:
            page, _, sentence = statement.partition(": ")
            if not page or not sentence or " " in page:
                raise ValueError(f"statement must read 'page: sentence'; got {statement!r}")
            self.claims.append(Claim(section, statement, condition, recorded))
            return condition

        return register


def checks_of(chapter: str, root: Path) -> Checks:
    """The checks module of a chapter (`docs/<chapter>/checks.py` in the checkout `root`), loaded afresh; an empty
    one when it has none."""
    path = checks_path(chapter, root)
    if not path.exists():
        return Checks()
    spec = importlib.util.spec_from_file_location(f"checks_of_{chapter}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.checks


def claims_of(chapter: str, root: Path) -> list[Claim]:
    """The checks of a chapter (`docs/<chapter>/checks.py` in the checkout `root`); none when it has no checks."""
    return list(checks_of(chapter, root).claims)


def checks_path(chapter: str, root: Path) -> Path:
    """Where a chapter's checks are: `checks.py` in its folder."""
    return root / "docs" / chapter / "checks.py"


def plain(value: Any, name: str) -> Any:
    """`value` as JSON: numbers, bools, lists and dicts of them; tensors and arrays as lists."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if hasattr(value, "tolist"):  # torch.Tensor, numpy arrays and scalars
        return value.tolist()
    if isinstance(value, list | tuple):
        return [plain(item, name) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item, name) for key, item in value.items()}
    raise TypeError(
        f"a check reads {name!r}, a {type(value).__name__}; a check may read only numbers, strings, lists, dicts "
        f"and tensors: give the number it checks a name of its own in the chapter, or read a field of it"
    )


class CheckInputError(NameError):
    """A check reads a name that the chapter does not define by the section the check follows."""


def run_after(
    section: str, claims: list[Claim], namespace: dict[str, Any], strict: bool = True
) -> list[dict[str, Any]]:
    """Run the checks that follow `section` on the chapter's `namespace`; return what each read, and whether it held.

    With `strict=False` a false condition is recorded (`"holds": False`) instead of raised: the robustness script
    (`scripts/check_claims_robust.py`) runs every chapter on other seeds and reports every sentence that fails.

    Raises:
        ClaimError: If a condition is false (with `strict`, the default).
        CheckInputError: If a check reads a name the chapter has not defined.
    """
    records = []
    for claim in claims:
        if claim.section != section:
            continue
        missing = [name for name in claim.names if name not in namespace]
        if missing:
            raise CheckInputError(
                f"the check of {claim.statement!r} reads {', '.join(missing)}, which the chapter does not define "
                f"by the end of its section {section!r}"
            )
        values = {name: plain(namespace[name], name) for name in claim.names}
        holds = claim.holds(values)
        records.append(
            {"statement": claim.statement, "section": section, "values": values, "holds": holds}
            | ({"recorded": True} if claim.recorded else {})
        )
        if strict:
            check(holds, claim.statement)
    return records


def broken(value: Any) -> Iterator[Any]:
    """Other values of the same shape that a measurement could have given: to try each claim against."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int | float):
        for other in (0, -value, value * 1e-3, value * 1e3 + 1e3, -(abs(value) + 1) * 1e3, value + 1):
            yield type(value)(other) if isinstance(value, float) else other
    elif isinstance(value, str):
        yield value + " (changed)"
        yield ""
        for number in ("0.0", "1000.0"):  # the same printed line with other measurements in it
            changed = re.sub(r"\d+(?:\.\d+)?(?:e-?\d+)?", number, value)
            if changed != value:
                yield changed
    elif isinstance(value, list) and value:
        yield value[::-1]
        yield [value[0]] * len(value)
        for replacement in broken(value[0]) if not isinstance(value[0], list) else []:
            yield [replacement] * len(value)
        for index in range(len(value)):
            for replacement in broken(value[index]):
                yield value[:index] + [replacement] + value[index + 1 :]
    elif isinstance(value, dict):
        for key, item in value.items():
            for replacement in broken(item):
                yield {**value, key: replacement}
