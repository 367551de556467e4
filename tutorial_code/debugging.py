"""Three debugging tools for a Transformer: shapes, attention entropy, gradient norms.

Shape letters: B = batch size, h = heads, T = sequence length.
"""

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
    """Print the output shape of every submodule while the block runs.

    Args:
        model: The model to watch.

    Yields:
        The list of printed lines, for tests and for later reading.

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
                lines.append(f"{name or type(module).__name__:<32} {tuple(first.shape)}")
                print(lines[-1])

        return hook

    handles = [m.register_forward_hook(report(n)) for n, m in model.named_modules() if n]
    try:
        yield lines
    finally:
        for handle in handles:
            handle.remove()


# --8<-- [end:print_shapes]


# --8<-- [start:attention_entropy]
def attention_entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy of each query's attention distribution, as a fraction of the uniform maximum.

    1.0 means the query spreads its weight evenly (attends to nothing in particular);
    values near 0 mean it picks one key. A whole layer stuck at 1.0 after training
    often means the scores carry no signal (a scaling, mask or learning-rate problem).

    Args:
        weights: Attention weights, shape (..., T_q, T_k), rows summing to 1.

    Returns:
        Tensor of shape (..., T_q) with values between 0 and 1.

    Examples:
        >>> attention_entropy(torch.tensor([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]]))
        tensor([1., 0.])
    """
    check_count(weights.size(-1), "the number of keys, weights.size(-1),", minimum=2)
    plogp = weights * weights.clamp_min(1e-12).log()  # 0 * log(0) counts as 0
    entropy = 0.0 - plogp.sum(dim=-1)  # 0.0 - x, not -x: a one-hot row gives 0.0, not -0.0
    return entropy / math.log(weights.size(-1))


# --8<-- [end:attention_entropy]


# --8<-- [start:gradient_norms]
def gradient_norms(model: nn.Module) -> dict[str, float]:
    """The gradient norm of every parameter, after `loss.backward()`.

    Parameters with no gradient (None) are reported as NaN, because a parameter
    that never receives a gradient is usually disconnected from the loss.

    Args:
        model: A model whose `backward()` has run.

    Returns:
        Parameter name -> gradient norm.
    """
    return {
        name: (p.grad.norm().item() if p.grad is not None else float("nan")) for name, p in model.named_parameters()
    }


# --8<-- [end:gradient_norms]
