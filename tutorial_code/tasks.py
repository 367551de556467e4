"""Two more digit tasks, for the experiments that the sum task cannot show.

Adding up digits ignores their order, so it cannot show what positional encodings
do, and a uniform average solves it, so it never needs sharp attention. These
tasks need both. They train the same [`DigitModel`][tutorial_code.digit_model.DigitModel]
with [`train_digit_model`][tutorial_code.digit_model.train_digit_model].

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
    batch_size: int = 64, seq_len: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Digits 0-9 and the first digit minus the last: a target that depends on order.

    Args:
        batch_size: Number of sequences B. Defaults to 64.
        seq_len: Digits per sequence T. Defaults to 8.
        generator: Random generator, for reproducible batches. Defaults to None.

    Returns:
        `(numbers, targets)` of shapes (B, T) and (B,).

    Examples:
        >>> generator = torch.Generator().manual_seed(0)
        >>> numbers, targets = first_minus_last_batch(2, 4, generator)
        >>> torch.equal(targets, numbers[:, 0] - numbers[:, -1])
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    numbers = torch.randint(0, 10, (batch_size, seq_len), generator=generator).float()
    return numbers, numbers[:, 0] - numbers[:, -1]


@functools.cache
def train_first_minus_last(
    positional: str,
    steps: int = 600,
    seed: int = 0,
    device: str = "cpu",
) -> TrainResult:
    """Train on first-minus-last with a positional encoding (cached per process).

    Args:
        positional: `"learned"`, `"sinusoidal"` or `"none"`.
        steps: Optimizer steps. Defaults to 600.
        seed: Seed of weights, dropout and data. Defaults to 0.
        device: Where to train. Defaults to `"cpu"`.

    Returns:
        The [`TrainResult`][tutorial_code.digit_model.TrainResult]; its
            `eval_loss` is an MSE.
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
    batch_size: int = 64, seq_len: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Distinct digits and the position of the largest: attention must pick one token.

    Args:
        batch_size: Number of sequences B. Defaults to 64.
        seq_len: Digits per sequence T, at most 10. Defaults to 8.
        generator: Random generator, for reproducible batches. Defaults to None.

    Returns:
        `(numbers, targets)`: shape (B, T) floats, and (B,) integer positions.

    Raises:
        ValueError: If `batch_size` or `seq_len` is below 1, or `seq_len` exceeds 10
            (the digits must be distinct).

    Examples:
        >>> numbers, targets = argmax_batch(2, 5, torch.Generator().manual_seed(0))
        >>> torch.equal(targets, numbers.argmax(dim=1))
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    if seq_len > 10:
        raise ValueError(f"seq_len must be <= 10 for distinct digits, got {seq_len}")
    # Distinct digits, so the largest is unique: the first seq_len of a permutation.
    permutations = torch.rand(batch_size, 10, generator=generator).argsort(dim=1)
    numbers = permutations[:, :seq_len].float()
    return numbers, numbers.argmax(dim=1)


@functools.cache
def train_argmax(
    steps: int = 500,
    seed: int = 0,
    seq_len: int = 8,
    device: str = "cpu",
) -> TrainResult:
    """Train a model that outputs one logit per position, scored by cross-entropy
    (cached per process).

    Args:
        steps: Optimizer steps. Defaults to 500.
        seed: Seed of weights, dropout and data. Defaults to 0.
        seq_len: Digits per sequence. Defaults to 8.
        device: Where to train. Defaults to `"cpu"`.

    Returns:
        The [`TrainResult`][tutorial_code.digit_model.TrainResult]; `eval_loss` is a
        cross-entropy.
    """
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
    """Share of 1024 held-out sequences whose largest digit the model locates.

    Args:
        model: A model trained by [`train_argmax`][tutorial_code.tasks.train_argmax].
        seq_len: Digits per sequence. Defaults to 8.
        seed: Seed of the held-out batch. Defaults to 1234.

    Returns:
        A fraction between 0 and 1.
    """
    numbers, targets = argmax_batch(1024, seq_len, torch.Generator().manual_seed(seed))
    model.eval()
    with torch.no_grad():
        logits, _ = model(numbers)
    return (logits.argmax(dim=1) == targets).float().mean().item()


# --8<-- [end:argmax]
