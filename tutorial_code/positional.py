"""Positional encodings: how a Transformer learns where each token stands.

Shapes: token vectors (B, T, d_model), tables (max_len, d_model).
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

    `PE[pos, 2i] = sin(pos / 10000^(2i/d_model))`, `PE[pos, 2i+1]` the cosine;
    `d_model` must be even.

    Examples:
        >>> sinusoidal_table(max_len=4, d_model=2)[:, 0]  # sin(pos)
        tensor([0.0000, 0.8415, 0.9093, 0.1411])
    """
    check_counts(max_len=max_len, d_model=d_model)
    if d_model % 2:
        raise ValueError(
            f"d_model must be even (sines and cosines in pairs), got {d_model}"
        )
    # (max_len, 1)
    position = torch.arange(max_len, dtype=torch.float32)[:, None]
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
    """The matrix R_k (d_model, d_model) with `PE[pos + k] = R_k @ PE[pos]`.

    Examples:
        >>> table = sinusoidal_table(max_len=20, d_model=8)
        >>> moved = table[:15] @ shift_rotation(5, 8).T  # every row moved 5 on
        >>> torch.allclose(moved, table[5:], atol=1e-5)
        True
    """
    check_counts(d_model=d_model)
    if d_model % 2:
        raise ValueError(
            f"d_model must be even (sines and cosines in pairs), got {d_model}"
        )
    exponent = torch.arange(0, d_model, 2) / d_model  # as in the table
    frequency = torch.exp(-math.log(10000.0) * exponent)  # (d_model/2,)
    cos, sin = torch.cos(k * frequency), torch.sin(k * frequency)
    rotation = torch.zeros(d_model, d_model)
    # sin(a + b) = sin a cos b + cos a sin b;
    # cos(a + b) = cos a cos b - sin a sin b
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
            f"x must have shape (B, T, d_model={d_model}), "
            f"got shape {tuple(x.shape)}"
        )
    if x.size(1) > max_len:
        raise ValueError(
            f"sequence length {x.size(1)} exceeds max_len={max_len} "
            f"of the position table; "
            f"build the encoding with max_len >= {x.size(1)}"
        )


# --8<-- [end:check_positions]


# --8<-- [start:sinusoidal_positional_encoding]
class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to token vectors (B, T, d_model).

    Examples:
        >>> encoding = SinusoidalPositionalEncoding(d_model=8, max_len=16)
        >>> encoding(torch.zeros(1, 3, 8)).shape
        torch.Size([1, 3, 8])
    """

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        check_counts(d_model=d_model, max_len=max_len)
        # A buffer, not a parameter: it moves with .to(device) but is never
        # trained.
        table = sinusoidal_table(max_len, d_model)
        self.register_buffer("table", table, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return `x` plus the position vectors of its first T positions."""
        _check_positions(x, self.table)
        return x + self.table[: x.size(1)]  # (B, T, d_model)


# --8<-- [end:sinusoidal_positional_encoding]


# --8<-- [start:learned_positional_encoding]
class LearnedPositionalEncoding(nn.Module):
    """Adds a trained vector per position to token vectors (B, T, d_model).

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
def positional_encoding(
    kind: str, d_model: int, max_len: int = 512
) -> nn.Module:
    """The encoding named `kind`: "sinusoidal", "learned" or "none" (adds 0)."""
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(d_model, max_len)
    if kind == "learned":
        return LearnedPositionalEncoding(d_model, max_len)
    if kind == "none":
        return nn.Identity()
    raise ValueError(
        f"positional must be 'sinusoidal', 'learned' or 'none', got {kind!r}"
    )


# --8<-- [end:positional_encoding]
