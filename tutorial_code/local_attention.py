"""Local attention: each query looks at a window of nearby keys, not at all T of them.

Full attention scores every query against every key: T^2 scores per head and layer.
Local attention keeps a band of `window` keys around each query. As a mask the band saves
nothing (all T^2 scores are computed, then most are thrown away); computed block by block,
it costs about 2 * window * T scores. A sliding-window cache keeps only the last `window`
keys and values while generating.

Masks follow the site's convention: boolean, `True` = may attend (see
[`tutorial_code.masks`][tutorial_code.masks]). Shape letters: B = batch size, h = number
of heads, T = sequence length, d_k = width of a query or key, d_v = width of a value.
"""

# --8<-- [start:imports]
import math

import torch
import torch.nn.functional as F

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.validation import (
    check_counts,
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
    """Mask that lets each query attend to the keys within `window` positions of it.

    Causal: query t may attend to keys t - window + 1, ..., t (itself and the
    window - 1 keys before it). Not causal: to every key s with |t - s| < window
    (2 * window - 1 keys, centred on the query).

    Args:
        length: Sequence length T.
        window: Keys on each side, the query's own position included. With
            `window >= T`, the causal band is the causal mask.
        causal: Whether keys after the query are blocked. Defaults to True.
        device: Device of the returned mask. Defaults to the CPU.

    Returns:
        Boolean mask of shape (T, T), `True` = may attend.

    Raises:
        TypeError: If `length` or `window` is not an int.
        ValueError: If `length` or `window` is below 1.

    Shape:
        - output: (T, T), broadcastable to (B, h, T, T)

    Examples:
        >>> band_mask(4, 2).int()
        tensor([[1, 0, 0, 0],
                [1, 1, 0, 0],
                [0, 1, 1, 0],
                [0, 0, 1, 1]], dtype=torch.int32)
    """
    check_counts(length=length, window=window)
    position = torch.arange(length, device=device)  # (T,)
    distance = position[:, None] - position[None, :]  # (T, T): query t minus key s
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
    """Mask that lets each query attend to `window` keys spaced `dilation` apart.

    Causal: query t may attend to keys t, t - dilation, ..., t - (window - 1) *
    dilation. Not causal: to t + i * dilation for every i with |i| < window. With
    `dilation=1` this is [`band_mask`][tutorial_code.local_attention.band_mask].

    Args:
        length: Sequence length T.
        window: Keys on each side, the query's own position included.
        dilation: Distance between two neighbouring keys of the window.
        causal: Whether keys after the query are blocked. Defaults to True.
        device: Device of the returned mask. Defaults to the CPU.

    Returns:
        Boolean mask of shape (T, T), `True` = may attend.

    Raises:
        TypeError: If `length`, `window` or `dilation` is not an int.
        ValueError: If `length`, `window` or `dilation` is below 1.

    Shape:
        - output: (T, T), broadcastable to (B, h, T, T)

    Examples:
        >>> dilated_mask(5, 2, 2)[4].int()  # the last query sees keys 4 and 2
        tensor([0, 0, 1, 0, 1], dtype=torch.int32)
    """
    check_counts(length=length, window=window, dilation=dilation)
    position = torch.arange(length, device=device)  # (T,)
    distance = position[:, None] - position[None, :]  # (T, T): query t minus key s
    if not causal:
        distance = distance.abs()
    on_grid = distance % dilation == 0  # every dilation-th key
    return on_grid & (distance >= 0) & (distance < window * dilation)


# --8<-- [end:dilated_mask]


# --8<-- [start:reachable]
def reachable(mask: torch.Tensor, layers: int) -> torch.Tensor:
    """Which keys each query can take information from after `layers` layers of `mask`.

    One layer lets query t read key s when `mask[t, s]`. Two layers let t read every
    key that one of its keys read in the layer below: the boolean matrix product of
    the mask with itself, and so on for each layer.

    Args:
        mask: Boolean mask of one layer, (T, T), `True` = may attend.
        layers: Number of layers stacked, at least 1.

    Returns:
        Boolean matrix of shape (T, T): `True` where query t can reach key s.

    Raises:
        TypeError: If `mask` is not a boolean tensor or `layers` is not an int.
        ValueError: If `mask` is not square or `layers` is below 1.

    Shape:
        - mask: (T, T)
        - output: (T, T)

    Examples:
        >>> reachable(band_mask(6, 2), layers=3)[5].int()  # 3 layers of 2 keys
        tensor([0, 0, 1, 1, 1, 1], dtype=torch.int32)
    """
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
        raise TypeError(f"mask must be a boolean tensor (True = may attend), got {got}")
    if mask.dim() != 2 or mask.size(0) != mask.size(1):
        shape = tuple(mask.shape)
        raise ValueError(f"mask must be one layer's (T, T) mask, got shape {shape}")
    check_counts(layers=layers)
    one_layer = mask.float()
    reach = one_layer
    for _ in range(layers - 1):
        # t reaches s when t reads some u in the top layer and u reached s below it
        reach = ((reach @ one_layer) > 0).float()
    return reach > 0


# --8<-- [end:reachable]


# --8<-- [start:neighbour_blocks]
def neighbour_blocks(x: torch.Tensor, window: int, after: int) -> torch.Tensor:
    """For each block of `window` positions, the positions of the block before it, its
    own and `after` blocks after it, side by side (zeros outside the sequence).

    Args:
        x: Keys or values, (..., T, d).
        window: Positions per block.
        after: Blocks after the own block: 0 for causal attention, 1 otherwise.

    Returns:
        Tensor of shape (..., n, (2 + after) * window, d), n = ceil(T / window).

    Examples:
        >>> neighbour_blocks(torch.arange(4.0)[:, None], 2, after=0)[..., 0]
        tensor([[0., 0., 0., 1.],
                [0., 1., 2., 3.]])
    """
    n = -(-x.size(-2) // window)  # blocks, the last one padded
    pad = n * window - x.size(-2)
    blocks = F.pad(x, (0, 0, window, pad + after * window)).unflatten(-2, (-1, window))
    # Block i of the result holds blocks i - 1, i (and i + 1) of x.
    return torch.cat([blocks[..., j : j + n, :, :] for j in range(2 + after)], dim=-2)


# --8<-- [end:neighbour_blocks]


# --8<-- [start:blocked_scores]
def blocked_scores(
    query: torch.Tensor, key: torch.Tensor, window: int, causal: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """The scores of local attention, computed only for the blocks that hold the band.

    The positions are cut into blocks of `window` (the last one padded). A query of
    block i can only see keys of blocks i - 1 and i (and i + 1 when not causal), so
    each query block is scored against those 2 * window (3 * window) keys: about
    2 * window * T scores (3 * window * T) instead of T^2.

    Args:
        query: Queries, (..., T, d_k).
        key: Keys, (..., T, d_k).
        window: As in [`band_mask`][tutorial_code.local_attention.band_mask].
        causal: Whether keys after the query are blocked. Defaults to True.

    Returns:
        A pair `(scores, allowed)`: the scores divided by sqrt(d_k), and `True` where
        the key lies in the query's band (and is not padding).

    Raises:
        TypeError: If `query` and `key` are not floating-point tensors of one dtype,
            or `window` is not an int.
        ValueError: If `window` is below 1, or `query` and `key` differ in shape.

    Shape:
        - query: (..., T, d_k)
        - key: (..., T, d_k)
        - scores: (..., n, window, m), n = ceil(T / window), m = 2 * window
          (3 * window when not causal)
        - allowed: (n, window, m)

    Examples:
        >>> scores, allowed = blocked_scores(torch.randn(10, 4), torch.randn(10, 4), 4)
        >>> scores.shape, allowed.shape  # 3 blocks of 4 queries, 8 keys each
        (torch.Size([3, 4, 8]), torch.Size([3, 4, 8]))
    """
    _check_blocked(query, key, key, window)
    T, w, after = query.size(-2), window, 0 if causal else 1
    n = -(-T // w)  # blocks, the last one padded
    q = F.pad(query, (0, 0, 0, n * w - T)).unflatten(-2, (n, w))  # (..., n, w, d_k)
    k = neighbour_blocks(key, w, after)  # (..., n, m, d_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., n, w, m)
    t = torch.arange(n * w, device=query.device).view(n, w, 1)  # query positions
    s = t - t % w - w + torch.arange(k.size(-2), device=query.device)  # key positions
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
    """Local attention that computes only the scores of the blocks around the band.

    The same output as `scaled_dot_product_attention(query, key, value,
    band_mask(T, window, causal))`, from about 2 * window * T scores (3 * window * T
    when not causal) instead of T^2
    ([`blocked_scores`][tutorial_code.local_attention.blocked_scores]).

    Args:
        query: Queries, (..., T, d_k).
        key: Keys, (..., T, d_k).
        value: Values, (..., T, d_v).
        window: As in [`band_mask`][tutorial_code.local_attention.band_mask].
        causal: Whether keys after the query are blocked. Defaults to True.

    Returns:
        The attention output, (..., T, d_v).

    Raises:
        TypeError: If the tensors are not floating-point tensors of one dtype, or
            `window` is not an int.
        ValueError: If `window` is below 1 or the shapes do not fit together.

    Shape:
        - query: (..., T, d_k)
        - key: (..., T, d_k)
        - value: (..., T, d_v)
        - output: (..., T, d_v)

    Examples:
        >>> x = torch.randn(2, 9, 4)  # (B, T, d_k)
        >>> banded, _ = scaled_dot_product_attention(x, x, x, band_mask(9, 3))
        >>> torch.allclose(blocked_local_attention(x, x, x, 3), banded, atol=1e-6)
        True
    """
    _check_blocked(query, key, value, window)
    scores, allowed = blocked_scores(query, key, window, causal)  # (..., n, w, m)
    # Every real query keeps at least itself, so no row is all -inf.
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    v = neighbour_blocks(value, window, after=0 if causal else 1)  # (..., n, m, d_v)
    output = weights @ v  # (..., n, w, d_v)
    return output.flatten(-3, -2)[..., : query.size(-2), :]  # (..., T, d_v)


# --8<-- [end:blocked_local_attention]


# --8<-- [start:checks]
def _check_blocked(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    window: int,
) -> None:
    check_float_tensors(query=query, key=key, value=value)
    check_counts(window=window)
    if query.dim() < 2 or query.shape != key.shape:
        raise ValueError(
            "query and key must both be (..., T, d_k), of one shape (self-attention), "
            f"got {tuple(query.shape)} and {tuple(key.shape)}"
        )
    if value.shape[:-1] != key.shape[:-1]:
        raise ValueError(
            f"value must be (..., T, d_v) like key, got {tuple(value.shape)} for keys "
            f"{tuple(key.shape)}: one value per key"
        )
    if query.size(-2) == 0:
        raise ValueError("the sequence holds no positions (T = 0): give at least one")


# --8<-- [end:checks]


# --8<-- [start:sliding_window_cache]
class SlidingWindowCache:
    """The keys and values of the last `window` positions, for generating.

    A causal local query sees only the `window` latest keys, so older keys and values
    can go. `keys` and `values`: (B, h, m, d), m <= window, however long the text
    (None before the first append); `length`: the positions appended in all.

    Args:
        window: Keys each query may see, itself included.

    Raises:
        TypeError: If `window` is not an int.
        ValueError: If `window` is below 1.

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
        self,
        key: torch.Tensor,
        value: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Add n new positions, keep the last `window`; return the kept and the new
        keys and values, (B, h, m + n, d): what the new queries attend over."""
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
    """Causal local attention for n new positions, the earlier ones read from `cache`.

    The new keys and values join the cache; each new query attends to the
    `cache.window` latest positions up to its own: the last n rows of a band mask
    over the kept and the new positions.

    Args:
        query: Queries of the new positions, (B, h, n, d_k).
        key: Their keys, (B, h, n, d_k).
        value: Their values, (B, h, n, d_v).
        cache: The keys and values of the positions before; updated in place.

    Returns:
        The output of the new positions, (B, h, n, d_v): their rows of attention
        over the whole sequence under `band_mask(T, cache.window)`.

    Raises:
        TypeError: If the tensors are not floating-point tensors of one dtype, or
            `cache` is not a SlidingWindowCache.
        ValueError: If query, key and value do not hold the same new positions, or
            differ from the cached ones in batch, heads or width.

    Shape:
        - query: (B, h, n, d_k)
        - key: (B, h, n, d_k)
        - value: (B, h, n, d_v)
        - output: (B, h, n, d_v)

    Examples:
        >>> cache, x = SlidingWindowCache(window=2), torch.randn(1, 1, 5, 4)
        >>> steps = [sliding_window_step(x[..., t:t + 1, :], x[..., t:t + 1, :],
        ...                              x[..., t:t + 1, :], cache) for t in range(5)]
        >>> full, _ = scaled_dot_product_attention(x, x, x, band_mask(5, 2))
        >>> torch.allclose(torch.cat(steps, dim=-2), full, atol=1e-6)
        True
    """
    check_float_tensors(query=query, key=key, value=value)
    same = key.shape[:-1] == query.shape[:-1] == value.shape[:-1]
    if query.dim() < 2 or not same or query.size(-2) == 0:
        raise ValueError(
            "query, key and value must hold the same new positions, (B, h, n, d) with "
            f"n >= 1, got {tuple(query.shape)}, {tuple(key.shape)}, "
            f"{tuple(value.shape)}"
        )
    check_window_cache(cache, key, value)  # same batch, heads and widths as kept
    n = query.size(-2)
    keys, values = cache.append(key, value)  # (B, h, m + n, d): kept ones, then new
    mask = band_mask(keys.size(-2), cache.window, device=query.device)[-n:]  # new rows
    output, _ = scaled_dot_product_attention(query, keys, values, mask)
    return output


# --8<-- [end:sliding_window_step]
