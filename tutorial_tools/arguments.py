"""Checked command-line arguments, shared by the commands: argparse types that refuse a bad value in one line."""

from __future__ import annotations

import argparse
import math

MAX_SEED = 2**32 - 1  # the range every seeded library accepts (NumPy's seeds stop there)


def whole_number(minimum: int, maximum: int):
    """An argparse type: a whole number from `minimum` to `maximum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {'at least 1' if minimum == 1 else '0 or more'}, got {value}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {value:,}")
        return value

    return parse


def probability(text: str) -> float:
    """An argparse type: a number in (0, 1] (`--top-p`)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], e.g. 0.9; got {text!r}")
    return value


def positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (`--temperature`)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number above 0, e.g. 0.8; got {text!r}")
    return value
