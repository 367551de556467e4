"""Two marks for the site's build: trainings and multi-seed comparisons that its chapters may share.

A marked function is the plain function. Called by a reader, in a notebook or from the command line, it computes,
every time. The build's chapter runner (`sitebuild.kernel.prepare`) registers a handler for each mark in
`HANDLERS`, and then:

- a [`reusable`][tutorial_code.shared_runs.reusable] training loads the model that another chapter of the same
  build trained with the same arguments and the same code, instead of training it again;
- a [`recorded`][tutorial_code.shared_runs.recorded] comparison, too slow for every build, reads its numbers from
  `benchmarks/recorded-runs.json` when they were recorded with the same code.

Nothing in `tutorial_code` registers a handler, and no module of it imports the build.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

HANDLERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {}
"""What the build wraps a marked function in, by mark (`"reusable"`, `"recorded"`): empty outside the build."""


def _handled(mark: str, function: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> T:
        handler = HANDLERS.get(mark)
        return function(*args, **kwargs) if handler is None else handler(function)(*args, **kwargs)

    return run


def reusable(train: Callable[..., T]) -> Callable[..., T]:
    """Mark `train`, whose result has a `model`, as a training the build may share between its chapters."""
    return _handled("reusable", train)


def recorded(run: Callable[..., T]) -> Callable[..., T]:
    """Mark `run`, a comparison over several seeds that returns JSON values (numbers, lists, dicts), as one whose
    numbers the build may read from `benchmarks/recorded-runs.json`."""
    return _handled("recorded", run)
