"""Debugging tools for a Transformer: shapes, attention entropy, gradients."""

# --8<-- [start:imports]
import math
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import nn

from tutorial_code.validation import check_count

# --8<-- [end:imports]


# --8<-- [start:print_shapes]
@contextmanager
def print_shapes(model: nn.Module) -> Iterator[list[str]]:
    """Print each submodule's output shape in the block; yields the lines.

    Examples:
        >>> model = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
        >>> with print_shapes(model) as lines:
        ...     _ = model(torch.zeros(2, 4))
        0                                (2, 3)
        1                                (2, 3)
        >>> len(lines)
        2
    """
    lines: list[str] = []

    def report(name: str):
        def hook(module: nn.Module, inputs: tuple, output: object) -> None:
            first = output[0] if isinstance(output, tuple) else output
            if isinstance(first, torch.Tensor):
                lines.append(
                    f"{name or type(module).__name__:<32} {tuple(first.shape)}"
                )
                print(lines[-1])

        return hook

    handles = [
        m.register_forward_hook(report(n))
        for n, m in model.named_modules()
        if n
    ]
    try:
        yield lines
    finally:
        for handle in handles:
            handle.remove()


# --8<-- [end:print_shapes]


# --8<-- [start:attention_entropy]
def attention_entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each query's attention weights, as a fraction of the maximum.

    Maps weights (..., T_q, T_k), T_k >= 2, to (..., T_q) in [0, 1]: 1.0 means
    the weight is spread evenly, near 0 that the query picks one key.

    Examples:
        >>> uniform, one_hot = [0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]
        >>> attention_entropy(torch.tensor([uniform, one_hot]))
        tensor([1., 0.])
    """
    check_count(
        weights.size(-1), "the number of keys, weights.size(-1),", minimum=2
    )
    plogp = weights * weights.clamp_min(1e-12).log()  # 0 * log(0) counts as 0
    # 0.0 - x, not -x: a one-hot row gives 0.0, not -0.0
    entropy = 0.0 - plogp.sum(dim=-1)
    return entropy / math.log(weights.size(-1))


# --8<-- [end:attention_entropy]


# --8<-- [start:gradient_norms]
def gradient_norms(model: nn.Module) -> dict[str, float]:
    """Parameter name -> gradient norm after `backward()`; NaN if none."""
    return {
        name: (p.grad.norm().item() if p.grad is not None else float("nan"))
        for name, p in model.named_parameters()
    }


# --8<-- [end:gradient_norms]
