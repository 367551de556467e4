"""Mixed precision: the forward pass in 16 bits, the weights kept in 32.

float16 keeps 10 mantissa bits but a narrow range: a gradient below about
6e-8 becomes 0. A gradient scaler multiplies the loss before `backward()` and
divides the gradients after. bfloat16 keeps float32's range and needs none.
"""

# --8<-- [start:imports]
from collections.abc import Callable

import torch
from torch import nn

# --8<-- [end:imports]


# --8<-- [start:half_precision_dtype]
def half_precision_dtype(device_type: str) -> torch.dtype:
    """float16 on a CUDA GPU, whose tensor cores all run it (bfloat16 only
    from Ampere on); bfloat16 elsewhere, as on a CPU.

    Examples:
        >>> half_precision_dtype("cuda"), half_precision_dtype("cpu")
        (torch.float16, torch.bfloat16)
    """
    return torch.float16 if device_type == "cuda" else torch.bfloat16


# --8<-- [end:half_precision_dtype]


# --8<-- [start:flushed_to_zero]
def flushed_to_zero(values: torch.Tensor, scale: float = 1.0) -> float:
    """Share of the nonzero `values` that become 0 in float16 after `* scale`.

    Examples:
        >>> flushed_to_zero(torch.tensor([1e-3, 1e-9]))
        0.5
        >>> flushed_to_zero(torch.tensor([1e-3, 1e-9]), scale=65536.0)
        0.0
    """
    nonzero = values[values != 0].float()
    if nonzero.numel() == 0:
        return 0.0
    return ((nonzero * scale).half() == 0).float().mean().item()


# --8<-- [end:flushed_to_zero]


# --8<-- [start:train_mixed]
def train_mixed(
    model: nn.Module,
    make_batch: Callable[..., tuple[torch.Tensor, torch.Tensor]],
    steps: int = 100,
    lr: float = 1e-3,
    seed: int = 0,
    dtype: torch.dtype = torch.bfloat16,
    device: str = "cpu",
) -> list[float]:
    """Chapter 7's `train`, its forward pass autocast to `dtype`.

    float16 gets a gradient scaler; bfloat16 and float32 need none.
    """
    if dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise ValueError(
            "dtype must be torch.float32, torch.bfloat16 or torch.float16, "
            f"got {dtype}"
        )
    device_type = torch.device(device).type
    torch.manual_seed(seed)
    data = torch.Generator().manual_seed(seed)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    # multiplies the loss by 65536 at first; halves that after inf gradients
    scaler = torch.amp.GradScaler(device_type, enabled=dtype == torch.float16)
    losses = []
    model.train()
    for _ in range(steps):
        inputs, targets = make_batch(generator=data)
        inputs, targets = inputs.to(device), targets.to(device)
        # the matrix products in dtype; the weights stay float32
        with torch.autocast(device_type, dtype, dtype != torch.float32):
            prediction, _ = model(inputs)
        loss = nn.functional.mse_loss(prediction.float(), targets)
        optimizer.zero_grad()
        scaler.scale(loss).backward()  # the gradients of loss * scale
        scaler.step(optimizer)  # divides them by it; skips a step on inf
        scaler.update()  # the scale of the next step
        losses.append(loss.item())
    model.cpu()
    return losses


# --8<-- [end:train_mixed]
