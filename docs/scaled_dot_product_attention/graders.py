"""Chapter "Scaled dot-product attention": the function itself, its masks, its dropout and its errors; and
single-head self-attention with learned projections.

The three find-the-bug exercises of this function (too sharp, wrong axis, flipped mask) share this grader.
"""

from __future__ import annotations

import math
from functools import partial
from types import ModuleType

import torch
from torch import nn
from tutorial_code import attention
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_tools.exercises.checks import expect_error
from tutorial_tools.exercises.common import (
    Grader,
    call_on_copies,
    expect_same,
    expect_same_dropout,
    expect_same_gradients,
    expect_same_on_meta,
    generator,
    perturbed,
    repeated,
    seeded,
    shape,
    twin,
)

TOO_SHARP = (
    "your weights are too sharp: did you divide the scores by sqrt(d_k)?"
)
BY_D_K = "your weights are too flat: divide the scores by sqrt(d_k), not by d_k"
WRONG_AXIS = "each column of your weights sums to 1, not each row: take the softmax over the keys, the last axis (dim=-1)"
FLIPPED = (
    "your weights land on the keys the mask blocks: on this site True means 'may attend', "
    "so fill the scores with -inf where the mask is False (~mask)"
)
AFTER_SOFTMAX = "the rows of your weights no longer sum to 1: apply the mask to the scores before the softmax, not to the weights"
IGNORED = "the mask is ignored: your weights are those of no mask at all"
NAN_ROW = (
    "a query whose keys are all masked gets NaN: its scores are all -inf and softmax computes 0/0. "
    "Give such rows zero weights (and so a zero output)"
)
LEAK = (
    "a query whose keys are all masked spreads its weight over every key: a large negative number instead of "
    "-inf leaks once every score of a row is equally large. Give fully masked rows zero weights"
)

# (batch axes, T_q, T_k, d_k, d_v): batch and heads with the usual d_k, then one sequence with an odd number
# of queries and another d_k, so that only sqrt(d_k) computed from the inputs fits both.
SIZES = [((2, 3), 4, 6, 16, 5), ((1,), 7, 5, 12, 3)]


def _inputs(
    size: tuple, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    batch, t_q, t_k, d_k, d_v = size
    g = generator(seed)
    # Scores with a spread of about 4 (not 1), so that a missing or wrong scaling shows.
    query = torch.randn(*batch, t_q, d_k, generator=g) * 2
    key = torch.randn(*batch, t_k, d_k, generator=g) * 2
    value = torch.randn(*batch, t_k, d_v, generator=g)
    return query, key, value


def _described(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
) -> str:
    return f"query {shape(query)}, key {shape(key)}, value {shape(value)}"


def _fitted_scale(weights: object, scores: torch.Tensor) -> float | None:
    """The c for which `weights` is softmax(scores / c), by least squares over every row; None if none fits."""
    if (
        not isinstance(weights, torch.Tensor)
        or weights.shape != scores.shape
        or not bool((weights > 0).all())
    ):
        return None
    log_weights, scores = weights.detach().double().log(), scores.double()
    centred_log = log_weights - log_weights.mean(dim=-1, keepdim=True)
    centred_scores = scores - scores.mean(dim=-1, keepdim=True)
    fit = (centred_scores * centred_log).sum().item()
    return (centred_scores**2).sum().item() / fit if fit > 0 else None


def _scale_mistakes(
    query: torch.Tensor,
    key: torch.Tensor,
    got: object,
    mask: torch.Tensor | None = None,
) -> list:
    """Weights scaled by 1, by d_k, or by whatever constant the learner's weights fit, each with its hint."""
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1)
    blocked = (
        (lambda s: s)
        if mask is None
        else (lambda s: s.masked_fill(~mask, float("-inf")))
    )
    mistakes = [
        (torch.softmax(blocked(scores), dim=-1), TOO_SHARP),
        (torch.softmax(blocked(scores / d_k), dim=-1), BY_D_K),
    ]
    scale = _fitted_scale(got, scores) if mask is None else None
    if scale is not None and abs(scale - math.sqrt(d_k)) > 1e-3:
        hint = (
            f"your scores are divided by {scale:.4g}, but here d_k = {d_k} and sqrt(d_k) = {math.sqrt(d_k):.4g}: "
            "compute the scale from the inputs, d_k = query.size(-1)"
        )
        mistakes.append((torch.softmax(scores / scale, dim=-1), hint))
    return mistakes


