"""One small Transformer for every digit task, and the loop that trains it.

Shape letters: B = batch size, T = sequence length, h = `num_heads`.
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
from tutorial_code.modes import in_eval_mode
from tutorial_code.positional import positional_encoding
from tutorial_code.validation import (
    check_count,
    check_counts,
    check_flags,
    check_numbers,
    check_positive,
    check_probabilities,
)

# --8<-- [end:imports]
# isort: split
# not shown: only the build acts on the mark
from tutorial_code.shared_runs import reusable


# --8<-- [start:digit_model]
class DigitModel(nn.Module):
    """Numbers in, numbers out: projection, positions, encoders, mean, head.

    Args:
        norm_first: Pre-norm layers and a final LayerNorm if True.
        positional: `"learned"`, `"sinusoidal"` or `"none"`.

    Raises:
        ValueError: If `positional` is unknown, or `numbers` is not 2-D, empty
            or longer than `max_len`.
        TypeError: If `numbers` is not a floating-point tensor.

    Shape:
        - numbers: (B, T), floats
        - output: (B,); (B, num_outputs) if num_outputs > 1
        - weights: `num_layers` tensors of shape (B, h, T, T)

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
        check_counts(
            d_model=d_model,
            num_heads=num_heads,
            d_ff=d_ff,
            num_layers=num_layers,
            max_len=max_len,
            num_outputs=num_outputs,
        )
        check_flags(norm_first=norm_first)
        check_probabilities(dropout=dropout)
        # one number -> one token vector
        self.input_projection = nn.Linear(1, d_model)
        self.positions = positional_encoding(positional, d_model, max_len)
        # one layer's arguments
        layer = (d_model, num_heads, d_ff, dropout, norm_first)
        self.layers = nn.ModuleList(
            EncoderLayer(*layer) for _ in range(num_layers)
        )
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.head = nn.Linear(d_model, num_outputs)

    def forward(
        self, numbers: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return `(prediction, weights)` for a batch of number sequences."""
        # floats, (B, T), T >= 1: a mean of nothing is NaN
        check_numbers(numbers)
        x = self.input_projection(numbers.unsqueeze(-1))  # (B, T, d_model)
        x = self.positions(x)  # (B, T, d_model)
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask=mask)
            all_weights.append(weights)
        # (B, d_model): average over positions
        pooled = self.final_norm(x).mean(dim=1)
        output = self.head(pooled)  # (B, num_outputs)
        return (
            output.squeeze(-1) if output.size(-1) == 1 else output
        ), all_weights


# --8<-- [end:digit_model]


# --8<-- [start:schedule]
SCHEDULES = ("constant", "inverse_sqrt", "cosine")


def learning_rate_factor(
    step: int, steps: int, warmup_steps: int = 0, schedule: str = "constant"
) -> float:
    """The multiple of the base learning rate at optimizer step `step` (from 0).

    A linear warm-up to 1 over `warmup_steps`, then `"constant"` stays at 1,
    `"inverse_sqrt"` decays as 1/sqrt(step) and `"cosine"` falls to 0 at the
    last step.

    Raises:
        ValueError: If `schedule` is unknown or a step count is negative.

    Examples:
        >>> steps = (0, 99, 399)
        >>> [round(learning_rate_factor(s, 400, 100, "inverse_sqrt"), 2)
        ...  for s in steps]
        [0.01, 1.0, 0.5]
    """
    if schedule not in SCHEDULES:
        raise ValueError(
            f"schedule must be one of {SCHEDULES}, got {schedule!r}"
        )
    check_count(step, "step", minimum=0)
    check_count(steps, "steps")
    check_count(warmup_steps, "warmup_steps", minimum=0)
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if schedule == "inverse_sqrt":
        return math.sqrt(max(1, warmup_steps) / (step + 1))
    if schedule == "cosine":
        progress = (step - warmup_steps) / max(1, steps - 1 - warmup_steps)
        # past the last step it stays at 0 (cos would climb back up)
        return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
    return 1.0


# --8<-- [end:schedule]


# --8<-- [start:train]
@dataclass
class TrainResult:
    """What `train_digit_model` returns.

    Attributes:
        model: The trained model, in eval mode.
        eval_loss: Loss on a fixed held-out batch of 1024 sequences.
    """

    model: DigitModel
    losses: list[float] = field(repr=False)
    eval_loss: float
    seconds: float


Batches = Callable[
    [int, int, torch.Generator], tuple[torch.Tensor, torch.Tensor]
]


# --8<-- [end:train]
# not shown: the build shares trainings between chapters (shared_runs.py)
@reusable
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
    """Train a `DigitModel` with Adam, one fresh batch per step.

    Args:
        batches: Makes `(inputs, targets)` from `(batch_size, seq_len,
            generator)`, like `sum_task.make_batch`.
        seed: Seeds the weights, the dropout and the data: on a CPU, the same
            seed gives the same losses.
        norm_first: Build the pre-norm variant (when `model` is None).
        model: A model to train instead of a new post-norm `DigitModel`.
        clip_norm: Clip the gradient norm to this before each step; None: no.
        schedule: See `learning_rate_factor`.
        device: Where to train; the model comes back on the CPU.

    Raises:
        ValueError: If a count is below 1 (`warmup_steps` below 0), `lr` or
            `clip_norm` not above 0, or `schedule` is unknown.

    Examples:
        >>> def zeros(batch_size, seq_len, generator):
        ...     return torch.zeros(batch_size, seq_len), torch.zeros(batch_size)
        >>> result = train_digit_model(zeros, nn.MSELoss(), steps=5)
        >>> len(result.losses)
        5
    """
    check_counts(steps=steps, batch_size=batch_size, seq_len=seq_len)
    check_positive(lr=lr, clip_norm=clip_norm)
    # fails before training
    learning_rate_factor(0, steps, warmup_steps, schedule)
    torch.manual_seed(seed)  # initial weights and dropout
    data = torch.Generator().manual_seed(seed)  # training batches
    if model is None:
        longest = max(16, seq_len)
        model = DigitModel(
            max_len=longest, norm_first=norm_first, dropout=dropout
        )
    model.to(device)
    # foreach=True: one update for all tensors, faster
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    # Warm-up: small steps while Adam's statistics are noisy; then the schedule.
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: learning_rate_factor(step, steps, warmup_steps, schedule),
    )
    losses = []
    start = time.perf_counter()
    model.train()
    for _ in tqdm(range(steps), desc="digit model", unit="step"):
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


@in_eval_mode  # dropout off; the caller's mode restored
def evaluate(
    model: DigitModel, batches: Batches, loss_fn: nn.Module, seq_len: int = 8
) -> float:
    """Loss of `model`, in eval mode, on 1024 sequences of seed 1234."""
    check_counts(seq_len=seq_len)
    inputs, targets = batches(
        1024, seq_len, torch.Generator().manual_seed(1234)
    )
    with torch.no_grad():
        prediction, _ = model(inputs)
    return loss_fn(prediction, targets).item()


# --8<-- [end:train_function]
