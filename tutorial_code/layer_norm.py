"""Layer normalization written by hand: what `nn.LayerNorm` computes."""

# --8<-- [start:imports]
import torch
from torch import nn

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
        self.eps = eps
        # the learned scale (gamma)
        self.weight = nn.Parameter(torch.ones(d_model))
        # the learned shift (beta)
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalized, scaled and shifted vectors, shaped as `x`."""
        d_model = self.weight.numel()
        if x.size(-1) != d_model:
            got = x.size(-1)
            raise ValueError(
                f"x must end with d_model={d_model} features, got {got}"
            )
        # (..., 1): one mean per token vector
        mean = x.mean(dim=-1, keepdim=True)
        # The biased variance (divide by d_model, not d_model - 1), as
        # nn.LayerNorm.
        variance = x.var(dim=-1, unbiased=False, keepdim=True)  # (..., 1)
        # mean 0, variance 1
        normalized = (x - mean) / torch.sqrt(variance + self.eps)
        return normalized * self.weight + self.bias  # (..., d_model)


# --8<-- [end:layer_norm]