def _weights_mistakes(
    query: torch.Tensor, key: torch.Tensor, got: object
) -> list:
    scaled = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    return [
        *_scale_mistakes(query, key, got),
        (torch.softmax(scaled, dim=-2), WRONG_AXIS),
        (
            lambda got: torch.allclose(
                got.sum(dim=-2), torch.ones(()), atol=1e-4
            ),
            WRONG_AXIS,
        ),
    ]


def _check_unmasked(learner: ModuleType) -> None:
    for seed, size in enumerate(SIZES):
        query, key, value = _inputs(size, seed)
        output, weights = call_on_copies(
            learner.scaled_dot_product_attention, query, key, value
        )
        _, expected_weights = scaled_dot_product_attention(query, key, value)
        what = _described(query, key, value)
        expect_same(
            weights,
            expected_weights,
            f"the weights for {what}",
            _weights_mistakes(query, key, weights),
        )
        # PyTorch's own function is the reference for the output.
        torch_output = nn.functional.scaled_dot_product_attention(
            query, key, value
        )
        expect_same(
            output,
            torch_output,
            f"the output for {what} (against PyTorch's scaled_dot_product_attention)",
        )


def _boolean_masks() -> list[tuple[tuple, torch.Tensor]]:
    """A causal mask over batch and heads; a (B, 1, T_k) padding mask for one query of three sequences of seven
    keys; a causal mask over one sequence of odd length."""
    lengths = torch.tensor([7, 2, 4])
    return [
        (((2, 3), 5, 5, 16, 5), causal_mask(5)),
        (((3,), 1, 7, 12, 3), padding_mask(lengths)[:, 0]),
        (((1,), 7, 7, 12, 3), causal_mask(7)),
    ]


def _on_blocked_keys(got: torch.Tensor, allowed: torch.Tensor) -> bool:
    """Whether the weights `got` land on keys the mask blocks while some keys it allows get none: a flipped mask."""
    allowed = allowed.expand_as(got)
    return bool((got[~allowed] > 1e-6).any()) and not bool(
        (got[allowed] > 1e-6).all()
    )


def _check_boolean_mask(learner: ModuleType) -> None:
    for seed, (size, mask) in enumerate(_boolean_masks()):
        query, key, value = _inputs(size, seed)
        output, weights = call_on_copies(
            learner.scaled_dot_product_attention, query, key, value, mask
        )
        expected_output, expected_weights = scaled_dot_product_attention(
            query, key, value, mask
        )
        scaled = torch.softmax(
            query @ key.transpose(-2, -1) / math.sqrt(query.size(-1)), dim=-1
        )  # before any mask
        mistakes = [
            (scaled_dot_product_attention(query, key, value, ~mask)[1], FLIPPED),
            (partial(_on_blocked_keys, allowed=mask), FLIPPED),
            (scaled * mask, AFTER_SOFTMAX),
            (scaled, IGNORED),
            *_scale_mistakes(query, key, weights, mask),
        ]  # fmt: skip
        what = f"{_described(query, key, value)} and a boolean mask of shape {shape(mask)}"
        expect_same(
            weights, expected_weights, f"the weights for {what}", mistakes
        )
        expect_same(output, expected_output, f"the output for {what}")


def _float_masks() -> list[tuple[tuple, torch.Tensor]]:
    """Random numbers added to the scores (zeros at two keys), and a padding mask written as 0 (keep) and -inf
    (block)."""
    bias = torch.randn(4, 6, generator=generator(1))
    bias[:, ::3] = (
        0.0  # read as booleans, these zeros would block keys 0 and 3: a mistake that shows
    )
    minus_inf = torch.zeros(1, 1, 5).masked_fill(
        torch.arange(5) >= 3, float("-inf")
    )
    return [(SIZES[0], bias), (SIZES[1], minus_inf)]


