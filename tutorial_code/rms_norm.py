"""RMSNorm: LayerNorm without the mean subtraction and without the shift."""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.validation import check_float_tensors

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
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1); mean kept
        # (..., d_model)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight


# --8<-- [end:rms_norm]
