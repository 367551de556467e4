"""Residual connections and LayerNorm: what each contributes to a deep stack, measured.

Shape letters: B = batch size, T = sequence length, d_model = width of a token vector.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.feed_forward import FeedForward
from tutorial_code.validation import check_counts

# --8<-- [end:imports]


# --8<-- [start:block]
class Block(nn.Module):
    """A feed-forward sub-layer, with or without its residual connection and LayerNorm.

    With both it computes `norm(x + ffn(x))` (post-norm, as in the paper). Without
    the residual, every layer must pass the whole signal (and the whole gradient)
    through its weights; without the norm, nothing rescales the activations.

    Args:
        d_model: Width of the token vectors.
        residual: Whether to add the input back. Defaults to True.
        norm: Whether to apply LayerNorm after the sum. Defaults to True.

    Shape:
        - x: (B, T, d_model)
        - output: (B, T, d_model)
    """

    def __init__(self, d_model: int, residual: bool = True, norm: bool = True) -> None:
        super().__init__()
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
    """Gradient norm of each layer's first weight matrix, for a random target.

    Args:
        num_layers: Depth of the stack. Defaults to 32.
        residual: Whether the blocks keep their residual connection. Defaults to True.
        norm: Whether the blocks keep their LayerNorm. Defaults to True.
        d_model: Width of the token vectors. Defaults to 64.
        seed: Seed of the weights, input and target. Defaults to 0.

    Returns:
        One gradient norm per layer, from the first layer (index 0) to the last.
    """
    check_counts(num_layers=num_layers, d_model=d_model)
    torch.manual_seed(seed)
    stack = nn.Sequential(*(Block(d_model, residual, norm) for _ in range(num_layers)))
    x, target = torch.randn(8, 16, d_model), torch.randn(8, 16, d_model)
    nn.functional.mse_loss(stack(x), target).backward()
    return [block.feed_forward.linear1.weight.grad.norm().item() for block in stack]


# --8<-- [end:gradient_norm_per_layer]
