"""Rotary position embeddings (RoPE): positions as rotations of the queries and keys.

Chapter 6's sinusoidal encoding adds a position vector to each token vector, and
[`shift_rotation`][tutorial_code.positional.shift_rotation] showed that moving k
positions on is a rotation R_k of each feature pair. RoPE applies such a rotation to the
query and the key themselves: a vector at position m has each feature pair i turned by
the angle `m * theta_i`, with `theta_i = base^(-2i / d_head)`. The score of a query at m
and a key at n is then `q R_m . k R_n = q . k R_(n-m)`: it depends on the positions only
through the offset n - m. Values are not rotated: positions steer where a query looks,
not what it reads.

Which features form a pair is a convention. The RoFormer paper pairs neighbours, (0, 1),
(2, 3), ... ("interleaved"); Llama and Hugging Face `transformers` pair feature i with
feature i + d_head/2 ("half", their `rotate_half`). Both are the same rotation of
permuted features; weights move from one to the other with
[`interleaved_to_half`][tutorial_code.rotary.interleaved_to_half].

Shape letters: B = batch size, h = heads, T = sequence length,
d_head = width of one head.
"""

# --8<-- [start:imports]
import torch

from tutorial_code.validation import check_count, check_float_tensors, check_positive

PAIRINGS = ("half", "interleaved")  # the two ways to pair features: see apply_rotary

# --8<-- [end:imports]


# --8<-- [start:rotary_angles]
def rotary_angles(
    seq_len: int,
    head_dim: int,
    base: float = 10000.0,
    offset: int = 0,
) -> torch.Tensor:
    """The angle by which RoPE turns each feature pair at each position.

    Position m and pair i get `m * theta_i`, with `theta_i = base^(-2i / head_dim)`:
    the frequencies of chapter 6's sinusoidal table, from 1 down to almost 1/base.

    Args:
        seq_len: Number of positions T.
        head_dim: Width of one head; must be even (the features come in pairs).
        base: Sets the slowest frequency. Defaults to 10000.0, as in the paper and
            in Llama 2.
        offset: The position of the first row. Defaults to 0.

    Returns:
        Float32 tensor of shape (T, head_dim / 2): row t holds the angles of position
        offset + t.

    Raises:
        TypeError: If `seq_len` or `offset` is not an int.
        ValueError: If `head_dim` is odd or not positive, or a count is negative.

    Examples:
        >>> rotary_angles(3, head_dim=4)  # theta = (1, 0.01)
        tensor([[0.0000, 0.0000],
                [1.0000, 0.0100],
                [2.0000, 0.0200]])
    """
    if head_dim < 2 or head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE turns pairs), got {head_dim}")
    check_count(seq_len, "seq_len", minimum=0)
    check_count(offset, "offset", minimum=0)  # positions are whole numbers
    # Computed as transformers computes it, so that the angles agree to the last bit.
    exponent = torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim  # 2i / d
    theta = 1.0 / (base**exponent)  # (d/2,)
    positions = torch.arange(offset, offset + seq_len, dtype=torch.float)  # (T,)
    return positions[:, None] * theta  # (T, d/2)


# --8<-- [end:rotary_angles]


