"""Layer normalization written by hand: what `nn.LayerNorm` computes."""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.validation import check_counts, check_positive, check_width

# --8<-- [end:imports]


# --8<-- [start:layer_norm]
class LayerNorm(nn.Module):
    """Rescale each token vector to mean 0 and variance 1, then scale and shift.

    As `nn.LayerNorm(d_model)`, parameter names (`weight`, `bias`) included:
    `load_state_dict` copies one into the other. `eps` is added to the variance.

    Examples:
        >>> norm = LayerNorm(4)
        >>> y = norm(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> round(y.mean().item(), 6), round(y.var(unbiased=False).item(), 3)
        (0.0, 1.0)
    """

    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        check_counts(d_model=d_model)
        check_positive(eps=eps)
        self.eps = eps
        # the learned scale (gamma)
        self.weight = nn.Parameter(torch.ones(d_model))
        # the learned shift (beta)
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalized, scaled and shifted vectors, shaped as `x`."""
        check_width(x, self.weight.numel(), dims=None)  # any leading axes
        # at least float32, as nn.LayerNorm computes float16 inside
        h = x.to(torch.promote_types(x.dtype, torch.float32))
        # (..., 1): one mean per token vector
        mean = h.mean(dim=-1, keepdim=True)
        # The biased variance (divide by d_model, not d_model - 1), as
        # nn.LayerNorm.
        variance = h.var(dim=-1, unbiased=False, keepdim=True)  # (..., 1)
        # mean 0, variance 1
        normalized = (h - mean) / torch.sqrt(variance + self.eps)
        scaled = normalized * self.weight + self.bias  # (..., d_model)
        return scaled.to(x.dtype)  # as nn.LayerNorm: float16 stays float16


# --8<-- [end:layer_norm]
