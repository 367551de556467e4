"""Attention masks: which keys each query may look at; `True` = may attend."""

# --8<-- [start:imports]
import torch

from tutorial_code.validation import check_count, describe

# --8<-- [end:imports]


# --8<-- [start:padding_mask]
def padding_mask(
    lengths: torch.Tensor, max_len: int | None = None
) -> torch.Tensor:
    """Mask (B, 1, 1, T) that hides the padding at the end of each sequence.

    `True` for real tokens; it broadcasts over heads and queries. `lengths` (B,)
    holds integers in 0..`max_len`, which defaults to the longest.

    Examples:
        >>> padding_mask(torch.tensor([3, 1]), max_len=4)[:, 0, 0]
        tensor([[ True,  True,  True, False],
                [ True, False, False, False]])
    """
    is_tensor = isinstance(lengths, torch.Tensor)
    if (
        not is_tensor
        or lengths.dtype.is_floating_point
        or lengths.dtype == torch.bool
    ):
        got = describe(lengths)
        raise TypeError(
            f"lengths must be an integer tensor of shape (B,), got {got}"
        )
    if lengths.dim() != 1:
        shape = tuple(lengths.shape)
        raise ValueError(f"lengths must have shape (B,), got shape {shape}")
    if (lengths < 0).any():
        raise ValueError(f"lengths must be >= 0, got {lengths.tolist()}")
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() else 0
    check_count(max_len, "max_len", minimum=0)
    if (lengths > max_len).any():
        raise ValueError(
            f"a length in {lengths.tolist()} exceeds max_len={max_len}"
        )
    positions = torch.arange(max_len, device=lengths.device)  # (T,)
    keep = positions[None, :] < lengths[:, None]  # (B, T)
    return keep[:, None, None, :]  # (B, 1, 1, T)


# --8<-- [end:padding_mask]


# --8<-- [start:padding_mask_from_tokens]
def padding_mask_from_tokens(
    tokens: torch.Tensor, pad_id: int = 0
) -> torch.Tensor:
    """Mask (B, 1, 1, T) of the tokens (B, T): `True` where it is not `pad_id`.

    Examples:
        >>> padding_mask_from_tokens(torch.tensor([[5, 7, 0, 0]]))[0, 0, 0]
        tensor([ True,  True, False, False])
    """
    if tokens.dim() != 2:
        shape = tuple(tokens.shape)
        raise ValueError(f"tokens must have shape (B, T), got shape {shape}")
    return (tokens != pad_id)[:, None, None, :]  # (B, 1, 1, T)


# --8<-- [end:padding_mask_from_tokens]


# --8<-- [start:causal_mask]
def causal_mask(
    seq_len: int, device: torch.device | str | None = None
) -> torch.Tensor:
    """Mask (T, T): query t may attend to keys 0..t, itself included.

    Examples:
        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
    """
    if not isinstance(seq_len, int) or isinstance(seq_len, bool):
        raise TypeError(f"seq_len must be an int, got {type(seq_len).__name__}")
    if seq_len < 1:
        raise ValueError(f"seq_len must be >= 1, got {seq_len}")
    # tril keeps the diagonal: a token may always look at itself.
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


# --8<-- [end:causal_mask]


# --8<-- [start:to_torch_multihead_mask]
def to_torch_multihead_mask(mask: torch.Tensor) -> torch.Tensor:
    """Flip a mask to `nn.MultiheadAttention`'s convention: `True` = blocked.

    Examples:
        >>> to_torch_multihead_mask(causal_mask(2))
        tensor([[False,  True],
                [False, False]])
    """
    if mask.dtype != torch.bool:
        raise TypeError(
            "mask must be a boolean tensor (True = may attend), "
            f"got dtype {mask.dtype}; "
            "for a 0/1 mask with 1 = may attend, pass mask.bool()"
        )
    return ~mask


# --8<-- [end:to_torch_multihead_mask]


def merge_masks(
    mask: torch.Tensor | None,
    key_is_real: torch.Tensor | None,
    query: torch.Tensor,
    key: torch.Tensor,
) -> torch.Tensor | None:
    """The one mask attention applies: `mask` and `key_is_real`, checked.

    Only the sizes of `query` (B, T_q, ...) and `key` (B, T_k, ...) are read.

    Args:
        mask: Boolean (`True` = may attend) or float (added to the scores),
            (T_q, T_k) exactly or four axes broadcastable to (B, h, T_q, T_k).
        key_is_real: Boolean (B, T_k), `True` for a real token (PyTorch's
            `key_padding_mask` is `True` for padding).

    Returns:
        None if both are None, else both combined, broadcastable to
        (B, h, T_q, T_k); a float `mask` gets `-inf` at the padding.

    Examples:
        >>> x = torch.zeros(2, 3, 8)  # (B=2, T=3, d_model=8)
        >>> padding = torch.tensor([[True, True, False], [True, True, True]])
        >>> merged = merge_masks(causal_mask(3), padding, x, x)
        >>> merged.shape
        torch.Size([2, 1, 3, 3])
        >>> merged[0, 0]
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True, False]])
    """
    if mask is None and key_is_real is None:
        return None
    if query.dim() < 2 or key.dim() < 2:
        raise ValueError(
            f"query and key must be (B, T, ...), got shapes "
            f"{tuple(query.shape)} and {tuple(key.shape)}"
        )
    (batch, query_len), key_len = query.shape[:2], key.size(1)
    if mask is not None:
        if not isinstance(mask, torch.Tensor):
            raise TypeError(
                f"mask must be a torch.Tensor, got {type(mask).__name__}"
            )
        if mask.dtype != torch.bool and not mask.dtype.is_floating_point:
            raise TypeError(
                f"mask must be boolean (True = may attend) or floating point "
                f"(added to the scores), "
                f"got dtype {mask.dtype}; for a 0/1 mask use mask.bool()"
            )
        if mask.dim() == 2 and mask.shape != (query_len, key_len):
            raise ValueError(
                f"a 2-D mask is read as (T_q, T_k) = {(query_len, key_len)}, "
                f"got shape {tuple(mask.shape)}; "
                "a (B, T_k) padding mask goes in key_is_real "
                "(True = real token)"
            )
        # 3 axes could be (B, T_q, T_k) or (h, T_q, T_k)
        if mask.dim() != 2 and mask.dim() != 4:
            raise ValueError(
                f"mask must be (T_q, T_k) = {(query_len, key_len)} or have "
                f"four axes, broadcastable to "
                f"(B, h, T_q, T_k), got shape {tuple(mask.shape)}; "
                f"a (B, T_k) padding mask goes in key_is_real"
            )
    if key_is_real is None:
        return mask
    if (
        not isinstance(key_is_real, torch.Tensor)
        or key_is_real.dtype != torch.bool
    ):
        raise TypeError(
            f"key_is_real must be boolean, True for a real token "
            f"(nn.MultiheadAttention's key_padding_mask is the opposite), "
            f"got {describe(key_is_real)}"
        )
    if key_is_real.shape != (batch, key_len):
        raise ValueError(
            f"key_is_real must have shape (B, T_k) = {(batch, key_len)}, "
            f"got {tuple(key_is_real.shape)}"
        )
    # (B, 1, 1, T_k): broadcasts over heads and queries
    keep = key_is_real[:, None, None, :]
    if mask is None:
        return keep
    return (
        mask & keep
        if mask.dtype == torch.bool
        else torch.where(keep, mask, float("-inf"))
    )