# --8<-- [start:apply_rotary]
def apply_rotary(
    x: torch.Tensor,
    offset: int = 0,
    base: float = 10000.0,
    pairing: str = "half",
) -> torch.Tensor:
    """Turn each feature pair of each position of `x` by its RoPE angle.

    Pair i of the vector at position m is rotated by `m * theta_i`:
    `(a, b) -> (a cos - b sin, a sin + b cos)`. With `pairing="interleaved"` this is
    `x @ shift_rotation(m, head_dim)` for every row, chapter 6's matrix applied from
    the right (the rotation by +m, as in the RoFormer paper).

    Args:
        x: Queries or keys of one or more heads, shape (..., T, head_dim).
        offset: The position of the first of the T rows; a KV cache passes the number of
            positions it already holds. Defaults to 0.
        base: Sets the frequencies (see
            [`rotary_angles`][tutorial_code.rotary.rotary_angles]). Defaults to 10000.0.
        pairing: `"half"` pairs feature i with i + head_dim/2 (Llama, Hugging Face);
            `"interleaved"` pairs 2i with 2i + 1 (the RoFormer paper, Meta's original
            Llama code). Defaults to `"half"`.

    Returns:
        The rotated tensor, shape and dtype of `x`. Norms are unchanged.

    Raises:
        TypeError: If `x` is not a floating-point tensor or `offset` not an int.
        ValueError: If `pairing` is unknown, `base` not above 0, or `x` has fewer than
            2 axes or an odd last axis.

    Shape:
        - x: (..., T, head_dim), for example (B, h, T, head_dim)
        - output: the same as `x`

    Examples:
        >>> q = torch.tensor([[1.0, 0.0], [1.0, 0.0]])  # (T=2, head_dim=2)
        >>> apply_rotary(q)  # position 0 stays, position 1 turns by 1 radian
        tensor([[1.0000, 0.0000],
                [0.5403, 0.8415]])
    """
    check_float_tensors(x=x)  # cos and sin would round to integers
    check_positive(base=base)  # base <= 0 makes the angles NaN
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be 'half' or 'interleaved', got {pairing!r}")
    if x.dim() < 2:
        got = tuple(x.shape)
        raise ValueError(f"x must have shape (..., T, head_dim), got shape {got}")
    T, head_dim = x.shape[-2:]
    angles = rotary_angles(T, head_dim, base, offset).to(x.device)  # (T, d/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    if pairing == "half":
        a, b = x[..., : head_dim // 2], x[..., head_dim // 2 :]  # pair i = (i, i + d/2)
    else:
        a, b = x[..., 0::2], x[..., 1::2]  # pair i = (2i, 2i + 1)
    turned_a = a * cos - b * sin  # (..., T, d/2)
    turned_b = b * cos + a * sin
    if pairing == "half":
        return torch.cat([turned_a, turned_b], dim=-1)  # (..., T, d)
    return torch.stack([turned_a, turned_b], dim=-1).flatten(-2)  # back to 0, 1, 2, ...


# --8<-- [end:apply_rotary]


# --8<-- [start:interleaved_to_half]
def interleaved_to_half(weight: torch.Tensor, head_dim: int) -> torch.Tensor:
    """Reorder a query or key projection trained on interleaved pairs for `rotate_half`.

    Within each head, output feature 2i moves to i and 2i + 1 to i + head_dim/2, so that
    the pairs the interleaved model rotated together are rotated together again, by the
    same angle. Attention scores are then unchanged (the order of features inside a dot
    product does not matter). Skipping this step, when weights move between the two
    conventions, still runs, and silently scrambles the positions.

    Args:
        weight: A query or key projection's weight, (h * head_dim, d_model), or its
            bias, (h * head_dim,).
        head_dim: Width of one head; must be even and divide the first axis.

    Returns:
        The reordered tensor, same shape.

    Raises:
        ValueError: If `head_dim` is odd or does not divide the first axis.

    Examples:
        >>> interleaved_to_half(torch.arange(8.0), head_dim=4)  # two heads of 4
        tensor([0., 2., 1., 3., 4., 6., 5., 7.])
    """
    return weight[_head_order(weight, head_dim, half_first=True)]


def half_to_interleaved(weight: torch.Tensor, head_dim: int) -> torch.Tensor:
    """Undo [`interleaved_to_half`][tutorial_code.rotary.interleaved_to_half].

    Args:
        weight: A query or key projection's weight, (h * head_dim, d_model), or its
            bias.
        head_dim: Width of one head; must be even and divide the first axis.

    Returns:
        The reordered tensor, same shape.

    Raises:
        ValueError: If `head_dim` is odd or does not divide the first axis.

    Examples:
        >>> half_to_interleaved(torch.tensor([0.0, 2.0, 1.0, 3.0]), head_dim=4)
        tensor([0., 1., 2., 3.])
    """
    return weight[_head_order(weight, head_dim, half_first=False)]


# --8<-- [end:interleaved_to_half]


# --8<-- [start:head_order]
def _head_order(weight: torch.Tensor, head_dim: int, half_first: bool) -> torch.Tensor:
    """The row order that moves the features of every head between the two pairings."""
    rows = weight.size(0) if weight.dim() else 0
    if head_dim < 2 or head_dim % 2 or rows % head_dim:
        problem = f"the projection's {rows} output features"
        raise ValueError(f"head_dim must be even and divide {problem}; got {head_dim}")
    inside = torch.arange(head_dim)
    # half_first: new feature j reads old 2j (j < d/2) or old 2(j - d/2) + 1.
    if half_first:
        order = torch.cat([inside[0::2], inside[1::2]])  # 0, 2, 4, ..., 1, 3, 5, ...
    else:
        order = inside.view(2, -1).T.flatten()  # 0, d/2, 1, d/2 + 1, ...
    heads = torch.arange(rows // head_dim)[:, None] * head_dim  # (h, 1): first rows
    return (heads + order).flatten()  # (h * head_dim,)


# --8<-- [end:head_order]