def _check_float_mask(learner: ModuleType) -> None:
    for seed, (size, mask) in enumerate(_float_masks()):
        query, key, value = _inputs(size, seed)
        output, weights = call_on_copies(
            learner.scaled_dot_product_attention, query, key, value, mask
        )
        _, expected_weights = scaled_dot_product_attention(
            query, key, value, mask
        )
        scores = query @ key.transpose(-2, -1)
        d_k = query.size(-1)
        mistakes = [
            (scaled_dot_product_attention(query, key, value)[1],
             "your weights are those of no mask at all: a float mask is added to the scores, scores + mask"),
            (scaled_dot_product_attention(query, key, value, mask.bool())[1],
             "your code reads the float mask as a boolean one: a float mask is added to the scores, "
             "scores + mask; only a torch.bool mask selects keys"),
            (torch.softmax(scores / math.sqrt(d_k) * mask, dim=-1),
             "a float mask is added to the scores, not multiplied: scores + mask"),
            (torch.softmax((scores + mask) / math.sqrt(d_k), dim=-1),
             "add the float mask after the scaling, scores / sqrt(d_k) + mask: it is meant in the units of the "
             "softmax's input"),
        ]  # fmt: skip
        what = f"{_described(query, key, value)} and a float mask of shape {shape(mask)}"
        expect_same(
            weights, expected_weights, f"the weights for {what}", mistakes
        )
        torch_output = nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=mask
        )
        expect_same(
            output,
            torch_output,
            f"the output for {what} (against PyTorch's scaled_dot_product_attention)",
        )


def _fully_masked(rows: torch.Tensor) -> list:
    """NaN or evenly spread weights exactly in the `rows` (a (T_q,) boolean) whose keys are all masked."""

    def nan_there(got: torch.Tensor) -> bool:
        return bool(torch.isnan(got[..., rows, :]).all()) and not bool(
            torch.isnan(got[..., ~rows, :]).any()
        )

    def even_there(got: torch.Tensor) -> bool:
        return torch.allclose(
            got[..., rows, :],
            torch.full_like(got[..., rows, :], 1 / got.size(-1)),
            atol=1e-4,
        )

    return [(nan_there, NAN_ROW), (even_there, LEAK)]


def _check_fully_masked_row(learner: ModuleType) -> None:
    blocked = torch.ones(4, 6, dtype=torch.bool)
    blocked[0] = False  # query 0 may attend to nothing
    minus_inf = torch.zeros(7, 5)
    minus_inf[3] = float("-inf")  # nor may query 3, through a float mask
    for seed, (size, mask) in enumerate(
        [(SIZES[0], blocked), (SIZES[1], minus_inf)]
    ):
        query, key, value = _inputs(size, seed)
        output, weights = call_on_copies(
            learner.scaled_dot_product_attention, query, key, value, mask
        )
        expected_output, expected_weights = scaled_dot_product_attention(
            query, key, value, mask
        )
        rows = (
            expected_weights.sum(dim=-1).flatten(0, -2)[0] == 0
        )  # (T_q,): the queries that see no key
        mistakes = _fully_masked(rows)
        what = f"a query whose keys are all masked ({'boolean' if mask.dtype == torch.bool else 'float'} mask)"
        expect_same(
            weights, expected_weights, f"the weights of {what}", mistakes
        )
        expect_same(
            output, expected_output, f"the output of {what}", mistakes[:1]
        )


def _check_dropout(learner: ModuleType) -> None:
    for seed, size in enumerate(SIZES):
        _expect_dropout_like_the_reference(learner, *_inputs(size, seed))


