"""Two digit tasks that need order and sharp attention, which the sum does not.

Shape letters: B = batch size, T = sequence length.
"""

# --8<-- [start:imports]
import functools

import torch
from torch import nn

from tutorial_code.digit_model import DigitModel, TrainResult, train_digit_model
from tutorial_code.validation import check_counts

# --8<-- [end:imports]


# --8<-- [start:first_minus_last]
def first_minus_last_batch(
    batch_size: int = 64,
    seq_len: int = 8,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Digits 0-9, (B, T), and the first minus the last, (B,): order matters.

    Examples:
        >>> generator = torch.Generator().manual_seed(0)
        >>> numbers, targets = first_minus_last_batch(2, 4, generator)
        >>> torch.equal(targets, numbers[:, 0] - numbers[:, -1])
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    numbers = torch.randint(
        0, 10, (batch_size, seq_len), generator=generator
    ).float()
    return numbers, numbers[:, 0] - numbers[:, -1]


@functools.cache
def train_first_minus_last(
    positional: str, steps: int = 600, seed: int = 0, device: str = "cpu"
) -> TrainResult:
    """Train on first-minus-last with a positional encoding (cached).

    Args:
        positional: `"learned"`, `"sinusoidal"` or `"none"`.
    """
    torch.manual_seed(seed)
    model = DigitModel(positional=positional)
    return train_digit_model(
        first_minus_last_batch,
        nn.MSELoss(),
        steps=steps,
        seed=seed,
        model=model,
        device=device,
    )


# --8<-- [end:first_minus_last]


# --8<-- [start:argmax]
def argmax_batch(
    batch_size: int = 64,
    seq_len: int = 8,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Distinct digits, (B, T) floats, and the position of the largest, (B,).

    Raises:
        ValueError: If a count is below 1 or `seq_len` exceeds 10 (distinct).

    Examples:
        >>> generator = torch.Generator().manual_seed(0)
        >>> numbers, targets = argmax_batch(2, 5, generator)
        >>> torch.equal(targets, numbers.argmax(dim=1))
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    if seq_len > 10:
        raise ValueError(
            f"seq_len must be <= 10 for distinct digits, got {seq_len}"
        )
    # Distinct digits, so the largest is unique: the start of a permutation.
    permutations = torch.rand(batch_size, 10, generator=generator).argsort(
        dim=1
    )
    numbers = permutations[:, :seq_len].float()
    return numbers, numbers.argmax(dim=1)


@functools.cache
def train_argmax(
    steps: int = 500, seed: int = 0, seq_len: int = 8, device: str = "cpu"
) -> TrainResult:
    """Train one logit per position on `argmax_batch`, by cross-entropy."""
    torch.manual_seed(seed)
    model = DigitModel(num_outputs=seq_len, positional="sinusoidal")
    return train_digit_model(
        argmax_batch,
        nn.CrossEntropyLoss(),
        steps=steps,
        seed=seed,
        seq_len=seq_len,
        model=model,
        device=device,
    )


def accuracy(model: DigitModel, seq_len: int = 8, seed: int = 1234) -> float:
    """Share of 1024 held-out sequences whose largest digit `model` locates."""
    numbers, targets = argmax_batch(
        1024, seq_len, torch.Generator().manual_seed(seed)
    )
    model.eval()
    with torch.no_grad():
        logits, _ = model(numbers)
    return (logits.argmax(dim=1) == targets).float().mean().item()


# --8<-- [end:argmax]
