"""ALiBi (Press et al., 2021): no position vectors; each head subtracts from
its scores a penalty proportional to the distance between query and key."""

# --8<-- [start:imports]
import torch

from tutorial_code.validation import check_counts

# --8<-- [end:imports]


# --8<-- [start:alibi_slopes]
def alibi_slopes(num_heads: int) -> torch.Tensor:
    """One slope per head, 2^(-8/h) down to 2^(-8); `num_heads` a power of 2.

    Examples:
        >>> alibi_slopes(4)
        tensor([0.2500, 0.0625, 0.0156, 0.0039])
    """
    check_counts(num_heads=num_heads)
    if num_heads & (num_heads - 1):
        raise ValueError(
            "num_heads must be a power of 2 for the paper's slopes, "
            f"got {num_heads}"
        )
    return 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)


# --8<-- [end:alibi_slopes]


# --8<-- [start:alibi_bias]
def alibi_bias(num_heads: int, seq_len: int) -> torch.Tensor:
    """The float mask (h, T, T) that ALiBi adds to the scores, causal.

    Query t and key s <= t get `-slope * (t - s)`; a key after t gets -inf.
    It broadcasts over the batch: `scaled_dot_product_attention(Q, K, V,
    mask=alibi_bias(h, T))` with Q, K, V of shape (B, h, T, d_k).

    Examples:
        >>> alibi_bias(num_heads=2, seq_len=3)[0]
        tensor([[ 0.0000,    -inf,    -inf],
                [-0.0625,  0.0000,    -inf],
                [-0.1250, -0.0625,  0.0000]])
    """
    check_counts(seq_len=seq_len)
    position = torch.arange(seq_len)
    offset = position[None, :] - position[:, None]  # (T, T): s - t
    bias = alibi_slopes(num_heads)[:, None, None] * offset  # (h, T, T)
    return bias.masked_fill(offset > 0, float("-inf"))  # no key after t


# --8<-- [end:alibi_bias]
