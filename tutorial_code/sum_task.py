"""The sum task: a small Transformer learns to add up a sequence of digits.

The model sees 8 digits from 0 to 9 and predicts their sum divided by 10, so that the
targets (mean 3.6) stay small and a plain MSE loss works. Adding up needs every position,
which makes it a quick check that all the pieces work together; it trains in a
few seconds on a laptop CPU.

Shape letters: B = batch size, T = sequence length.
"""

# --8<-- [start:imports]
import functools

import torch
from torch import nn

from tutorial_code.digit_model import DigitModel, TrainResult, train_digit_model
from tutorial_code.validation import check_counts

# --8<-- [end:imports]
# isort: split
from tutorial_code.shared_runs import recorded  # not shown: only the build acts on the mark

# --8<-- [start:data]
TARGET_SCALE = 10.0  # the model predicts sum / 10


def make_batch(
    batch_size: int = 64, seq_len: int = 8, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random digit sequences and their scaled sums.

    Args:
        batch_size: Number of sequences B. Defaults to 64.
        seq_len: Digits per sequence T. Defaults to 8.
        generator: Random generator, for reproducible batches. Defaults to None.

    Returns:
        `(numbers, targets)`: digits 0-9 as floats, shape (B, T), and
        `numbers.sum(dim=1) / TARGET_SCALE`, shape (B,).

    Examples:
        >>> numbers, targets = make_batch(2, 3, torch.Generator().manual_seed(0))
        >>> torch.allclose(targets, numbers.sum(dim=1) / TARGET_SCALE)
        True
    """
    check_counts(batch_size=batch_size, seq_len=seq_len)
    numbers = torch.randint(0, 10, (batch_size, seq_len), generator=generator).float()
    return numbers, numbers.sum(dim=1) / TARGET_SCALE


# --8<-- [end:data]


# --8<-- [start:train_sum_model]
def train_sum_model(steps: int = 500, seed: int = 0, **options: object) -> TrainResult:
    """Train a [`DigitModel`][tutorial_code.digit_model.DigitModel] to add up digits:
    MSE on scaled sums.

    Args:
        steps: Optimizer steps. Defaults to 500.
        seed: Seed of the weights, the dropout and the data. Defaults to 0.
        **options: Passed on to
            [`train_digit_model`][tutorial_code.digit_model.train_digit_model]: `lr`,
            `norm_first`, `model`, `warmup_steps`, `clip_norm`, `device`, ...

    Returns:
        A [`TrainResult`][tutorial_code.digit_model.TrainResult]; `eval_loss` is the
        held-out MSE.

    Examples:
        >>> len(train_sum_model(steps=3).losses)
        3
    """
    loss_fn = nn.MSELoss()
    return train_digit_model(make_batch, loss_fn, steps=steps, seed=seed, **options)


# --8<-- [end:train_sum_model]


@recorded  # not shown: the build reads these runs from benchmarks/recorded-runs.json
# --8<-- [start:held_out_mse_per_seed]
def held_out_mse_per_seed(steps: int, seeds: list[int], **options) -> list[float]:
    """Train the sum-task model once per seed; the held-out MSE of each run.

    One run says little when runs of different seeds differ more than the options being
    compared. Torch's global random state is left as it was.

    Args:
        steps: Optimizer steps of each run.
        seeds: One run per seed.
        **options (object): Passed on to `train_sum_model`: `lr`, `dropout`,
            `warmup_steps`, ...

    Returns:
        The held-out MSE of each run, in the order of `seeds`.

    Examples:
        >>> len(held_out_mse_per_seed(2, [0, 1]))
        2
    """
    with torch.random.fork_rng():
        return [train_sum_model(steps, seed, **options).eval_loss for seed in seeds]


# --8<-- [end:held_out_mse_per_seed]


# --8<-- [start:deep_digit_model]
def deep_digit_model(
    num_layers: int,
    norm_first: bool,
    seed: int,
    layer_norm_eps: float = 1e-5,
) -> DigitModel:
    """A [`DigitModel`][tutorial_code.digit_model.DigitModel] of `num_layers` encoder
    layers, every LayerNorm with epsilon `layer_norm_eps`.

    Args:
        num_layers: Encoder layers.
        norm_first: Pre-norm (True) or post-norm (False) layers.
        seed: Seeds the initial weights.
        layer_norm_eps: The epsilon of every LayerNorm. Defaults to 1e-5.

    Returns:
        The untrained model.

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


@recorded  # not shown: the build reads these runs from benchmarks/recorded-runs.json
# --8<-- [start:deep_stack_mse_per_seed]
def deep_stack_mse_per_seed(
    steps: int,
    seeds: list[int],
    num_layers: int,
    norm_first: bool,
    layer_norm_eps: float,
    **options,
) -> list[float]:
    """Train a deep sum-task model once per seed; the held-out MSE of each run.

    Torch's global random state is left as it was.

    Args:
        steps: Optimizer steps of each run.
        seeds: One run per seed: the weights of `deep_digit_model`, the dropout, the
            data.
        num_layers: Encoder layers.
        norm_first: Pre-norm (True) or post-norm (False) layers.
        layer_norm_eps: The epsilon of every LayerNorm.
        **options (object): Passed on to `train_sum_model`: `lr`, `warmup_steps`, ...

    Returns:
        The held-out MSE of each run, in the order of `seeds`.
    """
    with torch.random.fork_rng():
        mse = []
        for seed in seeds:
            model = deep_digit_model(num_layers, norm_first, seed, layer_norm_eps)
            mse.append(train_sum_model(steps, seed, model=model, **options).eval_loss)
        return mse


# --8<-- [end:deep_stack_mse_per_seed]


# --8<-- [start:predict]
def predict_sum(model: DigitModel, numbers: list[float]) -> float:
    """The model's estimate of `sum(numbers)`, computed in eval mode.

    Args:
        model: A trained model; it is switched to eval mode (dropout off).
        numbers: One sequence of digits.

    Returns:
        The predicted sum, already multiplied back by TARGET_SCALE.
    """
    model.eval()
    with torch.no_grad():
        prediction, _ = model(torch.tensor([numbers], dtype=torch.float32))
    return prediction.item() * TARGET_SCALE


# --8<-- [end:predict]


@functools.cache
def trained_sum_model(seed: int = 0, steps: int = 500, norm_first: bool = False, device: str = "cpu") -> TrainResult:
    """Train once per process and reuse: a chapter that needs the model twice trains it once.

    Args:
        seed: Passed to `train_sum_model`. Defaults to 0.
        steps: Passed to `train_sum_model`. Defaults to 500.
        norm_first: Passed to `train_sum_model`. Defaults to False.
        device: Passed to `train_sum_model`. Defaults to `"cpu"`.

    Returns:
        The [`TrainResult`][tutorial_code.digit_model.TrainResult] of that training.
    """
    return train_sum_model(steps=steps, seed=seed, norm_first=norm_first, device=device)
