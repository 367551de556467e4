"""What makes attention cheaper: fused QKV, counting operations, bucketing."""

# --8<-- [start:imports]
import time

import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.masks import merge_masks
from tutorial_code.multi_head import (
    EfficientMultiHeadAttention,
    combine_heads,
    split_heads,
)
from tutorial_code.validation import check_counts, check_width

# --8<-- [end:imports]


# --8<-- [start:fused_qkv_attention]
class FusedQKVAttention(EfficientMultiHeadAttention):
    """Self-attention on the fused kernel, one (d_model, 3 d_model) projection.

    One matrix product for Q, K and V instead of three; otherwise the same as
    `EfficientMultiHeadAttention`. Maps (B, T, d_model) to (B, T, d_model).
    """

    def __init__(self, d_model: int, num_heads: int) -> None:
        check_counts(d_model=d_model, num_heads=num_heads)
        super().__init__(d_model, num_heads)
        del self.W_Q, self.W_K, self.W_V
        self.W_QKV = nn.Linear(d_model, 3 * d_model)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        """Return `(output, None)` for token vectors `x`."""
        check_width(x, self.d_model)
        mask = merge_masks(mask, None, x, x)  # checked as in MultiHeadAttention
        Q, K, V = (
            split_heads(part, self.num_heads)
            for part in self.W_QKV(x).chunk(3, dim=-1)
        )
        # (B, h, T, d_k)
        heads = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
        return self.W_O(combine_heads(heads)), None


# --8<-- [end:fused_qkv_attention]


# --8<-- [start:throughput]
def matmul_gflops(size: int = 2048, repeats: int = 5) -> float:
    """Measured float32 matrix-multiply throughput of this machine, GFLOP/s."""
    check_counts(size=size, repeats=repeats)
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    seconds = (time.perf_counter() - start) / repeats
    return 2 * size**3 / seconds / 1e9


def attention_flops(batch: int, seq_len: int, d_model: int) -> float:
    """FLOPs of one self-attention forward: projections, QK^T, weights @ V."""
    projections = 4 * 2 * batch * seq_len * d_model * d_model
    scores_and_mix = 2 * 2 * batch * seq_len * seq_len * d_model
    return projections + scores_and_mix


# --8<-- [end:throughput]


# --8<-- [start:bucketing]
def padding_fraction(
    lengths: list[int], batch_size: int, bucketed: bool
) -> float:
    """Share of padding when `lengths` are batched, each padded to its longest.

    `bucketed` sorts by length before batching, instead of the order given.

    Examples:
        >>> padding_fraction([1, 4, 1, 4], 2, bucketed=False)
        0.375
        >>> padding_fraction([1, 4, 1, 4], 2, bucketed=True)
        0.0
    """
    check_counts(batch_size=batch_size, sequences=len(lengths))
    order = sorted(lengths) if bucketed else list(lengths)
    batches = [
        order[i : i + batch_size] for i in range(0, len(order), batch_size)
    ]
    processed = sum(max(batch) * len(batch) for batch in batches)
    return 1 - sum(lengths) / processed


def realistic_lengths(count: int = 20_000, seed: int = 0) -> list[int]:
    """Sentence-like lengths: log-normal, median about 40, clipped to 4..512."""
    check_counts(count=count)
    generator = torch.Generator().manual_seed(seed)
    lengths = (
        torch.exp(torch.randn(count, generator=generator) * 0.6 + 3.7)
        .round()
        .clamp(4, 512)
    )
    return [int(v) for v in lengths]


# --8<-- [end:bucketing]
