"""Chapter "Dynamic weights": single-head self-attention with learned projections."""

from __future__ import annotations

from types import ModuleType

import torch
from tutorial_code import attention
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import causal_mask
from tutorial_tools.exercises.checks import expect_error
from tutorial_tools.exercises.common import (
    Grader,
    call_on_copies,
    expect_same,
    generator,
    shape,
    twin,
)

SAME_PROJECTION = (
    "queries and keys come from the same projection, so the score of t for s equals that of s for t: "
    "keys need their own W_K"
)

# (d_model, d_k, B, T, causal): the usual sizes with a causal mask; one sequence of odd length, no mask, d_k
# left to its default (d_model).
SIZES = [(8, 4, 2, 5, True), (6, None, 1, 7, False)]


def _check_self_attention(learner: ModuleType) -> None:
    for seed, (d_model, d_k, batch, length, causal) in enumerate(SIZES):
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


SELF_ATTENTION: Grader = [
    ("SelfAttention.forward against the reference", _check_self_attention),
    ("a clear error for the wrong width", _check_self_attention_error),
]
