"""Positional encodings: how a Transformer learns where each token stands.

Attention compares tokens by content only, so without positions it cannot tell
"dog bites man" from "man bites dog". A positional encoding adds a vector that
depends on the position to each token vector.

Shape letters: B = batch size, T = sequence length, d_model = width of a token
vector, max_len = the longest sequence the table holds.
"""

# --8<-- [start:imports]
import math

import torch
from torch import nn

from tutorial_code.validation import check_counts

# --8<-- [end:imports]


# --8<-- [start:sinusoidal_table]
def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    """The fixed table of sines and cosines from "Attention Is All You Need".

    Position `pos` and feature pair `i` get
    `PE[pos, 2i] = sin(pos / 10000^(2i/d_model))` and
    `PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))`.

    Args:
        max_len: Number of positions.
        d_model: Width of each position vector; must be even.

    Returns:
        Tensor of shape (max_len, d_model) with values in [-1, 1].

    Raises:
        ValueError: If `d_model` is odd or either size is not positive.

    Examples:
        >>> sinusoidal_table(max_len=4, d_model=2)[:, 0]  # sin(pos)
        tensor([0.0000, 0.8415, 0.9093, 0.1411])
    """
    if max_len < 1 or d_model < 2 or d_model % 2:
        raise ValueError(
            f"need max_len >= 1 and an even d_model >= 2, got {max_len=}, {d_model=}",
        )
    position = torch.arange(max_len, dtype=torch.float32)[:, None]  # (max_len, 1)
    # One frequency per feature pair, from 1 down to 1/10000:
    # wavelengths 2*pi .. 10000*2*pi.
    exponent = torch.arange(0, d_model, 2) / d_model  # 2i / d_model
    frequency = torch.exp(-math.log(10000.0) * exponent)  # (d_model/2,)
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


# --8<-- [end:sinusoidal_table]


# --8<-- [start:shift_rotation]
def shift_rotation(k: int, d_model: int) -> torch.Tensor:
    """The matrix R_k that moves every sinusoidal position vector k positions on.

    `PE[pos + k] = R_k @ PE[pos]`. Each feature pair (sin, cos) of one frequency is a
    point on a circle; moving k positions on turns it by the angle `k * frequency`,
    whatever `pos` is. R_k is block-diagonal, one 2x2 rotation per pair, and depends
    on k alone. That is what lets a linear map (a query or key projection) express
    "k positions to the left" once for every position.

    Args:
        k: The shift in positions; negative shifts move back.
        d_model: Width of the position vectors; must be even.

    Returns:
        Tensor of shape (d_model, d_model).

    Raises:
        ValueError: If `d_model` is odd or not positive.

    Examples:
        >>> table = sinusoidal_table(max_len=20, d_model=8)
        >>> moved = table[:15] @ shift_rotation(5, 8).T  # every row moved 5 on
        >>> torch.allclose(moved, table[5:], atol=1e-5)
        True
    """
    if d_model < 2 or d_model % 2:
        raise ValueError(f"need an even d_model >= 2, got d_model={d_model}")
    exponent = torch.arange(0, d_model, 2) / d_model  # as in the table
    frequency = torch.exp(-math.log(10000.0) * exponent)  # (d_model/2,)
    cos, sin = torch.cos(k * frequency), torch.sin(k * frequency)
    rotation = torch.zeros(d_model, d_model)
    # sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b
    rotation[0::2, 0::2] = torch.diag(cos)
    rotation[0::2, 1::2] = torch.diag(sin)
    rotation[1::2, 0::2] = torch.diag(-sin)
    rotation[1::2, 1::2] = torch.diag(cos)
    return rotation


# --8<-- [end:shift_rotation]


# --8<-- [start:check_positions]
def _check_positions(x: torch.Tensor, table: torch.Tensor) -> None:
    max_len, d_model = table.shape
    if x.dim() != 3 or x.size(-1) != d_model:
        raise ValueError(
            f"x must have shape (B, T, d_model={d_model}), got shape {tuple(x.shape)}",
        )
    if x.size(1) > max_len:
        raise ValueError(
            f"sequence length {x.size(1)} exceeds max_len={max_len} of the position "
            f"table; build the encoding with max_len >= {x.size(1)}"
        )


# --8<-- [end:check_positions]


# --8<-- [start:sinusoidal_positional_encoding]
class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to the token vectors. No parameters.

    Args:
        d_model: Width of the token vectors; must be even.
        max_len: Longest sequence accepted. Defaults to 512.

    Raises:
        ValueError: In `forward`, if the input is longer than `max_len` or its
            width is not `d_model`.

    Shape:
        - x: (B, T, d_model) with T <= max_len
        - output: (B, T, d_model)

    Examples:
        >>> encoding = SinusoidalPositionalEncoding(d_model=8, max_len=16)
        >>> encoding(torch.zeros(1, 3, 8)).shape
        torch.Size([1, 3, 8])
    """

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        # A buffer, not a parameter: it moves with .to(device) but is never trained.
        table = sinusoidal_table(max_len, d_model)
        self.register_buffer("table", table, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return `x` plus the position vectors of its first T positions."""
        _check_positions(x, self.table)
        return x + self.table[: x.size(1)]  # (B, T, d_model)


# --8<-- [end:sinusoidal_positional_encoding]


# --8<-- [start:learned_positional_encoding]
class LearnedPositionalEncoding(nn.Module):
    """Adds a trained vector per position to the token vectors.

    Args:
        d_model: Width of the token vectors.
        max_len: Longest sequence accepted. Defaults to 512.

    Raises:
        ValueError: In `forward`, if the input is longer than `max_len` or its
            width is not `d_model`.

    Shape:
        - x: (B, T, d_model) with T <= max_len
        - output: (B, T, d_model)

    Examples:
        >>> encoding = LearnedPositionalEncoding(d_model=8, max_len=16)
        >>> encoding.table.shape
        torch.Size([16, 8])
    """

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        check_counts(d_model=d_model, max_len=max_len)
        # Small initial values, so positions start as a nudge, not as noise.
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return `x` plus the learned vectors of its first T positions."""
        _check_positions(x, self.table)
        return x + self.table[: x.size(1)]  # (B, T, d_model)


# --8<-- [end:learned_positional_encoding]


# --8<-- [start:positional_encoding]
def positional_encoding(kind: str, d_model: int, max_len: int = 512) -> nn.Module:
    """The positional encoding called `kind`, as used by the encoder and the digit models.

    Args:
        kind: `"sinusoidal"`, `"learned"`, or `"none"` (adds nothing; for experiments).
        d_model: Width of the token vectors.
        max_len: Longest sequence accepted. Defaults to 512.

    Returns:
        A module mapping (B, T, d_model) to (B, T, d_model).

    Raises:
        ValueError: If `kind` is none of the three.

    Examples:
        >>> type(positional_encoding("learned", d_model=8)).__name__
        'LearnedPositionalEncoding'
    """
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(d_model, max_len)
    if kind == "learned":
        return LearnedPositionalEncoding(d_model, max_len)
    if kind == "none":
        return nn.Identity()
    raise ValueError(f"positional must be 'sinusoidal', 'learned' or 'none', got {kind!r}")


# --8<-- [end:positional_encoding]
