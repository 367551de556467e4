"""Attention masks: which keys each query may look at.

The convention on this whole site: **a mask is a boolean tensor and `True` means
"may attend"**. `False` blocks a key. This is the convention of
`torch.nn.functional.scaled_dot_product_attention`; `torch.nn.MultiheadAttention`
uses the opposite one (`True` = blocked), so
[`to_torch_multihead_mask`][tutorial_code.masks.to_torch_multihead_mask] flips a
mask where our code meets it.

Shape letters used here and on every page:
B = batch size, h = number of heads, T = sequence length
(T_q queries, T_k keys when they differ).
"""

# --8<-- [start:imports]
import torch

# --8<-- [end:imports]


# --8<-- [start:describe]
def _describe(value: object) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of dtype {value.dtype} and shape {tuple(value.shape)}"
    return f"{type(value).__name__}"


# --8<-- [end:describe]


# --8<-- [start:padding_mask]
def padding_mask(lengths: torch.Tensor, max_len: int | None = None) -> torch.Tensor:
    """Mask that hides the padding at the end of each sequence.

    Args:
        lengths: Number of real tokens in each sequence, integer tensor of shape (B,).
        max_len: Padded length T. Defaults to `lengths.max()`.

    Returns:
        Boolean mask of shape (B, 1, 1, T): `True` for real tokens, `False` for
        padding. The two singleton axes broadcast over heads and queries.

    Raises:
        TypeError: If `lengths` is not an integer tensor.
        ValueError: If `lengths` is not 1-D, is negative, or exceeds `max_len`.

    Shape:
        - lengths: (B,)
        - output: (B, 1, 1, T), broadcastable to (B, h, T_q, T)

    Examples:
        >>> padding_mask(torch.tensor([3, 1]), max_len=4)[:, 0, 0]
        tensor([[ True,  True,  True, False],
                [ True, False, False, False]])
    """
    if not isinstance(lengths, torch.Tensor) or lengths.dtype.is_floating_point or lengths.dtype == torch.bool:
        raise TypeError(f"lengths must be an integer tensor of shape (B,), got {_describe(lengths)}")
    if lengths.dim() != 1:
        raise ValueError(f"lengths must have shape (B,), got shape {tuple(lengths.shape)}")
    if (lengths < 0).any():
        raise ValueError(f"lengths must be >= 0, got {lengths.tolist()}")
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() else 0
    if (lengths > max_len).any():
        raise ValueError(f"a length in {lengths.tolist()} exceeds max_len={max_len}")
    positions = torch.arange(max_len, device=lengths.device)  # (T,)
    keep = positions[None, :] < lengths[:, None]  # (B, T)
    return keep[:, None, None, :]  # (B, 1, 1, T)


# --8<-- [end:padding_mask]


# --8<-- [start:padding_mask_from_tokens]
def padding_mask_from_tokens(tokens: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """Mask that hides every position holding the padding token.

    Args:
        tokens: Token ids of shape (B, T).
        pad_id: The id used for padding. Defaults to 0.

    Returns:
        Boolean mask of shape (B, 1, 1, T), `True` where the token is not padding.

    Raises:
        ValueError: If `tokens` is not 2-D.

    Shape:
        - tokens: (B, T)
        - output: (B, 1, 1, T)

    Examples:
        >>> padding_mask_from_tokens(torch.tensor([[5, 7, 0, 0]]))[0, 0, 0]
        tensor([ True,  True, False, False])
    """
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape (B, T), got shape {tuple(tokens.shape)}")
    return (tokens != pad_id)[:, None, None, :]  # (B, 1, 1, T)


# --8<-- [end:padding_mask_from_tokens]


# --8<-- [start:causal_mask]
def causal_mask(seq_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Mask that lets position t attend to positions 0..t and nothing later.

    Args:
        seq_len: Sequence length T.
        device: Device of the returned mask. Defaults to the CPU.

    Returns:
        Lower-triangular boolean mask of shape (T, T), diagonal included:
        query t may attend to key s exactly when s <= t.

    Raises:
        ValueError: If `seq_len` is not positive.

    Shape:
        - output: (T, T), broadcastable to (B, h, T, T)

    Examples:
        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
    """
    if seq_len < 1:
        raise ValueError(f"seq_len must be >= 1, got {seq_len}")
    # tril keeps the diagonal: a token may always look at itself.
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


# --8<-- [end:causal_mask]


# --8<-- [start:to_torch_multihead_mask]
def to_torch_multihead_mask(mask: torch.Tensor) -> torch.Tensor:
    """Convert a mask of this site's convention to `nn.MultiheadAttention`'s.

    `nn.MultiheadAttention` reads a boolean `attn_mask` or `key_padding_mask`
    with `True` meaning *blocked*, the opposite of this site. This flips it.

    Args:
        mask: Boolean mask, `True` = may attend.

    Returns:
        Boolean mask of the same shape, `True` = blocked.

    Raises:
        TypeError: If `mask` is not boolean.

    Examples:
        >>> to_torch_multihead_mask(causal_mask(2))
        tensor([[False,  True],
                [False, False]])
    """
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a boolean tensor (True = may attend), got dtype {mask.dtype}")
    return ~mask


# --8<-- [end:to_torch_multihead_mask]
