"""SwiGLU: the gated feed-forward network of Llama, Mistral, Qwen and PaLM."""

# --8<-- [start:imports]
import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.validation import check_counts, check_width

# --8<-- [end:imports]


# --8<-- [start:swiglu]
class SwiGLU(nn.Module):
    """`down(silu(gate(x)) * up(x))` at every position alone; no biases.

    `d_ff` is the hidden width (Llama's `intermediate_size`; its layers are
    `gate_proj`, `up_proj`, `down_proj`).

    Examples:
        >>> ffn = SwiGLU(d_model=8, d_ff=24)
        >>> ffn(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
        >>> sum(p.numel() for p in ffn.parameters())  # 3 * 8 * 24
        576
    """

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        check_counts(d_model=d_model, d_ff=d_ff)
        self.gate = nn.Linear(d_model, d_ff, bias=False)
        self.up = nn.Linear(d_model, d_ff, bias=False)
        self.down = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the transformed token vectors, same shape as `x`."""
        check_width(x, self.gate.in_features, dims=None)  # any leading axes
        # (..., d_model) -> two (..., d_ff) vectors, multiplied
        # -> (..., d_model)
        return self.down(F.silu(self.gate(x)) * self.up(x))


# --8<-- [end:swiglu]


# --8<-- [start:swiglu_hidden_size]
def swiglu_hidden_size(d_model: int, d_ff: int) -> int:
    """The SwiGLU hidden width with the parameter count of a ReLU network.

    About `2/3 * d_ff`: SwiGLU has three matrices, `FeedForward` two and biases.

    Examples:
        >>> swiglu_hidden_size(64, 256)  # (2*64*256 + 256 + 64)/(3*64) = 172.3
        172
    """
    check_counts(d_model=d_model, d_ff=d_ff)
    relu_parameters = 2 * d_model * d_ff + d_ff + d_model
    return max(1, round(relu_parameters / (3 * d_model)))


# --8<-- [end:swiglu_hidden_size]
