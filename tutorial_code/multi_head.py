"""Multi-head attention: h heads side by side, mixed by the output projection.

Shapes: h = `num_heads`, d_k = d_model / h the width of one head.
"""

# --8<-- [start:imports]
import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import merge_masks
from tutorial_code.validation import (
    check_attention_mask,
    check_counts,
    check_flags,
    check_probabilities,
)

# --8<-- [end:imports]


# --8<-- [start:split_heads]
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Cut the last axis into heads: (B, T, d_model) to (B, h, T, d_k).

    Examples:
        >>> split_heads(torch.zeros(2, 5, 8), num_heads=4).shape
        torch.Size([2, 4, 5, 2])
    """
    B, T, d_model = x.shape
    d_k = d_model // num_heads
    # view cuts d_model into (h, d_k); the transpose makes each head a separate
    # (T, d_k) matrix, so one batched matmul attends in all heads at once.
    return x.view(B, T, num_heads, d_k).transpose(1, 2)  # (B, h, T, d_k)


# --8<-- [end:split_heads]


# --8<-- [start:combine_heads]
def combine_heads(x: torch.Tensor) -> torch.Tensor:
    """Undo `split_heads`: (B, h, T, d_k) to (B, T, h * d_k).

    Examples:
        >>> combine_heads(torch.zeros(2, 4, 5, 2)).shape
        torch.Size([2, 5, 8])
    """
    B, h, T, d_k = x.shape
    # transpose back to (B, T, h, d_k); it leaves the memory non-contiguous,
    # so reshape (not view) copies it into one row per token.
    return x.transpose(1, 2).reshape(B, T, h * d_k)  # (B, T, d_model)


# --8<-- [end:combine_heads]


# --8<-- [start:heads_loop]
def attend_head_by_head(
    Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, num_heads: int
) -> torch.Tensor:
    """Attention one head at a time, in a loop: what batching heads replaces.

    `Q` (B, T_q, d_model) and `K`, `V` (B, T_k, d_model) are already projected;
    the result (B, T_q, d_model) equals `combine_heads` of the batched heads.

    Examples:
        >>> attend_head_by_head(*torch.randn(3, 2, 5, 8), num_heads=4).shape
        torch.Size([2, 5, 8])
    """
    d_k = Q.size(-1) // num_heads
    heads = []
    for i in range(num_heads):  # head i owns columns i*d_k to (i+1)*d_k
        cols = slice(i * d_k, (i + 1) * d_k)
        head, _ = scaled_dot_product_attention(
            Q[..., cols], K[..., cols], V[..., cols]
        )
        heads.append(head)  # (B, T_q, d_k)
    return torch.cat(heads, dim=-1)  # (B, T_q, d_model)


# --8<-- [end:heads_loop]


# --8<-- [start:multi_head_attention]
class MultiHeadAttention(nn.Module):
    """Multi-head attention: projections W_Q, W_K, W_V, output projection W_O.

    Args:
        num_heads: Number of heads h. Must divide `d_model`.
        dropout: Dropout probability on the attention weights.

    Examples:
        >>> attention = MultiHeadAttention(d_model=16, num_heads=4)
        >>> output, weights = attention(torch.randn(2, 5, 16))
        >>> output.shape, weights.shape
        (torch.Size([2, 5, 16]), torch.Size([2, 4, 5, 5]))
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
    ) -> None:
        super().__init__()
        check_counts(d_model=d_model, num_heads=num_heads)
        check_flags(bias=bias)
        check_probabilities(dropout=dropout)
        if d_model % num_heads != 0:
            raise ValueError(
                f"d_model={d_model} must be divisible by "
                f"num_heads={num_heads}; "
                f"each head gets d_k = d_model / num_heads features"
            )
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_Q = nn.Linear(d_model, d_model, bias=bias)
        self.W_K = nn.Linear(d_model, d_model, bias=bias)
        self.W_V = nn.Linear(d_model, d_model, bias=bias)
        self.W_O = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor | None = None,
        value: torch.Tensor | None = None,
        *,
        mask: torch.Tensor | None = None,
        key_is_real: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Return `(output, weights)`, (B, T_q, d_model) and (B, h, T_q, T_k).

        `key` defaults to `query` and `value` to `key`. `mask` is (T_q, T_k) or
        four axes broadcastable to (B, h, T_q, T_k); `key_is_real` is
        (B, T_k), `True` = a real token (PyTorch's is the opposite).
        """
        key = query if key is None else key
        value = key if value is None else value
        self._check_inputs(query, key, value)
        # both masks as one
        mask = merge_masks(mask, key_is_real, query, key)
        Q = split_heads(self.W_Q(query), self.num_heads)  # (B, h, T_q, d_k)
        K = split_heads(self.W_K(key), self.num_heads)  # (B, h, T_k, d_k)
        V = split_heads(self.W_V(value), self.num_heads)  # (B, h, T_k, d_k)
        heads, weights = self.attend(Q, K, V, mask)  # (B, h, T_q, d_k)
        return self.W_O(combine_heads(heads)), weights  # (B, T_q, d_model)

    def attend(
        self,
        Q: torch.Tensor,
        K: torch.Tensor,
        V: torch.Tensor,
        mask: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Scaled dot-product attention in every head at once."""
        dropout_p = self.dropout.p if self.training else 0.0
        return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)

    def _check_inputs(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
    ) -> None:
        for name, x in (("query", query), ("key", key), ("value", value)):
            if x.dim() != 3 or x.size(-1) != self.d_model:
                message = (
                    f"{name} must have shape (B, T, d_model={self.d_model})"
                )
                raise ValueError(f"{message}, got shape {tuple(x.shape)}")
        if key.shape[:2] != value.shape[:2]:
            shapes = f"{tuple(key.shape)} and {tuple(value.shape)}"
            raise ValueError(
                f"key and value must have the same (B, T_k), got {shapes}"
            )
        if query.size(0) != key.size(0):
            sizes = f"got {query.size(0)} and {key.size(0)}"
            raise ValueError(
                f"query and key must have the same batch size, {sizes}"
            )


# --8<-- [end:multi_head_attention]


# --8<-- [start:efficient_multi_head_attention]
class EfficientMultiHeadAttention(MultiHeadAttention):
    """`MultiHeadAttention` on PyTorch's fused attention kernel.

    Same parameters and results, but the kernel does not keep the weights: it
    returns `None` instead of them.

    Examples:
        >>> attention = EfficientMultiHeadAttention(d_model=16, num_heads=4)
        >>> output, weights = attention(torch.randn(2, 5, 16))
        >>> output.shape, weights
        (torch.Size([2, 5, 16]), None)
    """

    def attend(
        self,
        Q: torch.Tensor,
        K: torch.Tensor,
        V: torch.Tensor,
        mask: torch.Tensor | None,
    ) -> tuple[torch.Tensor, None]:
        """Fused attention in every head at once; the weights are not kept."""
        if mask is not None:
            check_attention_mask(mask, torch.Size((*Q.shape[:-1], K.size(-2))))
        dropout_p = self.dropout.p if self.training else 0.0
        # Same mask convention as ours (True = may attend), so no conversion.
        heads = F.scaled_dot_product_attention(Q, K, V, mask, dropout_p)
        return heads, None


# --8<-- [end:efficient_multi_head_attention]
