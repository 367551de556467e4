"""Layer normalization written by hand: what `nn.LayerNorm` computes, in a few lines.

Shape letters: B = batch size, T = sequence length, d_model = width of a token vector.
"""

# --8<-- [start:imports]
import torch
from torch import nn

# --8<-- [end:imports]


# --8<-- [start:layer_norm]
class LayerNorm(nn.Module):
    """Rescale each token vector to mean 0 and variance 1, then scale and shift it.

    The same computation as `nn.LayerNorm(d_model)`, with parameters of the same names
    (`weight`, `bias`), so that `load_state_dict` copies one into the other.

    Args:
        d_model: Width of the token vectors.
        eps: Added to the variance, so that a constant vector does not divide by zero.
            Defaults to 1e-5, as in PyTorch.

    Raises:
        ValueError: In `forward`, if the last axis of the input is not `d_model` wide.

    Shape:
        - x: (..., d_model), for example (B, T, d_model)
        - output: the same shape as `x`

    Examples:
        >>> norm = LayerNorm(4)
        >>> y = norm(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> round(y.mean().item(), 6), round(y.var(unbiased=False).item(), 3)
        (0.0, 1.0)
    """

    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # the learned scale (gamma)
        self.bias = nn.Parameter(torch.zeros(d_model))  # the learned shift (beta)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalized, scaled and shifted token vectors, shaped as `x`."""
        d_model = self.weight.numel()
        if x.size(-1) != d_model:
            got = x.size(-1)
            raise ValueError(f"x must end with d_model={d_model} features, got {got}")
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token vector
        # The biased variance (divide by d_model, not d_model - 1), as nn.LayerNorm.
        variance = x.var(dim=-1, unbiased=False, keepdim=True)  # (..., 1)
        normalized = (x - mean) / torch.sqrt(variance + self.eps)  # mean 0, variance 1
        return normalized * self.weight + self.bias  # (..., d_model)


# --8<-- [end:layer_norm]
