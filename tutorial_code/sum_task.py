"""The sum task: a small Transformer learns to add up a sequence of digits.

Shape letters: B = batch size, T = sequence length. The `*_per_seed`
functions leave torch's global random state as it was.
"""

# --8<-- [start:imports]
import functools

import torch
from torch import nn

from tutorial_code.digit_model import DigitModel, TrainResult, train_digit_model
from tutorial_code.modes import in_eval_mode
from tutorial_code.validation import check_counts

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import recorded

# --8<-- [start:data]
TARGET_SCALE = 10.0  # the model predicts sum / 10


def make_batch(
    batch_size: int = 64,
    seq_len: int = 8,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digits 0-9 as floats (B, T), and their sums / `TARGET_SCALE` (B,).

    Examples:
        >>> generator = torch.Generator().manual_seed(0)
        >>> numbers, targets = make_batch(2, 3, generator)
        >>> torch.allclose(targets, numbers.sum(dim=1) / TARGET_SCALE)
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    numbers = torch.randint(
        0, 10, (batch_size, seq_len), generator=generator
    ).float()
    return numbers, numbers.sum(dim=1) / TARGET_SCALE


# --8<-- [end:data]


# --8<-- [start:train_sum_model]
def train_sum_model(
    steps: int = 500, seed: int = 0, **options: object
) -> TrainResult:
    """Train a `DigitModel` to add up digits: MSE on scaled sums.

    Args:
        **options: Passed on to `train_digit_model`.

    Examples:
        >>> len(train_sum_model(steps=3).losses)
        3
    """
    loss_fn = nn.MSELoss()
    return train_digit_model(
        make_batch, loss_fn, steps=steps, seed=seed, **options
    )


# --8<-- [end:train_sum_model]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:held_out_mse_per_seed]
def held_out_mse_per_seed(
    steps: int, seeds: list[int], **options
) -> list[float]:
    """The held-out MSE of `train_sum_model(steps, seed, **options)` per seed.

    Examples:
        >>> len(held_out_mse_per_seed(2, [0, 1]))
        2
    """
    with torch.random.fork_rng():
        return [
            train_sum_model(steps, seed, **options).eval_loss for seed in seeds
        ]


# --8<-- [end:held_out_mse_per_seed]


# --8<-- [start:deep_digit_model]
def deep_digit_model(
    num_layers: int, norm_first: bool, seed: int, layer_norm_eps: float = 1e-5
) -> DigitModel:
    """An untrained `DigitModel`, every LayerNorm with epsilon `layer_norm_eps`.

    Args:
        norm_first: Pre-norm (True) or post-norm (False) layers.
        seed: Seeds the initial weights.

    Examples:
        >>> len(deep_digit_model(6, norm_first=True, seed=0).layers)
        6
    """
    torch.manual_seed(seed)
    model = DigitModel(num_layers=num_layers, norm_first=norm_first)
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            module.eps = layer_norm_eps
    return model


# --8<-- [end:deep_digit_model]


# not shown: the build reads these runs from benchmarks/recorded-runs.json
@recorded
# --8<-- [start:deep_stack_mse_per_seed]
def deep_stack_mse_per_seed(
    steps: int,
    seeds: list[int],
    num_layers: int,
    norm_first: bool,
    layer_norm_eps: float,
    **options,
) -> list[float]:
    """The held-out MSE of a trained `deep_digit_model` per seed, in order."""
    with torch.random.fork_rng():
        mse = []
        for seed in seeds:
            model = deep_digit_model(
                num_layers, norm_first, seed, layer_norm_eps
            )
            mse.append(
                train_sum_model(steps, seed, model=model, **options).eval_loss
            )
        return mse


# --8<-- [end:deep_stack_mse_per_seed]


# --8<-- [start:predict]
@in_eval_mode  # dropout off; the caller's mode restored
def predict_sum(model: DigitModel, numbers: list[float]) -> float:
    """The model's estimate of `sum(numbers)`, scaled back, in eval mode."""
    with torch.no_grad():
        prediction, _ = model(torch.tensor([numbers], dtype=torch.float32))
    return prediction.item() * TARGET_SCALE


# --8<-- [end:predict]


@functools.cache
def trained_sum_model(
    seed: int = 0,
    steps: int = 500,
    norm_first: bool = False,
    device: str = "cpu",
) -> TrainResult:
    """`train_sum_model`, trained once per process and reused."""
    return train_sum_model(
        steps=steps, seed=seed, norm_first=norm_first, device=device
    )
