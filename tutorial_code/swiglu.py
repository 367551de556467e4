"""SwiGLU: the gated feed-forward network of Llama, Mistral, Qwen and PaLM.

Chapter 7's feed-forward network is `linear2(relu(linear1(x)))`. SwiGLU computes two
hidden vectors from each token, a gate and a value ("up"), multiplies them feature by
feature after passing the gate through SiLU (`x * sigmoid(x)`, also called swish), and
projects the product back down. Three matrices instead of two, so at the same parameter
count the hidden layer is about 2/3 as wide
([`swiglu_hidden_size`][tutorial_code.swiglu.swiglu_hidden_size]).

Shape letters: B = batch size, T = sequence length, d_model = width of a token vector,
d_ff = width of the hidden layer.
"""

# --8<-- [start:imports]
import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.validation import check_counts, check_width

# --8<-- [end:imports]


# --8<-- [start:swiglu]
class SwiGLU(nn.Module):
    """`down(silu(gate(x)) * up(x))`, applied to every position alone; no biases.

    The gate decides, feature by feature, how much of the "up" vector passes. Parameter
    names follow their role (`gate`, `up`, `down`; Llama calls them `gate_proj`,
    `up_proj`, `down_proj`).

    Args:
        d_model: Width of the token vectors.
        d_ff: Width of the hidden layer (Llama: `intermediate_size`).

    Shape:
        - x: (..., d_model), for example (B, T, d_model)
        - output: the same shape as `x`

    Examples:
        >>> ffn = SwiGLU(d_model=8, d_ff=24)
        >>> ffn(torch.randn(2, 5, 8)).shape, sum(p.numel() for p in ffn.parameters())
        (torch.Size([2, 5, 8]), 576)
    """

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.gate = nn.Linear(d_model, d_ff, bias=False)
        self.up = nn.Linear(d_model, d_ff, bias=False)
        self.down = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the transformed token vectors, same shape as `x`."""
        check_width(x, self.gate.in_features, dims=None)  # any leading axes
        # (..., d_model) -> two (..., d_ff) vectors, multiplied -> (..., d_model)
        return self.down(F.silu(self.gate(x)) * self.up(x))


# --8<-- [end:swiglu]


# --8<-- [start:swiglu_hidden_size]
def swiglu_hidden_size(d_model: int, d_ff: int) -> int:
    """The SwiGLU hidden width with the parameter count of chapter 7's ReLU network.

    [`FeedForward(d_model, d_ff)`][tutorial_code.feed_forward.FeedForward] holds `2 *
    d_model * d_ff + d_ff + d_model` parameters (two matrices and their biases);
    [`SwiGLU(d_model, hidden)`][tutorial_code.swiglu.SwiGLU] holds `3 * d_model *
    hidden`. The hidden width that makes them closest is about `2/3 * d_ff` (a little
    more, for the biases), rounded to the nearest integer. Llama 2 7B takes 2/3 of 4 *
    4096 and rounds up to a multiple of 256: 11008.

    Args:
        d_model: Width of the token vectors.
        d_ff: Hidden width of the ReLU feed-forward network.

    Returns:
        The hidden width for `SwiGLU(d_model, hidden)`.

    Raises:
        TypeError: If a size is not an int.
        ValueError: If a size is below 1.

    Examples:
        >>> swiglu_hidden_size(64, 256)  # (2*64*256 + 256 + 64) / (3*64) = 172.3
        172
    """
    check_counts(d_model=d_model, d_ff=d_ff)
    relu_parameters = 2 * d_model * d_ff + d_ff + d_model
    return max(1, round(relu_parameters / (3 * d_model)))


# --8<-- [end:swiglu_hidden_size]
