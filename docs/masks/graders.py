"""Chapter "Masks": the causal mask and the padding mask."""

from __future__ import annotations

from types import ModuleType

import torch
from tutorial_code import masks
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    META,
    Grader,
    call_on_copies,
    expect_kind,
    expect_same,
)
from tutorial_tools.exercises.exercise import chapter_module

# 1 and 2 are the edge cases; 9 and 12 are longer than a mask written out by hand for the usual length 8.
CAUSAL_LENGTHS = (
    5,
    1,
    2,
    7,
    9,
    12,
    40,
)  # 40: longer than any table a learner might cut the mask from


def _causal_mistakes(seq_len: int) -> list:
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool)
    return [
        (
            ones.tril(1),
            "token t can see token t + 1: tril() with no offset keeps exactly the diagonal",
        ),
        (
            ones.tril(-1),
            "the diagonal is missing: a token may always attend to itself",
        ),
        (
            ones.triu(1),
            "the mask is flipped: on this site True means 'may attend', so keep the lower triangle",
        ),
        (
            ones.triu(),
            "that is the upper triangle: it lets each token see the future and hides the past",
        ),
    ]


def _check_causal(learner: ModuleType) -> None:
    for seq_len in CAUSAL_LENGTHS:
        expected = masks.causal_mask(seq_len)
        expect_same(
            learner.causal_mask(seq_len),
            expected,
            f"causal_mask({seq_len})",
            _causal_mistakes(seq_len),
        )


def _check_causal_device(learner: ModuleType) -> None:
    for device in (META, torch.device(META)):
        what = f"causal_mask(6, device={device!r})"
        got = learner.causal_mask(6, device=device)
        if isinstance(got, torch.Tensor) and got.device != torch.device(META):
            raise Wrong(
                f"{what}: the mask is on the device {got.device}",
                "create it on the device asked for",
            )
        expect_kind(got, masks.causal_mask(6, device=device), what)


def _check_causal_errors(learner: ModuleType) -> None:
    for seq_len in (0, -3):
        expect_error(
            lambda seq_len=seq_len: learner.causal_mask(seq_len),
            (ValueError,),
            f"causal_mask({seq_len})",
        )


CAUSAL_MASK: Grader = [
    ("causal_mask for several lengths", _check_causal),
    ("the mask on the device asked for", _check_causal_device),
    ("an error for a length below 1", _check_causal_errors),
]

# (lengths, max_len): three sequences padded to one more than the longest; one sequence, no padding; an empty
# sequence; and max_len left out (it defaults to the longest length).
PADDING_CASES = [
    ([3, 1, 5], 6),
    ([4], 4),
    ([0, 2], 3),
    ([1], None),
    ([2, 7, 4], None),
]


def _check_padding(learner: ModuleType) -> None:
    for lengths, max_len in PADDING_CASES:
        lengths = torch.tensor(lengths)
        expected = masks.padding_mask(lengths, max_len=max_len)
        what = f"padding_mask({lengths.tolist()}" + (
            f", max_len={max_len})" if max_len else ") with max_len left out"
        )
        mistakes = [
            (~expected, "the mask is flipped: True marks the real tokens, which may be attended to"),
            (expected[:, 0, 0], "return shape (B, 1, 1, T), so that it broadcasts over heads and queries"),
            (masks.padding_mask(lengths + 1, max_len=expected.size(-1) + 1)[..., :-1],
             "one padding position too many is allowed: use <, not <="),
        ]  # fmt: skip
        if max_len is None:
            longest = expected.size(-1)
            mistakes.append((
                lambda got, longest=longest: got.dim() == 4 and got.size(-1) != longest,
                "with max_len left out, the mask is as long as the longest sequence: max_len = lengths.max()",
            ))  # fmt: skip
        expect_same(
            call_on_copies(learner.padding_mask, lengths, max_len=max_len),
            expected,
            what,
            mistakes,
        )


def _check_padding_errors(learner: ModuleType) -> None:
    for what, lengths, error in [
        ("float lengths", torch.tensor([2.0, 3.0]), TypeError),
        ("boolean lengths", torch.tensor([True, False]), TypeError),
        (
            "lengths of shape (2, 1), not (B,)",
            torch.tensor([[2], [3]]),
            ValueError,
        ),
        ("a negative length", torch.tensor([2, -1]), ValueError),
    ]:
        expect_error(
            lambda lengths=lengths: learner.padding_mask(lengths),
            (error,),
            what,
        )
    expect_error(
        lambda: learner.padding_mask(torch.tensor([2, 7]), max_len=4),
        (ValueError,),
        "a length above max_len",
    )


PADDING_MASK: Grader = [
    ("padding_mask", _check_padding),
    ("clear errors for bad lengths", _check_padding_errors),
]

# "A mask read backwards" repairs chapter 2's attention, so chapter 2's checks grade it.
ATTENTION: Grader = chapter_module(
    "scaled_dot_product_attention", "graders"
).ATTENTION
