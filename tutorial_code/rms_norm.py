"""RMSNorm: LayerNorm without the mean subtraction and without the shift."""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.validation import (
    check_counts,
    check_float_tensors,
    check_positive,
)

# --8<-- [end:imports]


# --8<-- [start:rms_norm]
class RMSNorm(nn.Module):
    """Rescale each token vector to root mean square 1, then scale it.

    As `torch.nn.RMSNorm(d_model, eps)` and Llama's `LlamaRMSNorm`, parameter
    name (`weight`) included: `load_state_dict` copies one into the other.

    Examples:
        >>> norm = RMSNorm(4)
        >>> y = norm(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> round(y.pow(2).mean().item(), 4), round(y.mean().item(), 4)
        (1.0, 0.9129)
    """

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        check_counts(d_model=d_model)
        check_positive(eps=eps)
        self.eps = eps
        # the learned scale (gamma)
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the rescaled token vectors, shaped as `x`."""
        check_float_tensors(x=x)  # token vectors, not ids
        d_model = self.weight.numel()
        if x.size(-1) != d_model:
            got = x.size(-1)
            raise ValueError(
                f"x must end with d_model={d_model} features, got {got}"
            )
        # at least float32, as nn.RMSNorm computes float16 inside
        h = x.to(torch.promote_types(x.dtype, torch.float32))
        mean_square = h.pow(2).mean(dim=-1, keepdim=True)  # (..., 1); mean kept
        scaled = h * torch.rsqrt(mean_square + self.eps) * self.weight
        return scaled.to(x.dtype)  # (..., d_model), as x: float16 stays


# --8<-- [end:rms_norm]
