"""Two marks: trainings and multi-seed runs the build's chapters may share.

Called by a reader, a marked function computes. In the build, a handler in
`HANDLERS` may load a `reusable` training's model or a `recorded` run's
numbers, made by the same code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

HANDLERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {}
"""What the build wraps a marked function in, by mark (`"reusable"`, \
`"recorded"`): empty outside the build."""


def _handled(mark: str, function: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> T:
        handler = HANDLERS.get(mark)
        return (
            function(*args, **kwargs)
            if handler is None
            else handler(function)(*args, **kwargs)
        )

    return run


def reusable(train: Callable[..., T]) -> Callable[..., T]:
    """Mark `train` as shareable between chapters; its result has a `model`."""
    return _handled("reusable", train)


def recorded(run: Callable[..., T]) -> Callable[..., T]:
    """Mark `run`, a multi-seed comparison of JSON values, as recordable."""
    return _handled("recorded", run)
