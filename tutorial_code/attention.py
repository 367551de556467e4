"""Scaled dot-product attention, and single-head self-attention built on it.

Shapes: B batch size, T sequence length (T_q queries, T_k keys), d_k the
width of a query or key, d_v of a value; extra leading axes pass through.
"""

# --8<-- [start:imports]
import math

import torch
from torch import nn

from tutorial_code.validation import (
    check_attention_inputs,
    check_attention_mask,
    check_counts,
    check_width,
)

# --8<-- [end:imports]


# --8<-- [start:scaled_dot_product_attention]
def scaled_dot_product_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attend from each query to all keys and return the weighted sum of values.

    Computes `softmax(query @ key^T / sqrt(d_k) + mask) @ value` for a query
    (..., T_q, d_k), key (..., T_k, d_k) and value (..., T_k, d_v).

    Args:
        mask: Boolean (`True` = may attend) or float (added to the scores),
            broadcastable to (..., T_q, T_k).
        dropout_p: Probability of zeroing each weight; 0.0 at inference.

    Returns:
        `(output, weights)`: (..., T_q, d_v) and (..., T_q, T_k). A row whose
        keys are all masked gets zero weights and a zero output, not NaN.

    Examples:
        >>> q = k = v = torch.eye(2).unsqueeze(0)  # (B=1, T=2, d_k=2)
        >>> output, weights = scaled_dot_product_attention(q, k, v)
        >>> weights.sum(dim=-1)
        tensor([[1., 1.]])
    """
    check_attention_inputs(query, key, value)
    d_k = query.size(-1)
    # Dividing by sqrt(d_k) keeps the scores' spread near 1 whatever d_k is:
    # a sum of d_k products of unit-variance numbers has variance d_k.
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        check_attention_mask(mask, scores.shape)
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
        # A row with every key blocked is all -inf, and softmax would make it
        # NaN (0 / 0). Define it as "attend to nothing": zero weights, zero
        # output.
        # (..., T_q, 1)
        no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)
        scores = scores.masked_fill(no_key, 0.0)
    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)
    if mask is not None:
        weights = weights.masked_fill(no_key, 0.0)
    if dropout_p > 0:
        weights = torch.nn.functional.dropout(weights, p=dropout_p)
    output = weights @ value  # (..., T_q, d_v)
    return output, weights


# --8<-- [end:scaled_dot_product_attention]


# --8<-- [start:self_attention]
class SelfAttention(nn.Module):
    """Single-head self-attention: queries, keys and values come from `x`.

    `d_k`, the width of queries, keys and values, defaults to `d_model`.

    Examples:
        >>> attention = SelfAttention(d_model=8, d_k=4)
        >>> output, weights = attention(torch.randn(2, 5, 8))
        >>> output.shape, weights.shape
        (torch.Size([2, 5, 4]), torch.Size([2, 5, 5]))
    """

    def __init__(self, d_model: int, d_k: int | None = None) -> None:
        super().__init__()
        d_k = d_model if d_k is None else d_k
        check_counts(d_model=d_model, d_k=d_k)
        self.d_model = d_model
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_k, bias=False)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return `(output, weights)` for token vectors `x` (B, T, d_model)."""
        check_width(x, self.d_model)
        return scaled_dot_product_attention(
            self.W_Q(x), self.W_K(x), self.W_V(x), mask
        )


# --8<-- [end:self_attention]