def _expect_dropout_like_the_reference(
    learner: ModuleType,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    p: float = 0.25,
) -> None:
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    weights = torch.softmax(scores, dim=-1)

    def ours(r: int) -> torch.Tensor:  # the inputs repeated r times
        inputs = (repeated(t, r) for t in (query, key, value))
        attend = learner.scaled_dot_product_attention
        return call_on_copies(attend, *inputs, dropout_p=p)[0]

    def reference(r: int) -> torch.Tensor:
        inputs = (repeated(t, r) for t in (query, key, value))
        return scaled_dot_product_attention(*inputs, dropout_p=p)[0]

    def mistakes() -> (
        list
    ):  # each from the same random numbers as the learner's and the reference's
        return [
            (weights @ value, "dropout_p is ignored: drop attention weights with "
                              "torch.nn.functional.dropout(weights, p=dropout_p) before they multiply the values"),
            (seeded(lambda: nn.functional.dropout(weights @ value, p=p)),
             "dropout goes on the weights, before they multiply the values, not on the output"),
            (seeded(lambda: torch.softmax(nn.functional.dropout(scores, p=p), dim=-1) @ value),
             "dropout goes on the weights after the softmax, not on the scores"),
            (seeded(lambda: nn.functional.dropout(weights, p=1 - p) @ value),
             "dropout_p is the probability of zeroing a weight, not of keeping it"),
        ]  # fmt: skip

    what = f"the output for {_described(query, key, value)}, dropout_p = {p}"
    expect_same_dropout(ours, reference, what, mistakes)


def _check_attention_errors(learner: ModuleType) -> None:
    query, key, value = (
        torch.randn(2, 4, d, generator=generator()) for d in (8, 8, 5)
    )
    attend = learner.scaled_dot_product_attention
    expect_error(
        lambda: attend(query, key[..., :6], value),
        (ValueError,),
        "query and key of widths 8 and 6",
    )
    expect_error(
        lambda: attend(query, key, value[:, :3]),
        (ValueError,),
        "4 keys and 3 values",
    )
    expect_error(lambda: attend(query, key, value, torch.ones(4, 4, dtype=torch.long)), (TypeError,),
                 "an integer mask (neither boolean nor float)")  # fmt: skip
    expect_error(lambda: attend(query, key, value, causal_mask(3)), (ValueError,),
                 "a (3, 3) mask for 4 queries and 4 keys")  # fmt: skip
    expect_error(
        lambda: attend(query.long(), key.long(), value.long()),
        (TypeError,),
        "integer query, key and value",
    )


def _check_attention_gradients(learner: ModuleType) -> None:
    q, k, v = (torch.randn(2, 4, 6, generator=generator(s)) for s in (5, 6, 7))
    expect_same_gradients(
        scaled_dot_product_attention,
        learner.scaled_dot_product_attention,
        (q, k, v),
        "scaled_dot_product_attention(query, key, value)",
    )
    # A causal mask whose first query may attend to nothing: the zero weights of that row must not cut the
    # gradients of the others.
    mask = causal_mask(4)
    mask[0, 0] = False
    expect_same_gradients(
        partial(scaled_dot_product_attention, mask=mask),
        partial(learner.scaled_dot_product_attention, mask=mask),
        (q, k, v),
        "scaled_dot_product_attention(query, key, value, mask) for a causal mask whose first query sees no key",
    )


def _check_attention_device(learner: ModuleType) -> None:
    query, key, value = _inputs(SIZES[0], 3)
    mask = torch.ones(query.size(-2), key.size(-2), dtype=torch.bool).tril(1)
    what = "the output for query, key, value and a mask on another device"
    expect_same_on_meta(scaled_dot_product_attention, learner.scaled_dot_product_attention,
                        (query, key, value, mask), what)  # fmt: skip


ATTENTION: Grader = [
    ("weights and output without a mask", _check_unmasked),
    ("on the inputs' device", _check_attention_device),
    ("boolean masks: causal, and padding", _check_boolean_mask),
    ("float masks, added to the scores", _check_float_mask),
    ("a query whose keys are all masked", _check_fully_masked_row),
    ("dropout on the weights, in training", _check_dropout),
    ("clear errors for mismatched shapes and masks", _check_attention_errors),
    (
        "gradients reach every input and weight, as the reference's",
        _check_attention_gradients,
    ),
]


# Single-head self-attention with learned projections (the SelfAttention exercises).

