"""RMSNorm: LayerNorm without the mean subtraction and without the shift.

Llama, Mistral, Qwen and T5 normalize with it. It divides each token vector by its
root mean square and scales the result; the mean stays where it is and no bias is added.

Shape letters: B = batch size, T = sequence length, d_model = width of a token vector.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.validation import check_float_tensors

# --8<-- [end:imports]


# --8<-- [start:rms_norm]
class RMSNorm(nn.Module):
    """Rescale each token vector to root mean square 1, then scale it.

    The same computation as `torch.nn.RMSNorm(d_model, eps)` and as Llama's
    `LlamaRMSNorm`, with the same parameter name (`weight`), so that `load_state_dict`
    copies one into the other. Against [`LayerNorm`][tutorial_code.layer_norm.LayerNorm]
    it drops two things: the mean subtraction and the learned shift (`bias`).

    Args:
        d_model: Width of the token vectors.
        eps: Added to the mean square, so that a zero vector does not divide by zero.
            Defaults to 1e-6, as in Llama.

    Raises:
        TypeError: In `forward`, if the input is not a floating-point tensor.
        ValueError: In `forward`, if the last axis of the input is not `d_model` wide.

    Shape:
        - x: (..., d_model), for example (B, T, d_model)
        - output: the same shape as `x`

    Examples:
        >>> norm = RMSNorm(4)
        >>> y = norm(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> round(y.pow(2).mean().item(), 4), round(y.mean().item(), 4)  # mean not 0
        (1.0, 0.9129)
    """

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # the learned scale (gamma)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the rescaled token vectors, shaped as `x`."""
        check_float_tensors(x=x)  # token vectors, not ids
        d_model = self.weight.numel()
        if x.size(-1) != d_model:
            got = x.size(-1)
            raise ValueError(f"x must end with d_model={d_model} features, got {got}")
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1); mean kept
        return x * torch.rsqrt(mean_square + self.eps) * self.weight  # (..., d_model)


# --8<-- [end:rms_norm]
