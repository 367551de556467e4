"""Chapter "Positional encoding": the sinusoidal table and the rotation that shifts it."""

from __future__ import annotations

import math
from types import ModuleType

import torch
from tutorial_code import positional
from tutorial_tools.exercises.checks import expect_error
from tutorial_tools.exercises.common import Grader, expect_same

# (max_len, d_model): the usual table; a short one whose d_model / 2 is odd; a single position; a single pair; more
# positions and features than the page's 50 by 16.
TABLE_SIZES = [(50, 16), (7, 6), (1, 10), (9, 2), (64, 24)]


def _frequencies(d_model: int, step: int = 2) -> torch.Tensor:
    """10000^(-i / d_model) for i = 0, step, 2 step, ... below d_model."""
    return torch.exp(
        torch.arange(0, d_model, step) * (-math.log(10000.0) / d_model)
    )


def _table_mistakes(max_len: int, d_model: int) -> list:
    position = torch.arange(float(max_len))[:, None]
    angle = position * _frequencies(d_model)  # (max_len, d_model / 2)
    slow = (
        position * _frequencies(d_model, 1)[: d_model // 2]
    )  # exponent steps by 1 / d_model, not 2 / d_model
    return [
        (torch.stack([torch.cos(angle), torch.sin(angle)], dim=-1).flatten(1),
         "sines and cosines are swapped: even features (0, 2, ...) hold the sines"),
        (torch.cat([torch.sin(angle), torch.cos(angle)], dim=1),
         "the sines fill the first half and the cosines the second: this table interleaves them, "
         "sin in even features, cos in odd ones"),
        (torch.stack([torch.sin(slow), torch.cos(slow)], dim=-1).flatten(1),
         "the frequencies fall too slowly: feature pair i uses 10000^(2i / d_model), so the exponent "
         "steps by 2 / d_model per pair"),
    ]  # fmt: skip


def _check_table(learner: ModuleType) -> None:
    for max_len, d_model in TABLE_SIZES:
        expected = positional.sinusoidal_table(max_len, d_model)
        what = f"sinusoidal_table({max_len}, {d_model})"
        expect_same(learner.sinusoidal_table(max_len, d_model), expected, what, _table_mistakes(max_len, d_model),
                    atol=1e-4)  # fmt: skip


def _check_table_errors(learner: ModuleType) -> None:
    for max_len, d_model, what in [
        (10, 7, "an odd d_model"),
        (10, 0, "d_model = 0"),
        (0, 8, "max_len = 0"),
    ]:
        expect_error(
            lambda m=max_len, d=d_model: learner.sinusoidal_table(m, d),
            (ValueError,),
            what,
        )


SINUSOIDAL_TABLE: Grader = [
    ("the table, for several sizes", _check_table),
    ("errors for an odd d_model and empty sizes", _check_table_errors),
]

# (k, d_model): the usual shift; others, backwards and by zero, in other widths; one wider than the page's tables.
SHIFTS = [(3, 8), (5, 6), (-2, 10), (0, 4), (7, 24)]


def _check_rotation(learner: ModuleType) -> None:
    backwards = "your matrix moves the positions back: R_k must turn PE[pos] into PE[pos + k]; flip the sines' signs"
    for k, d_model in SHIFTS:
        expected = positional.shift_rotation(k, d_model)
        mistakes = (
            [(positional.shift_rotation(-k, d_model), backwards)] if k else []
        )
        got = learner.shift_rotation(k, d_model)
        expect_same(got, expected, f"shift_rotation({k}, {d_model})", mistakes)
        table = positional.sinusoidal_table(40, d_model)
        moved, rows = (
            (table[: 40 - k], table[k:])
            if k >= 0
            else (table[-k:], table[: 40 + k])
        )
        expect_same(
            moved @ got.T,
            rows,
            f"PE[pos] moved {k} positions on, in d_model = {d_model}",
            atol=1e-4,
        )


def _check_rotation_errors(learner: ModuleType) -> None:
    for d_model in (5, 0):
        expect_error(
            lambda d=d_model: learner.shift_rotation(1, d),
            (ValueError,),
            f"d_model = {d_model}",
        )


SHIFT_ROTATION: Grader = [
    ("R_k", _check_rotation),
    ("errors for an odd or empty d_model", _check_rotation_errors),
]
