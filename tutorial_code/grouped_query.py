"""Grouped-query attention: many query heads share a few key/value heads.

Generation keeps the keys and values of every past position (chapter 12's KV
cache): 2 x layers x B x h x T x d_k numbers with h heads. Grouped-query
attention keeps `num_kv_heads` key/value heads, each read by
`num_heads / num_kv_heads` query heads, and the cache shrinks by that factor.
`num_kv_heads == num_heads` is multi-head attention, `num_kv_heads == 1`
multi-query attention. Llama 2 70B and later Llama, Mistral and Qwen use it.

Shape letters: B = batch size, T = sequence length (n new positions after t
cached ones), d_model = width of a token vector, h = `num_heads`,
h_kv = `num_kv_heads`, d_k = width of one head.
"""

# --8<-- [start:imports]
from dataclasses import dataclass

import torch
from torch import nn

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import causal_mask
from tutorial_code.multi_head import combine_heads, split_heads
from tutorial_code.rotary import PAIRINGS, apply_rotary
from tutorial_code.validation import (
    check_cache_append,
    check_counts,
    check_flags,
    check_padding_mask,
    check_positive,
    check_probabilities,
    check_width,
)

# --8<-- [end:imports]


# --8<-- [start:kv_cache]
@dataclass
class KVCache:
    """One attention layer's keys and values of every position so far.

    A model keeps one per layer (`LlamaModel.new_cache()`), unlike chapter 12's
    `KVCache`, which holds every layer.

    Attributes:
        keys: (B, h_kv, t, d_k), rotated already; None before the first call.
        values: (B, h_kv, t, d_k); None before the first call.

    Examples:
        >>> cache = KVCache()
        >>> K, V = cache.append(torch.ones(2, 1, 3, 4), torch.ones(2, 1, 3, 4))
        >>> cache.length, cache.nbytes  # 2 tensors x 2 x 1 x 3 x 4 float32s
        (3, 192)
    """

    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """Positions the cache holds: the position of the next token."""
        return 0 if self.keys is None else self.keys.size(2)

    @property
    def nbytes(self) -> int:
        """Memory of the cached keys and values, in bytes."""
        return sum(t.nbytes for t in (self.keys, self.values) if t is not None)

    def append(
        self, K: torch.Tensor, V: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Add the keys and values of n new positions; return all t + n."""
        check_cache_append(self.keys, K, V)
        if self.keys is not None:
            K = torch.cat([self.keys, K], dim=2)  # (B, h_kv, t + n, d_k)
            V = torch.cat([self.values, V], dim=2)
        self.keys, self.values = K, V
        return K, V


def layer_caches(
    cache: list[KVCache] | None, num_layers: int
) -> list[KVCache | None]:
    """One cache per layer: `cache`, a model's list, checked, or Nones.

    Raises:
        TypeError: If `cache` is not a list of this module's `KVCache`.
        ValueError: If `cache` does not hold one cache per layer, or holds
            one cache twice.
    """
    if cache is None:
        return [None] * num_layers
    if not isinstance(cache, list):  # one KVCache for a model of several layers
        got = f"got {type(cache).__name__}"
        raise TypeError(
            f"cache must be a list of KVCache, one per layer, {got}"
        )
    if len(cache) != num_layers:
        got = f"{len(cache)} caches for {num_layers} layers"
        raise ValueError(f"cache holds {got}: start one with model.new_cache()")
    for layer in cache:
        if not isinstance(layer, KVCache):
            raise TypeError(
                "cache must hold one grouped_query.KVCache per layer, got "
                f"{type(layer).__module__}.{type(layer).__name__}: start one "
                "with model.new_cache()"
            )
    if len({id(layer) for layer in cache}) < num_layers:  # [KVCache()] * n
        raise ValueError(
            "cache holds the same KVCache for several layers, so each would "
            "read the others' keys: start one with model.new_cache()"
        )
    return cache


# --8<-- [end:kv_cache]


# --8<-- [start:grouped_attention]
def grouped_attention(
    Q: torch.Tensor,
    K: torch.Tensor,
    V: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention, groups of query heads sharing a K/V head.

    Each key/value head is repeated for the `h / h_kv` query heads of its
    group (query head i reads key/value head `i // (h / h_kv)`), then every head
    attends with chapter 2's `scaled_dot_product_attention`.

    Args:
        Q: Queries, (B, h, T_q, d_k).
        K: Keys, (B, h_kv, T_k, d_k); h_kv must divide h.
        V: Values, (B, h_kv, T_k, d_k).
        mask: Boolean, True = may attend, broadcastable to (B, h, T_q, T_k).
        dropout_p: Dropout probability on the weights.

    Returns:
        `(output, weights)`: (B, h, T_q, d_k) and (B, h, T_q, T_k).

    Raises:
        ValueError: If h_kv does not divide h.

    Examples:
        >>> Q = torch.randn(1, 4, 3, 8)
        >>> K = torch.randn(1, 1, 3, 8)  # one key/value head: multi-query
        >>> output, weights = grouped_attention(Q, K, K)
        >>> output.shape, weights.shape
        (torch.Size([1, 4, 3, 8]), torch.Size([1, 4, 3, 3]))
    """
    if Q.dim() != 4 or K.dim() != 4 or Q.size(1) % K.size(1):
        raise ValueError(
            "Q (B, h, T_q, d_k) and K (B, h_kv, T_k, d_k) need h_kv "
            f"dividing h, got shapes {tuple(Q.shape)} and {tuple(K.shape)}"
        )
    group = Q.size(1) // K.size(1)  # query heads per key/value head
    # (B, h, T_k, d_k): the same tensor repeated, no new parameters
    K = K.repeat_interleave(group, dim=1)
    V = V.repeat_interleave(group, dim=1)
    return scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)