SAME_PROJECTION = (
    "queries and keys come from the same projection, so the score of t for s equals that of s for t: "
    "keys need their own W_K"
)

BY_D_MODEL = "your scores are divided by sqrt(d_model): divide them by sqrt(d_k), the width of the queries and keys"

# (d_model, d_k, B, T, causal): the usual sizes with a causal mask; one sequence of odd length, no mask, d_k
# left to its default (d_model).
SELF_ATTENTION_SIZES = [(8, 4, 2, 5, True), (6, None, 1, 7, False)]


def _check_self_attention(learner: ModuleType) -> None:
    for seed, (d_model, d_k, batch, length, causal) in enumerate(
        SELF_ATTENTION_SIZES
    ):
        torch.manual_seed(seed)
        reference = attention.SelfAttention(d_model, d_k).eval()
        ours = twin(learner.SelfAttention, reference, d_model, d_k)
        x = torch.randn(batch, length, d_model, generator=generator(seed))
        mask = causal_mask(length) if causal else None
        with torch.no_grad():
            expected_output, expected_weights = reference(x, mask)
            query, key, value = (
                reference.W_Q(x),
                reference.W_K(x),
                reference.W_V(x),
            )
            mistakes = [
                (
                    scaled_dot_product_attention(query, query, value, mask)[1],
                    SAME_PROJECTION,
                ),
                (
                    scaled_dot_product_attention(key, key, value, mask)[1],
                    SAME_PROJECTION.replace("W_K", "W_Q"),
                ),
            ]
            if mask is not None:
                mistakes.append(
                    (
                        reference(x)[1],
                        "the mask is ignored: pass it on to the attention",
                    )
                )
            output, weights = call_on_copies(ours, x, mask)
            mistakes += _scale_mistakes(query, key, weights, mask)
            if d_k is not None and d_k != d_model:
                scores = query @ key.transpose(-2, -1) / math.sqrt(d_model)
                if mask is not None:
                    scores = scores.masked_fill(~mask, float("-inf"))
                mistakes.append((torch.softmax(scores, dim=-1), BY_D_MODEL))
        what = f"x of shape {shape(x)}, d_k = {d_k or d_model}, {'a causal mask' if causal else 'no mask'}"
        expect_same(
            weights, expected_weights, f"the weights for {what}", mistakes
        )
        values = [
            (
                scaled_dot_product_attention(query, key, key, mask)[0],
                "the values need their own projection, W_V",
            )
        ]
        if d_k is None:  # only then can x itself stand in for the values
            values.append(
                (
                    scaled_dot_product_attention(query, key, x, mask)[0],
                    "project the values with W_V",
                )
            )
        expect_same(output, expected_output, f"the output for {what}", values)


def _check_self_attention_error(learner: ModuleType) -> None:
    torch.manual_seed(0)
    layer = learner.SelfAttention(8, 4)
    expect_error(
        lambda: layer(torch.randn(2, 5, 6)),
        (ValueError,),
        "token vectors of width 6 for d_model = 8",
    )


def _check_self_attention_gradients(learner: ModuleType) -> None:
    reference = perturbed(attention.SelfAttention(8), 5)
    ours = twin(learner.SelfAttention, reference, 8)
    x = torch.randn(2, 5, 8, generator=generator(5))
    expect_same_gradients(reference, ours, (x,), "SelfAttention(8)")


def _check_self_attention_device(learner: ModuleType) -> None:
    reference = attention.SelfAttention(8)
    ours = twin(learner.SelfAttention, reference, 8)
    x = torch.randn(2, 5, 8, generator=generator(6))
    expect_same_on_meta(
        reference, ours, (x,), "SelfAttention(8) of x on another device"
    )


SELF_ATTENTION: Grader = [
    ("SelfAttention.forward against the reference", _check_self_attention),
    ("on the input's device", _check_self_attention_device),
    ("a clear error for the wrong width", _check_self_attention_error),
    (
        "gradients reach every input and weight, as the reference's",
        _check_self_attention_gradients,
    ),
]
