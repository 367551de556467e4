"""Chapter "Multi-head attention": splitting and combining heads, and MultiHeadAttention.forward."""

from __future__ import annotations

import copy
from functools import partial
from types import ModuleType

import torch
from torch import nn
from tutorial_code import multi_head
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

NO_TRANSPOSE = (
    "the heads got mixed with the positions: view x as (B, T, h, d_k) and then transpose(1, 2); "
    "reshaping straight to (B, h, T, d_k) cuts the sequence, not the features"
)
FEATURES_BY_HEAD = (
    "each head should take a block of d_k neighbouring features: view the last axis as (h, d_k), "
    "heads first, not as (d_k, h)"
)

# (B, T, d_model, h): the usual sizes; one sequence of odd length with other widths; a single position.
SIZES = [(2, 5, 12, 3), (1, 7, 8, 4), (3, 1, 6, 2)]


def _check_split(learner: ModuleType) -> None:
    for seed, (batch, length, d_model, h) in enumerate(SIZES):
        x = torch.randn(batch, length, d_model, generator=generator(seed))
        d_k = d_model // h
        mistakes = [
            (x.reshape(batch, h, length, d_k), NO_TRANSPOSE),
            (
                x.view(batch, length, d_k, h).permute(0, 3, 1, 2),
                FEATURES_BY_HEAD,
            ),
        ]
        expected = multi_head.split_heads(x, h)
        expect_same(
            call_on_copies(learner.split_heads, x, h),
            expected,
            f"split_heads(x of {shape(x)}, {h})",
            mistakes,
        )


def _check_combine(learner: ModuleType) -> None:
    for seed, (batch, length, d_model, h) in enumerate(SIZES):
        heads = torch.randn(
            batch, h, length, d_model // h, generator=generator(seed)
        )
        mistakes = [
            (heads.reshape(batch, length, d_model), NO_TRANSPOSE),
            (
                heads.permute(0, 2, 3, 1).reshape(batch, length, d_model),
                FEATURES_BY_HEAD,
            ),
        ]
        expected = multi_head.combine_heads(heads)
        expect_same(call_on_copies(learner.combine_heads, heads), expected, f"combine_heads(x of {shape(heads)})",
                    mistakes)  # fmt: skip


def _check_round_trip(learner: ModuleType) -> None:
    for seed, (batch, length, d_model, h) in enumerate(SIZES):
        x = torch.randn(batch, length, d_model, generator=generator(seed + 10))
        got = learner.combine_heads(learner.split_heads(x.clone(), h))
        expect_same(got, x, f"combine_heads(split_heads(x of {shape(x)}, {h}))")


HEADS: Grader = [
    ("split_heads", _check_split),
    ("combine_heads", _check_combine),
    ("combine_heads undoes split_heads", _check_round_trip),
]


def _attend_by_hand(reference, query, key, value, mask) -> torch.Tensor:
    """The heads of `reference` before W_O, (B, T_q, d_model)."""
    h = reference.num_heads
    Q, K, V = (multi_head.split_heads(w(x), h) for w, x in zip(
        (reference.W_Q, reference.W_K, reference.W_V), (query, key, value), strict=True))  # fmt: skip
    return multi_head.combine_heads(
        scaled_dot_product_attention(Q, K, V, mask)[0]
    )


@torch.no_grad()
def _mistakes(
    reference: nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask,
) -> list:
    """What the usual slips give, from the reference's weights."""
    mistakes = [
        (_attend_by_hand(reference, query, key, value, mask),
         "the heads are concatenated but not mixed: apply W_O to the combined heads"),
        (reference(query, key, value)[0], "the mask is ignored: pass it on to the attention of every head"),
        (reference(query, key, key, mask=mask)[0], "the values come from `value`: V = W_V(value)"),
        (reference(query, value, value, mask=mask)[0], "the keys come from `key`: K = W_K(key)"),
        (reference(query, value, key, mask=mask)[0], "key and value are swapped: K = W_K(key), V = W_V(value)"),
    ]  # fmt: skip
    if query.size(1) == key.size(1):
        mistakes.append(
            (
                reference(query, mask=mask)[0],
                "keys and values come from `key` and `value`, not `query`",
            )
        )
    return mistakes


def _cases() -> list[tuple[int, int, int, int, torch.Tensor]]:
    """(d_model, h, B, T_q, mask): cross-attention from 4 queries to 6 keys under a padding mask; one sequence of
    odd length, with other widths, under a causal mask."""
    return [
        (12, 3, 2, 4, padding_mask(torch.tensor([6, 3]))),
        (8, 4, 1, 7, causal_mask(7)),
    ]