# --8<-- [end:grouped_attention]


# --8<-- [start:grouped_query_attention]
class GroupedQueryAttention(nn.Module):
    """Causal self-attention in which groups of query heads share a K/V head.

    Query head i reads key/value head `i // (num_heads // num_kv_heads)`, as in
    Llama. With `rope_base` set, queries and keys (never values) are rotated by
    their positions.

    Args:
        num_kv_heads: Key/value heads h_kv; must divide `num_heads`. None for
            `num_heads` (multi-head attention); 1 is multi-query attention.
        head_dim: Width of one head; None for `d_model // num_heads`.
        rope_base: The base of the rotary frequencies, or None for no rotation
            (positions then come from elsewhere, as in GPT-2).
        rope_pairing: `"half"` (Llama, transformers) or `"interleaved"`
            (RoFormer).
        bias: Whether the four projections have biases (Llama's have none).
        dropout: Dropout probability on the attention weights.

    Raises:
        ValueError: If `num_kv_heads` does not divide `num_heads`, or
            `num_heads` does not divide `d_model` and no `head_dim` is given.

    Examples:
        >>> attention = GroupedQueryAttention(32, num_heads=4, num_kv_heads=2)
        >>> attention(torch.randn(2, 5, 32)).shape, attention.W_K.weight.shape
        (torch.Size([2, 5, 32]), torch.Size([16, 32]))
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        num_kv_heads: int | None = None,
        head_dim: int | None = None,
        rope_base: float | None = 10000.0,
        rope_pairing: str = "half",
        bias: bool = False,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        check_flags(bias=bias)
        check_probabilities(dropout=dropout)
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        _check_heads(d_model, num_heads, num_kv_heads, head_dim)
        d_k = d_model // num_heads if head_dim is None else head_dim
        _check_rotary(d_k, rope_base, rope_pairing)
        self.d_model, self.num_heads = d_model, num_heads
        self.num_kv_heads, self.head_dim = num_kv_heads, d_k
        self.rope_base, self.rope_pairing = rope_base, rope_pairing
        self.W_Q = nn.Linear(d_model, num_heads * d_k, bias=bias)
        # fewer heads for the keys and the values
        self.W_K = nn.Linear(d_model, num_kv_heads * d_k, bias=bias)
        self.W_V = nn.Linear(d_model, num_kv_heads * d_k, bias=bias)
        self.W_O = nn.Linear(num_heads * d_k, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        cache: KVCache | None = None,
    ) -> torch.Tensor:
        """Attend from x (B, n, d_model) to itself and the t cached positions.

        Args:
            padding_mask: (B, t + n) boolean, True = a real token.

        Raises:
            TypeError: If `padding_mask` is not boolean.
            ValueError: If `padding_mask` is not (B, t + n).
        """
        check_width(x, self.d_model)
        t = 0 if cache is None else cache.length  # positions already seen
        check_padding_mask(padding_mask, x.size(0), t + x.size(1))
        Q = split_heads(self.W_Q(x), self.num_heads)  # (B, h, n, d_k)
        K = split_heads(self.W_K(x), self.num_kv_heads)  # (B, h_kv, n, d_k)
        V = split_heads(self.W_V(x), self.num_kv_heads)  # never rotated
        if self.rope_base is not None:  # position t + i turns row i
            Q = apply_rotary(Q, t, self.rope_base, self.rope_pairing)
            K = apply_rotary(K, t, self.rope_base, self.rope_pairing)
        if cache is not None:
            K, V = cache.append(K, V)  # (B, h_kv, t + n, d_k)
        mask = self.allowed(x.size(1), t, padding_mask, x.device)
        dropout_p = self.dropout.p if self.training else 0.0
        # heads: (B, h, n, d_k)
        heads, _ = grouped_attention(Q, K, V, mask, dropout_p)
        return self.W_O(combine_heads(heads))  # (B, n, d_model)

    @staticmethod
    def allowed(
        n: int, t: int, padding_mask: torch.Tensor | None, device: torch.device
    ) -> torch.Tensor:
        """The keys each new query may see: (n, t + n), or (B, 1, n, t + n)."""
        allowed = causal_mask(t + n, device=device)[t:]  # rows t .. t+n-1 of it
        if padding_mask is None:
            return allowed
        return allowed & padding_mask[:, None, None, :]  # (B, 1, n, t + n)


# --8<-- [end:grouped_query_attention]


# --8<-- [start:checks]
def _check_heads(
    d_model: int, num_heads: int, num_kv_heads: int, head_dim: int | None
) -> None:
    check_counts(
        d_model=d_model, num_heads=num_heads, num_kv_heads=num_kv_heads
    )
    if num_heads % num_kv_heads:
        raise ValueError(
            f"num_kv_heads={num_kv_heads} must divide num_heads={num_heads}: "
            "each key/value head serves the same number of query heads"
        )
    if head_dim is None and d_model % num_heads:
        counts = f"d_model={d_model} is not divisible by num_heads={num_heads}"
        raise ValueError(
            f"{counts}; give head_dim explicitly or divisible sizes"
        )
    if head_dim is not None:
        check_counts(head_dim=head_dim)


def _check_rotary(
    head_dim: int, rope_base: float | None, rope_pairing: str
) -> None:
    check_positive(rope_base=rope_base)  # None: no rotation
    if rope_base is not None and head_dim % 2:
        rule = "rotary positions turn pairs of features"
        raise ValueError(f"{rule}: head_dim must be even, got {head_dim}")
    if rope_pairing not in PAIRINGS:
        known = "'half' or 'interleaved'"
        raise ValueError(f"rope_pairing must be {known}, got {rope_pairing!r}")


# --8<-- [end:checks]
