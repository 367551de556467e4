"""Find the claims of a chapter, record the values each one was checked on, and check them again.

A chapter states a measured result as `claim(condition, "page: sentence")`
([`tutorial_code.claims`][tutorial_code.claims]). The build records, for every claim a chapter
makes, the values of the names its condition reads (numbers, lists, tensors as lists), and keeps
them in the executed notebook's metadata. The tests evaluate each condition again on those
values, then break each value in turn, to show that the check depends on every input it reads
and fails, naming the page and the sentence, when the result changes.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: What a claim's condition may call besides its recorded values.
HELPERS = {"math": math, "statistics": statistics}


@dataclass(frozen=True)
class Claim:
    """One `claim(condition, "page: sentence")` call of a chapter script."""

    statement: str
    condition: str  # the condition's source code
    names: tuple[str, ...]  # the names the condition reads, other than builtins and HELPERS

    @property
    def page(self) -> str:
        return self.statement.partition(": ")[0]

    @property
    def sentence(self) -> str:
        return self.statement.partition(": ")[2]


class ClaimSourceError(ValueError):
    """A claim call the build cannot record: its statement is not a literal string."""


def claims_in(source: str) -> list[Claim]:
    """Every `claim(...)` call in `source`, in order."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "claim"):
            continue
        if len(node.args) != 2 or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            raise ClaimSourceError(
                f"line {node.lineno}: write claims as claim(condition, 'page: sentence') with a literal sentence"
            )
        condition = node.args[0]
        bound = {
            target.id
            for comprehension in ast.walk(condition)
            if isinstance(comprehension, ast.comprehension)
            for target in ast.walk(comprehension.target)
            if isinstance(target, ast.Name)
        }
        names = []
        for name in ast.walk(condition):
            if isinstance(name, ast.Name) and name.id not in bound and name.id not in names:
                if not hasattr(builtins, name.id) and name.id not in HELPERS:
                    names.append(name.id)
        found.append(Claim(node.args[1].value, ast.unparse(condition), tuple(names)))
    return sorted(found, key=lambda c: source.find(c.statement))


def plain(value: Any, name: str) -> Any:
    """`value` as JSON: numbers, bools, lists and dicts of them; tensors and arrays as lists."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    if hasattr(value, "tolist"):  # torch.Tensor, numpy arrays and scalars
        return value.tolist()
    if isinstance(value, list | tuple):
        return [plain(item, name) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item, name) for key, item in value.items()}
    raise TypeError(
        f"a claim reads {name!r}, a {type(value).__name__}; a claim may read only numbers, lists, dicts and "
        f"tensors: give the number it checks a name of its own first"
    )


def holds(claim: Claim, values: dict[str, Any]) -> bool:
    """Evaluate the condition of `claim` on `values` (lists stand for tensors)."""
    namespace = {"__builtins__": builtins, **HELPERS, **values}
    return bool(eval(claim.condition, namespace))  # noqa: S307 - the condition is the chapter's own code


def install(cell_sources: list[str]) -> list[dict[str, Any]]:
    """Make `tutorial_code.claims.claim` strict (an error, not a note) and record what it checks.

    Returns the list the records go to.

    Each record is `{"statement", "condition", "values"}`; a claim called twice (in a loop) is recorded twice.
    """
    from tutorial_code import claims as claims_module

    known = {claim.statement: claim for source in cell_sources for claim in claims_in(source)}
    records: list[dict[str, Any]] = []
    check = claims_module.check  # raises: in the build, a claim that no longer holds is an error

    def claim_and_record(condition: object, statement: str) -> None:
        found = known.get(statement)
        if found is not None:
            caller = inspect.currentframe().f_back
            scope = {**caller.f_globals, **caller.f_locals}
            values = {name: plain(scope[name], name) for name in found.names if name in scope}
            records.append({"statement": statement, "condition": found.condition, "values": values})
        check(condition, statement)

    claims_module.claim = claim_and_record
    return records


def broken(value: Any) -> Iterator[Any]:
    """Other values of the same shape that a measurement could have given: to try each claim against."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int | float):
        for other in (0, -value, value * 1e-3, value * 1e3 + 1e3, -(abs(value) + 1) * 1e3, value + 1):
            yield type(value)(other) if isinstance(value, float) else other
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
