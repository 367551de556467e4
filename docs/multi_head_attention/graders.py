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
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    META,
    Grader,
    call_on_copies,
    expect_kind,
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
    "the heads got mixed with the positions: reshaping straight between (B, T, d_model) and (B, h, T, d_k) "
    "cuts the sequence, not the features; look at which axes move, and when"
)
FEATURES_BY_HEAD = (
    "each head should take a block of d_k neighbouring features, and yours takes every h-th one: look at the "
    "order of the two axes d_model is split into"
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
            f"split_heads of x of shape {shape(x)} into {h} heads",
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
        expect_same(
            got,
            x,
            f"x of shape {shape(x)} split into {h} heads and combined back",
        )


def _check_heads_gradients(learner: ModuleType) -> None:
    batch, length, d_model, h = SIZES[0]
    x = torch.randn(batch, length, d_model, generator=generator(20))
    expect_same_gradients(
        lambda x: multi_head.split_heads(x, h),
        lambda x: call_on_copies(learner.split_heads, x, h),
        (x,),
        f"split_heads of x of shape {shape(x)} into {h} heads",
    )
    heads = multi_head.split_heads(x, h)
    expect_same_gradients(multi_head.combine_heads, lambda x: call_on_copies(learner.combine_heads, x), (heads,),
                          f"the heads of shape {shape(heads)} combined by combine_heads")  # fmt: skip


OFF_THE_DEVICE = (
    "splitting and combining heads reads no values, only shapes: a tensor made on the CPU and filled from x, or "
    "x.cpu(), x.tolist() or x.numpy(), takes the heads off the inputs' device (a GPU, say). Use view, transpose and "
    "reshape, or create the tensor on the input's device, e.g. x.new_empty(...) or torch.empty(..., device=x.device)"
)


def _expect_heads_on_meta(
    run, x: torch.Tensor, expected: torch.Tensor, what: str
) -> None:
    """`run(x)` on the meta device returns a tensor like `expected`: it must not copy x's values to the CPU (a
    value read in a check, `.item()`, fine on a GPU, passes unjudged)."""
    try:
        got = run(x.to(META))
    except (RuntimeError, NotImplementedError, TypeError) as error:
        if "cannot be called on meta tensors" in str(
            error
        ) or "data-independent" in str(error):
            return
        if "meta" in str(error) or "device" in str(error):
            raise Wrong(
                f"{what}: your code raised {type(error).__name__}: {error}",
                OFF_THE_DEVICE,
            ) from None
        raise
    expect_kind(got, expected.to(META), what)


def _check_heads_device(learner: ModuleType) -> None:
    for batch, length, d_model, h in SIZES[:2]:
        x = torch.randn(batch, length, d_model, generator=generator(21))
        what = f"split_heads of x of shape {shape(x)} into {h} heads, x on another device"
        _expect_heads_on_meta(
            lambda x, h=h: learner.split_heads(x, h),
            x,
            multi_head.split_heads(x, h),
            what,
        )
        heads = multi_head.split_heads(x, h)
        what = f"the heads of shape {shape(heads)} combined by combine_heads, on another device"
        _expect_heads_on_meta(
            learner.combine_heads, heads, multi_head.combine_heads(heads), what
        )


HEADS: Grader = [
    ("split_heads", _check_split),
    ("combine_heads", _check_combine),
    ("combine_heads undoes split_heads", _check_round_trip),
    ("on the input's device", _check_heads_device),
    ("gradients flow back through both", _check_heads_gradients),
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
        inputs = (query, key, value)
        what = f"the output for query {shape(query)} in training, dropout = {p}"
        expect_same_dropout(
            lambda r, ours=ours, inputs=inputs, mask=mask: call_on_copies(
                ours, *(repeated(t, r) for t in inputs), mask=repeated(mask, r)
            )[0],
            lambda r, reference=reference, inputs=inputs, mask=mask: reference(
                *(repeated(t, r) for t in inputs), mask=repeated(mask, r)
            )[0],
            what,
            partial(_dropout_mistakes, reference, inputs, mask, p),
        )


def _dropout_mistakes(
    reference: nn.Module, inputs: tuple, mask: torch.Tensor, p: float
) -> list:
    without = seeded(
        lambda: copy.deepcopy(reference).eval()(*inputs, mask=mask)[0]
    )
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
    g = generator(6)
    query, key = (
        torch.randn(batch, t_q, d_model, generator=g),
        torch.randn(batch, mask.size(-1), d_model, generator=g),
    )
    for dropout, inputs, keywords, what in [
        (
            0.0,
            (query, key, key),
            {"mask": mask},
            "a query, keys, values and a mask",
        ),
        (0.0, (query,), {}, "a query alone (no key, value or mask)"),
        (
            0.25,
            (query, key, key),
            {"mask": mask},
            "a query, keys, values and a mask, in training, dropout = 0.25",
        ),
    ]:
        torch.manual_seed(6)
        reference = multi_head.MultiHeadAttention(
            d_model, h, dropout=dropout
        ).train(dropout > 0)
        ours = twin(
            learner.MultiHeadAttention, reference, d_model, h, dropout=dropout
        )
        expect_same_on_meta(
            reference,
            ours,
            inputs,
            f"MultiHeadAttention of {what} on another device",
            keywords,
        )


def _check_multi_head_key_is_real(learner: ModuleType) -> None:
    """key_is_real alone, in cross-attention; then with a causal mask of four axes, in self-attention."""
    d_model, h = 12, 3
    torch.manual_seed(8)
    reference = perturbed(multi_head.MultiHeadAttention(d_model, h), 8).eval()
    ours = twin(learner.MultiHeadAttention, reference, d_model, h)
    g = generator(8)
    query, key, value = (
        torch.randn(2, t, d_model, generator=g) for t in (4, 6, 6)
    )
    # (B, T_k): the second sequence has 3 real tokens, then padding
    key_is_real = torch.arange(6) < torch.tensor([[6], [3]])
    causal = causal_mask(6)[None, None].repeat(2, 1, 1, 1)  # (B, 1, T, T)
    ignored = "key_is_real is ignored: merge it with the mask, merge_masks(mask, key_is_real, query, key)"
    for inputs, mask, what in [
        ((query, key, value), None, f"query {shape(query)}, key and value {shape(key)}, key_is_real {shape(key_is_real)}"),
        ((key,), causal, f"self-attention on {shape(key)}, a mask of shape {shape(causal)} and key_is_real {shape(key_is_real)}"),
    ]:  # fmt: skip
        with torch.no_grad():
            expected = reference(*inputs, mask=mask, key_is_real=key_is_real)[0]
            got = call_on_copies(
                ours, *inputs, mask=mask, key_is_real=key_is_real
            )[0]
            mistakes = [(reference(*inputs, mask=mask)[0], ignored)]
            if mask is not None:
                mistakes.append(
                    (
                        reference(*inputs, key_is_real=key_is_real)[0],
                        "the mask is ignored when key_is_real is given: apply both, merged by merge_masks",
                    )
                )
        expect_same(got, expected, f"the output for {what}", mistakes)


def _check_multi_head_without_bias(learner: ModuleType) -> None:
    d_model, h, batch, t_q, mask = _cases()[1]
    torch.manual_seed(9)
    reference = perturbed(
        multi_head.MultiHeadAttention(d_model, h, bias=False), 9
    ).eval()
    ours = twin(learner.MultiHeadAttention, reference, d_model, h, bias=False)
    query = torch.randn(batch, t_q, d_model, generator=generator(9))
    with torch.no_grad():
        expected, got = (
            reference(query, mask=mask)[0],
            call_on_copies(ours, query, mask=mask)[0],
        )
    expect_same(
        got,
        expected,
        f"the output of MultiHeadAttention({d_model}, {h}, bias=False) for self-attention on {shape(query)} with a causal mask",
    )


MULTI_HEAD: Grader = [
    ("MultiHeadAttention.forward against the reference", _check_multi_head),
    ("key_is_real hides the padded keys", _check_multi_head_key_is_real),
    ("without biases (bias=False)", _check_multi_head_without_bias),
    (
        "on the inputs' device, in eval mode and in training",
        _check_multi_head_device,
    ),
    ("dropout on the weights, in training", _check_multi_head_dropout),
    ("a clear error for the wrong width", _check_multi_head_error),
    (
        "gradients reach every input and weight, as the reference's",
        _check_multi_head_gradients,
    ),
]