def _check_multi_head(learner: ModuleType) -> None:
    for seed, (d_model, h, batch, t_q, mask) in enumerate(_cases()):
        torch.manual_seed(seed)
        reference = perturbed(
            multi_head.MultiHeadAttention(d_model, h), seed
        ).eval()
        ours = twin(learner.MultiHeadAttention, reference, d_model, h)
        g = generator(seed)
        t_k = mask.size(-1)
        query, key, value = (
            torch.randn(batch, t, d_model, generator=g) for t in (t_q, t_k, t_k)
        )  # all different
        with torch.no_grad():
            expected, expected_weights = reference(query, key, value, mask=mask)
            output, weights = call_on_copies(ours, query, key, value, mask=mask)
        what = f"query {shape(query)}, key and value {shape(key)} (different tensors), a mask of shape {shape(mask)}"
        expect_same(
            output,
            expected,
            f"the output for {what}",
            partial(_mistakes, reference, query, key, value, mask),
        )
        expect_same(weights, expected_weights, f"the weights for {what}")
        with torch.no_grad():
            self_output, _ = call_on_copies(ours, query)
            expected_self = reference(query)[0]
        expect_same(
            self_output,
            expected_self,
            f"the output of self-attention on {shape(query)} (key, value left out)",
        )


def _check_multi_head_dropout(learner: ModuleType) -> None:
    p = 0.25
    for seed, (d_model, h, batch, t_q, mask) in enumerate(_cases()):
        torch.manual_seed(seed)
        reference = perturbed(
            multi_head.MultiHeadAttention(d_model, h, dropout=p), seed
        ).train()
        ours = twin(
            learner.MultiHeadAttention, reference, d_model, h, dropout=p
        )
        g = generator(seed)
        query, key, value = (
            torch.randn(batch, t, d_model, generator=g)
            for t in (t_q, mask.size(-1), mask.size(-1))
        )
        inputs = (query, key, value, mask)
        what = f"the output for query {shape(query)} in training, dropout = {p}"
        expect_same_dropout(
            lambda r, ours=ours, inputs=inputs: call_on_copies(
                ours, *(repeated(t, r) for t in inputs)
            )[0],
            lambda r, reference=reference, inputs=inputs: reference(
                *(repeated(t, r) for t in inputs)
            )[0],
            what,
            partial(_dropout_mistakes, reference, inputs, p),
        )


def _dropout_mistakes(reference: nn.Module, inputs: tuple, p: float) -> list:
    without = seeded(lambda: copy.deepcopy(reference).eval()(*inputs)[0])
    return [
        (without, "in training, the attention weights get dropout: attend with self.attend(Q, K, V, mask), which "
                  "passes self.dropout.p while the module is training"),
        (seeded(lambda: nn.functional.dropout(without, p)), "dropout goes on the attention weights, not on the output"),
    ]  # fmt: skip


def _check_multi_head_error(learner: ModuleType) -> None:
    torch.manual_seed(0)
    layer = learner.MultiHeadAttention(12, 3)
    expect_error(
        lambda: layer(torch.randn(2, 5, 10)),
        (ValueError,),
        "a query of width 10 for d_model = 12",
    )


def _check_multi_head_gradients(learner: ModuleType) -> None:
    reference = perturbed(multi_head.MultiHeadAttention(16, 4), 5).eval()
    ours = twin(learner.MultiHeadAttention, reference, 16, 4)
    x = torch.randn(2, 5, 16, generator=generator(5))
    expect_same_gradients(reference, ours, (x,), "MultiHeadAttention(16, 4)")


def _check_multi_head_device(learner: ModuleType) -> None:
    d_model, h, batch, t_q, mask = _cases()[0]
    reference = multi_head.MultiHeadAttention(d_model, h).eval()
    ours = twin(learner.MultiHeadAttention, reference, d_model, h).eval()
    g = generator(6)
    query, key = (
        torch.randn(batch, t_q, d_model, generator=g),
        torch.randn(batch, mask.size(-1), d_model, generator=g),
    )
    what = "MultiHeadAttention of a query, keys, values and a mask on another device"
    expect_same_on_meta(reference, ours, (query, key, key, mask), what)


MULTI_HEAD: Grader = [
    ("MultiHeadAttention.forward against the reference", _check_multi_head),
    ("on the inputs' device", _check_multi_head_device),
    ("dropout on the weights, in training", _check_multi_head_dropout),
    ("a clear error for the wrong width", _check_multi_head_error),
    (
        "gradients reach every input and weight, as the reference's",
        _check_multi_head_gradients,
    ),
]
