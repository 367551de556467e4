"""Local attention: each query looks at a window of nearby keys, not at all T.

Masks are boolean, `True` = may attend. Shape letters: B = batch size,
h = heads, T = sequence length, d_k = query and key width, d_v = value width.
"""

# --8<-- [start:imports]
import math

import torch
import torch.nn.functional as F

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.validation import (
    check_counts,
    check_flags,
    check_float_tensors,
    check_window_cache,
)

# --8<-- [end:imports]


# --8<-- [start:band_mask]
def band_mask(
    length: int,
    window: int,
    causal: bool = True,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """(T, T) mask that lets query t attend to the keys within `window` of it.

    Causal: keys t - window + 1, ..., t; not causal: every s with |t - s| <
    window. `window` counts the query's own position.

    Examples:
        >>> band_mask(4, 2).int()
        tensor([[1, 0, 0, 0],
                [1, 1, 0, 0],
                [0, 1, 1, 0],
                [0, 0, 1, 1]], dtype=torch.int32)
    """
    check_counts(length=length, window=window)
    check_flags(causal=causal)
    position = torch.arange(length, device=device)  # (T,)
    # (T, T): query t minus key s
    distance = position[:, None] - position[None, :]
    if causal:
        return (distance >= 0) & (distance < window)
    return distance.abs() < window


# --8<-- [end:band_mask]


# --8<-- [start:dilated_mask]
def dilated_mask(
    length: int,
    window: int,
    dilation: int,
    causal: bool = True,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """(T, T) mask that lets a query attend to `window` keys `dilation` apart.

    Causal: keys t - i * dilation for 0 <= i < window; not causal: |i| <
    window. `dilation=1` is `band_mask`.

    Examples:
        >>> dilated_mask(5, 2, 2)[4].int()  # the last query sees keys 4 and 2
        tensor([0, 0, 1, 0, 1], dtype=torch.int32)
    """
    check_counts(length=length, window=window, dilation=dilation)
    check_flags(causal=causal)
    position = torch.arange(length, device=device)  # (T,)
    # (T, T): query t minus key s
    distance = position[:, None] - position[None, :]
    if not causal:
        distance = distance.abs()
    on_grid = distance % dilation == 0  # every dilation-th key
    return on_grid & (distance >= 0) & (distance < window * dilation)


# --8<-- [end:dilated_mask]


# --8<-- [start:reachable]
def reachable(mask: torch.Tensor, layers: int) -> torch.Tensor:
    """(T, T), `True` where query t reads key s after `layers` layers of `mask`.

    Raises:
        TypeError: If `mask` is not a boolean tensor or `layers` is not an int.
        ValueError: If `mask` is not square or `layers` is below 1.

    Examples:
        >>> reachable(band_mask(6, 2), layers=3)[5].int()  # 3 layers of 2 keys
        tensor([0, 0, 1, 1, 1, 1], dtype=torch.int32)
    """
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        got = (
            mask.dtype
            if isinstance(mask, torch.Tensor)
            else type(mask).__name__
        )
        raise TypeError(
            f"mask must be a boolean tensor (True = may attend), got {got}"
        )
    if mask.dim() != 2 or mask.size(0) != mask.size(1):
        shape = tuple(mask.shape)
        raise ValueError(
            f"mask must be one layer's (T, T) mask, got shape {shape}"
        )
    check_counts(layers=layers)
    one_layer = mask.float()
    reach = one_layer
    for _ in range(layers - 1):
        # t reaches s when t reads some u in the top layer and u reached s below
        reach = ((reach @ one_layer) > 0).float()
    return reach > 0


# --8<-- [end:reachable]


# --8<-- [start:neighbour_blocks]
def neighbour_blocks(x: torch.Tensor, window: int, after: int) -> torch.Tensor:
    """Each block of `window` positions with the block before and `after` after.

    `after` is 0 for causal attention, 1 otherwise. Returns (..., n, (2 +
    after) * window, d) for `x` (..., T, d), n = ceil(T / window), with zeros
    outside the sequence.

    Examples:
        >>> neighbour_blocks(torch.arange(4.0)[:, None], 2, after=0)[..., 0]
        tensor([[0., 0., 0., 1.],
                [0., 1., 2., 3.]])
    """
    n = -(-x.size(-2) // window)  # blocks, the last one padded
    pad = n * window - x.size(-2)
    blocks = F.pad(x, (0, 0, window, pad + after * window)).unflatten(
        -2, (-1, window)
    )
    # Block i of the result holds blocks i - 1, i (and i + 1) of x.
    return torch.cat(
        [blocks[..., j : j + n, :, :] for j in range(2 + after)], dim=-2
    )


# --8<-- [end:neighbour_blocks]


# --8<-- [start:blocked_scores]
def blocked_scores(
    query: torch.Tensor, key: torch.Tensor, window: int, causal: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """`(scores, allowed)` of local attention, only for the blocks of the band.

    Raises:
        TypeError: If `query` and `key` are not floats of one dtype, or
            `window` is not an int.
        ValueError: If `window` is below 1 or `query` and `key` differ in shape.

    Shape:
        - query, key: (..., T, d_k)
        - scores: (..., n, window, m), divided by sqrt(d_k); n = ceil(T /
          window), m = 2 * window (3 * window when not causal)
        - allowed: (n, window, m), `True` where the key is in the query's band

    Examples:
        >>> query, key = torch.randn(10, 4), torch.randn(10, 4)
        >>> scores, allowed = blocked_scores(query, key, 4)
        >>> scores.shape, allowed.shape  # 3 blocks of 4 queries, 8 keys each
        (torch.Size([3, 4, 8]), torch.Size([3, 4, 8]))
    """
    _check_blocked(query, key, key, window)
    T, w, after = query.size(-2), window, 0 if causal else 1
    n = -(-T // w)  # blocks, the last one padded
    # (..., n, w, d_k)
    q = F.pad(query, (0, 0, 0, n * w - T)).unflatten(-2, (n, w))
    k = neighbour_blocks(key, w, after)  # (..., n, m, d_k)
    # (..., n, w, m)
    scores = q @ k.transpose(-2, -1) / math.sqrt(query.size(-1))
    # query positions
    t = torch.arange(n * w, device=query.device).view(n, w, 1)
    # key positions
    s = t - t % w - w + torch.arange(k.size(-2), device=query.device)
    near = (t - s >= 0) & (t - s < w) if causal else (t - s).abs() < w
    return scores, near & (s >= 0) & (s < T)  # the band, without the padding


# --8<-- [end:blocked_scores]


# --8<-- [start:blocked_local_attention]
def blocked_local_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    window: int,
    causal: bool = True,
) -> torch.Tensor:
    """Attention under `band_mask(T, window, causal)`, from the blocks' scores.

    Raises:
        TypeError: If the tensors are not floats of one dtype or `window` is
            not an int.
        ValueError: If `window` is below 1 or the shapes do not fit together.

    Shape:
        - query, key: (..., T, d_k); value: (..., T, d_v)
        - output: (..., T, d_v)

    Examples:
        >>> x = torch.randn(2, 9, 4)  # (B, T, d_k)
        >>> banded, _ = scaled_dot_product_attention(x, x, x, band_mask(9, 3))
        >>> blocked = blocked_local_attention(x, x, x, 3)
        >>> torch.allclose(blocked, banded, atol=1e-6)
        True
    """
    _check_blocked(query, key, value, window)
    # (..., n, w, m)
    scores, allowed = blocked_scores(query, key, window, causal)
    # Every real query keeps at least itself, so no row is all -inf.
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    # (..., n, m, d_v)
    v = neighbour_blocks(value, window, after=0 if causal else 1)
    output = weights @ v  # (..., n, w, d_v)
    return output.flatten(-3, -2)[..., : query.size(-2), :]  # (..., T, d_v)


# --8<-- [end:blocked_local_attention]


# --8<-- [start:checks]
def _check_blocked(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, window: int
) -> None:
    check_float_tensors(query=query, key=key, value=value)
    check_counts(window=window)
    if query.dim() < 2 or query.shape != key.shape:
        raise ValueError(
            "query and key must both be (..., T, d_k), of one shape "
            f"(self-attention), got {tuple(query.shape)} and "
            f"{tuple(key.shape)}"
        )
    if value.shape[:-1] != key.shape[:-1]:
        raise ValueError(
            f"value must be (..., T, d_v) like key, got {tuple(value.shape)} "
            f"for keys {tuple(key.shape)}: one value per key"
        )
    if query.size(-2) == 0:
        raise ValueError(
            "the sequence holds no positions (T = 0): give at least one"
        )


# --8<-- [end:checks]


# --8<-- [start:sliding_window_cache]
class SlidingWindowCache:
    """The keys and values of the last `window` positions, for generating.

    Attributes:
        keys: (B, h, m, d), m <= window; None before the first append.
        values: (B, h, m, d), like `keys`.
        length: The positions appended in all.

    Examples:
        >>> cache, new = SlidingWindowCache(window=3), torch.randn(1, 2, 1, 4)
        >>> for _ in range(5):  # one new position (B, h, n=1, d_k) at a time
        ...     keys, values = cache.append(new, new)
        >>> cache.keys.shape, cache.length
        (torch.Size([1, 2, 3, 4]), 5)
    """

    def __init__(self, window: int) -> None:
        check_counts(window=window)
        self.window, self.length = window, 0
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    def append(
        self, key: torch.Tensor, value: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Add n positions; return the kept and the new, (B, h, m + n, d)."""
        self.length += key.size(-2)  # n new positions
        if self.keys is not None:
            key = torch.cat([self.keys, key], dim=-2)  # (B, h, m + n, d_k)
            value = torch.cat([self.values, value], dim=-2)
        self.keys = key[..., -self.window :, :]  # the newest window positions
        self.values = value[..., -self.window :, :]
        return key, value


# --8<-- [end:sliding_window_cache]


# --8<-- [start:sliding_window_step]
def sliding_window_step(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    cache: SlidingWindowCache,
) -> torch.Tensor:
    """Causal local attention for n new positions, the earlier ones in `cache`.

    Args:
        cache: The positions before; updated in place.

    Raises:
        TypeError: If the tensors are not floats of one dtype or `cache` is
            not a SlidingWindowCache.
        ValueError: If query, key and value do not hold the same new
            positions, or differ from the cached ones in batch, heads or width.

    Shape:
        - query, key: (B, h, n, d_k); value: (B, h, n, d_v)
        - output: (B, h, n, d_v), the new rows under `band_mask(T, window)`

    Examples:
        >>> cache, x = SlidingWindowCache(window=2), torch.randn(1, 1, 5, 4)
        >>> new = [x[..., t : t + 1, :] for t in range(5)]  # one at a time
        >>> steps = [sliding_window_step(n, n, n, cache) for n in new]
        >>> full, _ = scaled_dot_product_attention(x, x, x, band_mask(5, 2))
        >>> torch.allclose(torch.cat(steps, dim=-2), full, atol=1e-6)
        True
    """
    check_float_tensors(query=query, key=key, value=value)
    same = key.shape[:-1] == query.shape[:-1] == value.shape[:-1]
    if query.dim() < 2 or not same or query.size(-2) == 0:
        raise ValueError(
            "query, key and value must hold the same new positions, "
            f"(B, h, n, d) with n >= 1, got {tuple(query.shape)}, "
            f"{tuple(key.shape)}, {tuple(value.shape)}"
        )
    # same batch, heads and widths as kept
    check_window_cache(cache, key, value)
    n = query.size(-2)
    # (B, h, m + n, d): kept ones, then new
    keys, values = cache.append(key, value)
    # new rows
    mask = band_mask(keys.size(-2), cache.window, device=query.device)[-n:]
    output, _ = scaled_dot_product_attention(query, keys, values, mask)
    return output


# --8<-- [end:sliding_window_step]
