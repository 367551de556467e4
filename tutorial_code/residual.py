"""Residual connections and LayerNorm: what each does for a deep stack."""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.feed_forward import FeedForward
from tutorial_code.validation import check_counts, check_flags

# --8<-- [end:imports]


# --8<-- [start:block]
class Block(nn.Module):
    """A feed-forward sub-layer, with or without its residual and its norm.

    With both it computes `norm(x + ffn(x))` (post-norm, as in the paper).
    """

    def __init__(
        self, d_model: int, residual: bool = True, norm: bool = True
    ) -> None:
        super().__init__()
        check_counts(d_model=d_model)
        check_flags(residual=residual, norm=norm)
        self.residual = residual
        self.feed_forward = FeedForward(d_model, 4 * d_model)
        self.norm = nn.LayerNorm(d_model) if norm else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the block's output, same shape as `x`."""
        update = self.feed_forward(x)
        return self.norm(x + update if self.residual else update)


# --8<-- [end:block]


# --8<-- [start:gradient_norm_per_layer]
def gradient_norm_per_layer(
    num_layers: int = 32,
    residual: bool = True,
    norm: bool = True,
    d_model: int = 64,
    seed: int = 0,
) -> list[float]:
    """Gradient norm of each layer's first weight matrix, first layer first.

    The stack of `num_layers` `Block(d_model, residual, norm)` is seeded by
    `seed`; the loss is the mean squared error to a random target.
    """
    check_counts(num_layers=num_layers, d_model=d_model)
    check_flags(residual=residual, norm=norm)
    torch.manual_seed(seed)
    stack = nn.Sequential(
        *(Block(d_model, residual, norm) for _ in range(num_layers))
    )
    x, target = torch.randn(8, 16, d_model), torch.randn(8, 16, d_model)
    nn.functional.mse_loss(stack(x), target).backward()
    return [
        block.feed_forward.linear1.weight.grad.norm().item() for block in stack
    ]


# --8<-- [end:gradient_norm_per_layer]
