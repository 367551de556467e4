"""Rotary position embeddings (RoPE): queries and keys turned by position."""

# --8<-- [start:imports]
import torch

from tutorial_code.validation import (
    check_count,
    check_float_tensors,
    check_positive,
)

# the two ways to pair features: see apply_rotary
PAIRINGS = ("half", "interleaved")

# --8<-- [end:imports]


# --8<-- [start:rotary_angles]
def rotary_angles(
    seq_len: int, head_dim: int, base: float = 10000.0, offset: int = 0
) -> torch.Tensor:
    """RoPE angles (T, head_dim / 2), float32: row t is `(offset + t) * theta`.

    `theta_i = base^(-2i / head_dim)`; `head_dim` must be even (pairs).

    Examples:
        >>> rotary_angles(3, head_dim=4)  # theta = (1, 0.01)
        tensor([[0.0000, 0.0000],
                [1.0000, 0.0100],
                [2.0000, 0.0200]])
    """
    check_count(seq_len, "seq_len", minimum=0)
    check_count(offset, "offset", minimum=0)  # positions are whole numbers
    check_count(head_dim, "head_dim")
    check_positive(base=base)
    if head_dim % 2:
        raise ValueError(
            f"head_dim must be even (RoPE turns pairs), got {head_dim}"
        )
    # Computed as transformers computes it, so that the angles agree to the
    # last bit.
    # 2i / d
    exponent = torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim
    theta = 1.0 / (base**exponent)  # (d/2,)
    # (T,)
    positions = torch.arange(offset, offset + seq_len, dtype=torch.float)
    return positions[:, None] * theta  # (T, d/2)


# --8<-- [end:rotary_angles]


# --8<-- [start:apply_rotary]
def apply_rotary(
    x: torch.Tensor,
    offset: int = 0,
    base: float = 10000.0,
    pairing: str = "half",
) -> torch.Tensor:
    """Turn each feature pair of `x` (..., T, head_dim) by its RoPE angle.

    Pair (a, b) at position m becomes `(a cos - b sin, a sin + b cos)` of
    `m * theta_i`; shape, dtype and norms are unchanged.

    Args:
        offset: The position of the first row; a KV cache passes the number
            of positions it already holds.
        pairing: `"half"` pairs feature i with i + head_dim/2 (Llama, Hugging
            Face); `"interleaved"` 2i with 2i + 1 (RoFormer, Meta's Llama).

    Examples:
        >>> q = torch.tensor([[1.0, 0.0], [1.0, 0.0]])  # (T=2, head_dim=2)
        >>> apply_rotary(q)  # position 0 stays, position 1 turns by 1 radian
        tensor([[1.0000, 0.0000],
                [0.5403, 0.8415]])
    """
    check_float_tensors(x=x)  # cos and sin would round to integers
    check_positive(base=base)  # base <= 0 makes the angles NaN
    if pairing not in PAIRINGS:
        raise ValueError(
            f"pairing must be 'half' or 'interleaved', got {pairing!r}"
        )
    if x.dim() < 2:
        got = tuple(x.shape)
        raise ValueError(
            f"x must have shape (..., T, head_dim), got shape {got}"
        )
    T, head_dim = x.shape[-2:]
    angles = rotary_angles(T, head_dim, base, offset).to(x.device)  # (T, d/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    if pairing == "half":
        # pair i = (i, i + d/2)
        a, b = (x[..., : head_dim // 2], x[..., head_dim // 2 :])
    else:
        a, b = x[..., 0::2], x[..., 1::2]  # pair i = (2i, 2i + 1)
    turned_a = a * cos - b * sin  # (..., T, d/2)
    turned_b = b * cos + a * sin
    if pairing == "half":
        return torch.cat([turned_a, turned_b], dim=-1)  # (..., T, d)
    # back to 0, 1, 2, ...
    return torch.stack([turned_a, turned_b], dim=-1).flatten(-2)


# --8<-- [end:apply_rotary]


# --8<-- [start:interleaved_to_half]
def interleaved_to_half(weight: torch.Tensor, head_dim: int) -> torch.Tensor:
    """Reorder a query or key projection from interleaved pairs to half pairs.

    `weight` is (h * head_dim, d_model) or a bias. Within each head, feature 2i
    moves to i and 2i + 1 to i + head_dim/2, so attention scores are unchanged.
    Skipping it runs, and scrambles positions.

    Examples:
        >>> interleaved_to_half(torch.arange(8.0), head_dim=4)  # two heads of 4
        tensor([0., 2., 1., 3., 4., 6., 5., 7.])
    """
    return weight[_head_order(weight, head_dim, half_first=True)]


def half_to_interleaved(weight: torch.Tensor, head_dim: int) -> torch.Tensor:
    """Undo `interleaved_to_half`.

    Examples:
        >>> half_to_interleaved(torch.tensor([0.0, 2.0, 1.0, 3.0]), head_dim=4)
        tensor([0., 1., 2., 3.])
    """
    return weight[_head_order(weight, head_dim, half_first=False)]


# --8<-- [end:interleaved_to_half]


# --8<-- [start:head_order]
def _head_order(
    weight: torch.Tensor, head_dim: int, half_first: bool
) -> torch.Tensor:
    """The row order moving every head's features between the two pairings."""
    rows = weight.size(0) if weight.dim() else 0
    if head_dim < 2 or head_dim % 2 or rows % head_dim:
        problem = f"the projection's {rows} output features"
        raise ValueError(
            f"head_dim must be even and divide {problem}; got {head_dim}"
        )
    inside = torch.arange(head_dim)
    # half_first: new feature j reads old 2j (j < d/2) or old 2(j - d/2) + 1.
    if half_first:
        # 0, 2, 4, ..., 1, 3, 5, ...
        order = torch.cat([inside[0::2], inside[1::2]])
    else:
        order = inside.view(2, -1).T.flatten()  # 0, d/2, 1, d/2 + 1, ...
    # (h, 1): first rows
    heads = torch.arange(rows // head_dim)[:, None] * head_dim
    return (heads + order).flatten()  # (h * head_dim,)


# --8<-- [end:head_order]
