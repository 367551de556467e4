"""Eval mode for the functions that predict: dropout off while they run, and
the model handed back in the mode it came in.

A function that calls `model.eval()` and returns leaves the model in eval mode:
a training loop that samples between steps would train on without dropout. One
that never calls it samples with dropout on, a different answer on each call.
`in_eval_mode` does neither.
"""

from __future__ import annotations

# --8<-- [start:imports]
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from torch import nn

T = TypeVar("T")
# --8<-- [end:imports]


# --8<-- [start:in_eval_mode]
def in_eval_mode(function: Callable[..., T]) -> Callable[..., T]:
    """Run `function(model, ...)` with `model` in eval mode, then restore the
    mode of each of its modules.

    Examples:
        >>> @in_eval_mode
        ... def dropout_is_on(model):
        ...     return model.training
        >>> model = nn.Dropout(0.5)  # a new module trains
        >>> dropout_is_on(model), model.training
        (False, True)
    """

    @functools.wraps(function)
    def run(model: nn.Module, *args: Any, **kwargs: Any) -> T:
        if not isinstance(model, nn.Module):
            raise TypeError(
                f"model must be a torch.nn.Module, got {type(model).__name__}"
            )
        modes = [(module, module.training) for module in model.modules()]
        model.eval()
        try:
            return function(model, *args, **kwargs)
        finally:
            for module, training in modes:
                module.training = training

    return run


# --8<-- [end:in_eval_mode]
