"""One small Transformer for every digit task of the tutorial, and the loop that trains it.

The model reads a sequence of numbers (digits as floats), runs encoder layers over them
and maps the average of the token vectors to its output: one number for the sum task
([`tutorial_code.sum_task`][tutorial_code.sum_task]), one logit per position for the
position-of-the-largest-digit task ([`tutorial_code.tasks`][tutorial_code.tasks]).
It trains in a few seconds on a laptop CPU.

Shape letters: B = batch size, T = sequence length, d_model = width of a token
vector, h = `num_heads`.
"""

# --8<-- [start:imports]
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn
from tqdm import tqdm

from tutorial_code.encoder import EncoderLayer
from tutorial_code.positional import positional_encoding
from tutorial_code.validation import check_counts, check_numbers, check_positive

# --8<-- [end:imports]
# isort: split
from tutorial_code.shared_runs import reusable  # not shown: only the build acts on the mark


# --8<-- [start:digit_model]
class DigitModel(nn.Module):
    """Numbers in, one number out: projection, positions, encoder layers, mean, head.

    One architecture serves every digit task of the tutorial through `num_outputs` and
    `positional`.

    Args:
        d_model: Width of the token vectors. Defaults to 32.
        num_heads: Number of attention heads h. Defaults to 4.
        d_ff: Hidden width of the feed-forward networks. Defaults to 64.
        num_layers: Number of encoder layers. Defaults to 2.
        max_len: Longest sequence accepted. Defaults to 16.
        dropout: Dropout probability. Defaults to 0.1.
        norm_first: Pre-norm layers (and a final LayerNorm) if True. Defaults to False.
        num_outputs: Width of the head's output. Defaults to 1 (one number a sequence).
        positional: `"learned"`, `"sinusoidal"` or `"none"`. Defaults to `"learned"`.

    Raises:
        ValueError: If `positional` is unknown; in `forward`, if `numbers` is not 2-D,
            empty or longer than `max_len`.
        TypeError: In `forward`, if `numbers` is not a floating-point tensor.

    Shape:
        - numbers: (B, T), floats
        - output: (B,), one number per sequence; (B, num_outputs) if num_outputs > 1
        - weights: a list of `num_layers` tensors of shape (B, h, T, T)

    Examples:
        >>> prediction, weights = DigitModel()(torch.zeros(3, 8))
        >>> prediction.shape, weights[0].shape
        (torch.Size([3]), torch.Size([3, 4, 8, 8]))
    """

    def __init__(
        self,
        d_model: int = 32,
        num_heads: int = 4,
        d_ff: int = 64,
        num_layers: int = 2,
        max_len: int = 16,
        dropout: float = 0.1,
        norm_first: bool = False,
        num_outputs: int = 1,
        positional: str = "learned",
    ) -> None:
        super().__init__()
        self.input_projection = nn.Linear(1, d_model)  # one number -> one token vector
        self.positions = positional_encoding(positional, d_model, max_len)
        layer = (d_model, num_heads, d_ff, dropout, norm_first)  # one layer's arguments
        self.layers = nn.ModuleList(EncoderLayer(*layer) for _ in range(num_layers))
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.head = nn.Linear(d_model, num_outputs)

    def forward(
        self, numbers: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(prediction, weights)` for a batch of number sequences."""
        check_numbers(numbers)  # floats, (B, T), T >= 1: a mean of nothing is NaN
        x = self.input_projection(numbers.unsqueeze(-1))  # (B, T, d_model)
        x = self.positions(x)  # (B, T, d_model)
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask=mask)
            all_weights.append(weights)
        pooled = self.final_norm(x).mean(dim=1)  # (B, d_model): average over positions
        output = self.head(pooled)  # (B, num_outputs)
        return (output.squeeze(-1) if output.size(-1) == 1 else output), all_weights


# --8<-- [end:digit_model]


# --8<-- [start:schedule]
SCHEDULES = ("constant", "inverse_sqrt", "cosine")


def learning_rate_factor(
    step: int,
    steps: int,
    warmup_steps: int = 0,
    schedule: str = "constant",
) -> float:
    """The multiple of the base learning rate used at optimizer step `step` (from 0).

    Every schedule first rises linearly from almost 0 to 1 over `warmup_steps` steps.
    After the warm-up, `"constant"` stays at 1, `"inverse_sqrt"` (the paper's schedule)
    decays as one over the square root of the step, and `"cosine"` falls along half a
    cosine wave to 0 at the last step.

    Args:
        step: The optimizer step, from 0 to `steps - 1`.
        steps: Total number of optimizer steps.
        warmup_steps: Length of the linear warm-up. Defaults to 0.
        schedule: One of `"constant"`, `"inverse_sqrt"` or `"cosine"`. Defaults to
            `"constant"`.

    Returns:
        The factor; the learning rate at this step is `lr * factor`.

    Raises:
        ValueError: If `schedule` is unknown, or `step` or `warmup_steps` is negative.

    Examples:
        >>> steps = (0, 99, 399)
        >>> [round(learning_rate_factor(s, 400, 100, "inverse_sqrt"), 2) for s in steps]
        [0.01, 1.0, 0.5]
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    if step < 0 or warmup_steps < 0:
        raise ValueError(f"step={step} and warmup_steps={warmup_steps} must be >= 0")
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if schedule == "inverse_sqrt":
        return math.sqrt(max(1, warmup_steps) / (step + 1))
    if schedule == "cosine":
        progress = (step - warmup_steps) / max(1, steps - 1 - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * progress))
    return 1.0


# --8<-- [end:schedule]


# --8<-- [start:train]
@dataclass
class TrainResult:
    """What [`train_digit_model`][tutorial_code.digit_model.train_digit_model] returns.

    Attributes:
        model: The trained model, left in eval mode.
        losses: Training loss at every step.
        eval_loss: Loss on a fixed held-out batch of 1024 sequences, in eval mode.
        seconds: Wall-clock training time.
    """

    model: DigitModel
    losses: list[float] = field(repr=False)
    eval_loss: float
    seconds: float


Batches = Callable[[int, int, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


# --8<-- [end:train]
@reusable  # not shown: the build shares trainings between chapters (tutorial_code/shared_runs.py)
# --8<-- [start:train_function]
def train_digit_model(
    batches: Batches,
    loss_fn: nn.Module,
    steps: int = 500,
    seed: int = 0,
    batch_size: int = 64,
    seq_len: int = 8,
    lr: float = 1e-3,
    norm_first: bool = False,
    dropout: float = 0.1,
    model: DigitModel | None = None,
    warmup_steps: int = 0,
    clip_norm: float | None = None,
    schedule: str = "constant",
    device: str = "cpu",
) -> TrainResult:
    """Train a [`DigitModel`][tutorial_code.digit_model.DigitModel] with Adam, one fresh
    batch per step.

    Deterministic on a CPU for a given `seed`: the same seed gives the same losses.

    Args:
        batches: Makes `(inputs, targets)` from `(batch_size, seq_len, generator)`, for
            example [`sum_task.make_batch`][tutorial_code.sum_task.make_batch].
        loss_fn: The loss, for example `nn.MSELoss()`.
        steps: Optimizer steps. Defaults to 500.
        seed: Seeds the initial weights, the dropout and the data. Defaults to 0.
        batch_size: Sequences per step. Defaults to 64.
        seq_len: Digits per sequence. Defaults to 8.
        lr: Adam learning rate. Defaults to 1e-3.
        norm_first: Build the pre-norm variant (when `model` is None). Defaults to
            False.
        dropout: The dropout probability of the model built (when `model` is None).
            Defaults to 0.1.
        model: A model to train instead of a new post-norm `DigitModel`. Defaults to
            None.
        warmup_steps: Raise the learning rate linearly from 0 over this many steps.
            Defaults to 0.
        clip_norm: Clip the gradient norm to this value before each step. Defaults to
            None (no clipping).
        schedule: The learning rate after the warm-up: `"constant"`, `"inverse_sqrt"`
            or `"cosine"`, see
            [`learning_rate_factor`][tutorial_code.digit_model.learning_rate_factor].
            Defaults to `"constant"`.
        device: Where to train, for example `"cuda"`; the trained model comes back on
            the CPU. Defaults to `"cpu"`.

    Returns:
        A [`TrainResult`][tutorial_code.digit_model.TrainResult].

    Raises:
        ValueError: If `steps`, `batch_size` or `seq_len` is below 1, `warmup_steps`
            below 0, `lr` or `clip_norm` not above 0, or `schedule` is unknown.
        TypeError: If one of those counts is not an int.

    Examples:
        >>> def zeros(batch_size, seq_len, generator):
        ...     return torch.zeros(batch_size, seq_len), torch.zeros(batch_size)
        >>> result = train_digit_model(zeros, nn.MSELoss(), steps=5)
        >>> len(result.losses)
        5
    """
    check_counts(steps=steps, batch_size=batch_size, seq_len=seq_len)
    check_positive(lr=lr, clip_norm=clip_norm)
    learning_rate_factor(0, steps, warmup_steps, schedule)  # fails before training
    torch.manual_seed(seed)  # initial weights and dropout
    data = torch.Generator().manual_seed(seed)  # training batches
    if model is None:
        longest = max(16, seq_len)
        model = DigitModel(max_len=longest, norm_first=norm_first, dropout=dropout)
    model.to(device)
    # foreach=True: one update for all tensors, faster
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    # Warm-up: small steps while Adam's statistics are still noisy; then the schedule.
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: learning_rate_factor(step, steps, warmup_steps, schedule),
    )
    losses = []
    start = time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="training", unit="step"):
        inputs, targets = batches(batch_size, seq_len, data)
        prediction, _ = model(inputs.to(device))
        loss = loss_fn(prediction, targets.to(device))
        optimizer.zero_grad()
        loss.backward()
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    model.cpu()
    eval_loss = evaluate(model, batches, loss_fn, seq_len)
    return TrainResult(model.eval(), losses, eval_loss, seconds)


def evaluate(
    model: DigitModel,
    batches: Batches,
    loss_fn: nn.Module,
    seq_len: int = 8,
) -> float:
    """Loss of `model` in eval mode on a fixed batch of 1024 sequences (seed 1234).

    Args:
        model: The model to evaluate; it is switched to eval mode.
        batches: Makes `(inputs, targets)`.
        loss_fn: The loss.
        seq_len: Digits per sequence. Defaults to 8.

    Returns:
        The loss on the held-out batch.
    """
    check_counts(seq_len=seq_len)
    inputs, targets = batches(1024, seq_len, torch.Generator().manual_seed(1234))
    model.eval()  # dropout off: predictions are deterministic
    with torch.no_grad():
        prediction, _ = model(inputs)
    return loss_fn(prediction, targets).item()


# --8<-- [end:train_function]
