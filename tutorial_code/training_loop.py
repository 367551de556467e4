"""A training loop by hand: the lines that every `train_*` function repeats."""

# --8<-- [start:imports]
from collections.abc import Callable

import torch
from torch import nn

# --8<-- [end:imports]


# --8<-- [start:train]
def train(
    model: nn.Module,
    make_batch: Callable[..., tuple[torch.Tensor, torch.Tensor]],
    steps: int = 100,
    lr: float = 1e-3,
    seed: int = 0,
) -> list[float]:
    """Fit `model` to `make_batch`'s targets by Adam and MSE; return the losses.

    Args:
        model: Returns `(prediction, weights)` for a batch of inputs.
        make_batch: Called as `make_batch(generator=...)`; returns `(inputs,
            targets)`.
        seed: Seeds the batches and the dropout.
    """
    torch.manual_seed(seed)  # dropout draws from the global generator
    # the batches: same seed, same data
    data = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    model.train()  # dropout on
    for _ in range(steps):
        inputs, targets = make_batch(generator=data)
        prediction, _ = model(inputs)  # the weights are not needed here
        loss = nn.functional.mse_loss(prediction, targets)
        optimizer.zero_grad()  # backward() adds to .grad: clear the last step's
        loss.backward()  # the gradient of the loss for every parameter
        optimizer.step()  # move every parameter against its gradient
        losses.append(loss.item())
    return losses


# --8<-- [end:train]
