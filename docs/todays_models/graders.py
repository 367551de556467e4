"""Chapter "From 2017 to today's models": RMSNorm, rotary positions, SwiGLU and grouped-query attention."""

from __future__ import annotations

from types import ModuleType

import torch
import torch.nn.functional as F
from tutorial_code import grouped_query, rms_norm, rotary, swiglu
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import causal_mask
from tutorial_tools.exercises.checks import expect_error
from tutorial_tools.exercises.common import (
    META,
    Grader,
    call_on_copies,
    expect_on_meta,
    expect_same,
    expect_same_dropout,
    expect_same_gradients,
    generator,
    perturbed,
    repeated,
    shape,
    twin,
)

# (d_model, leading shape): token vectors (B, T, d_model); one vector of another width; a (T, d_model) matrix.
NORM_SIZES = [(8, (2, 5)), (6, (1,)), (5, (7,))]


def _norm_mistakes(norm: torch.nn.Module, x: torch.Tensor) -> list:
    weight, eps = norm.weight, norm.eps
    mean_square = x.pow(2).mean(dim=-1, keepdim=True)
    centred = x - x.mean(dim=-1, keepdim=True)
    return [
        (centred * torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps) * weight,
         "that is LayerNorm: RMSNorm does not subtract the mean, it divides x itself by its root mean square"),
        (x / (mean_square + eps) * weight,
         "divide by the root of the mean square (torch.rsqrt or .sqrt()), not by the mean square itself"),
        (x * torch.rsqrt(mean_square + eps),
         "the learned scale is missing: multiply by self.weight"),
        (x * torch.rsqrt(x.pow(2).mean() + eps) * weight,
         "the mean square runs over the last axis only (dim=-1, keepdim=True): each token vector by itself"),
    ]  # fmt: skip


def _check_rms_norm(learner: ModuleType) -> None:
    for seed, (d_model, leading) in enumerate(NORM_SIZES):
        torch.manual_seed(seed)
        reference = perturbed(rms_norm.RMSNorm(d_model), seed)
        ours = twin(learner.RMSNorm, reference, d_model)
        x = (
            3.0 * torch.randn(*leading, d_model, generator=generator(seed))
            + 1.0
        )  # a mean far from 0
        with torch.no_grad():
            expected, got = reference(x), call_on_copies(ours, x)
            mistakes = _norm_mistakes(reference, x)
        expect_same(
            got,
            expected,
            f"RMSNorm({d_model}) of x of shape {shape(x)}",
            mistakes,
        )


def _check_rms_norm_width(learner: ModuleType) -> None:
    norm = learner.RMSNorm(8)
    expect_error(
        lambda: norm(torch.randn(2, 5, 6)),
        (ValueError,),
        "x of 6 features for RMSNorm(8)",
    )


def _check_rms_norm_eps_and_half(learner: ModuleType) -> None:
    # A large eps on small vectors shows whether eps is used, and where: under
    # the root, added to the mean square.
    for seed, eps in enumerate((0.5, 1e-3)):
        reference = perturbed(rms_norm.RMSNorm(8, eps=eps), seed)
        ours = twin(learner.RMSNorm, reference, 8, eps=eps)
        x = 0.2 * torch.randn(2, 5, 8, generator=generator(seed))
        with torch.no_grad():
            expected, got = reference(x), call_on_copies(ours, x)
        expect_same(
            got,
            expected,
            f"RMSNorm(8, eps={eps})",
            [
                (
                    x
                    * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
                    * reference.weight,
                    "use self.eps, the eps the module was built with",
                ),
                (
                    x
                    / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)
                    * reference.weight,
                    "add eps to the mean square, under the root",
                ),
            ],
        )
    # float16 in, float16 out, as nn.RMSNorm: compute in float32, convert back
    reference = rms_norm.RMSNorm(8)
    ours = twin(learner.RMSNorm, reference, 8)
    half = torch.randn(2, 5, 8, generator=generator(9)).half()
    with torch.no_grad():
        expected, got = reference(half), call_on_copies(ours, half)
    expect_same(got, expected, "RMSNorm(8) of float16 vectors", atol=1e-2)


def _check_rms_norm_gradients(learner: ModuleType) -> None:
    reference = perturbed(rms_norm.RMSNorm(8), 5)
    ours = twin(learner.RMSNorm, reference, 8)
    x = torch.randn(2, 5, 8, generator=generator(5))
    expect_same_gradients(reference, ours, (x,), "RMSNorm(8)")


def _check_rms_norm_device(learner: ModuleType) -> None:
    reference = rms_norm.RMSNorm(8)
    ours = twin(learner.RMSNorm, reference, 8).to(META)
    x = torch.zeros(2, 5, 8, device=META)
    expect_on_meta(
        lambda: ours(x),
        reference.to(META)(x),
        "RMSNorm(8) of x on another device",
    )


RMS_NORM: Grader = [
    ("RMSNorm, for several shapes", _check_rms_norm),
    ("on the input's device", _check_rms_norm_device),
    ("eps, and float16 vectors", _check_rms_norm_eps_and_half),
    ("an error for the wrong width", _check_rms_norm_width),
    (
        "gradients reach every input and weight, as the reference's",
        _check_rms_norm_gradients,
    ),
]

# (shape (..., T, head_dim), offset, pairing, dtype): the usual heads; a single matrix; an offset, as a cache gives;
# half precision, which the rotation must keep.
ROTARY_CASES = [
    ((2, 4, 6, 8), 0, "half", torch.float32),
    ((5, 6), 0, "interleaved", torch.float32),
    ((1, 2, 3, 4), 7, "half", torch.float32),
    ((3, 10), 4, "interleaved", torch.float32),
    ((2, 3, 8), 2, "half", torch.float16),
    (
        (1, 4, 8),
        3000,
        "interleaved",
        torch.float16,
    ),  # angles must be computed in float32: in float16 they are far off
]
OTHER_PAIRING = "the features are paired the other way: 'half' pairs feature i with i + head_dim/2, 'interleaved' " \
                "pairs 2i with 2i + 1"  # fmt: skip
WRONG_WAY = (
    "each pair turns the wrong way: (a, b) -> (a cos - b sin, a sin + b cos)"
)
FROM_ZERO = "the first row is at position offset, not 0: pass offset on to rotary_angles"


def _turned_back(x: torch.Tensor, offset: int, pairing: str) -> torch.Tensor:
    """Every position turned by minus its angle: the sines' signs flipped."""
    flipped = x.clone()
    second = (
        slice(x.size(-1) // 2, None) if pairing == "half" else slice(1, None, 2)
    )
    flipped[..., second] = -flipped[
        ..., second
    ]  # reflect each pair: turning it by +a is then -a
    turned = rotary.apply_rotary(flipped, offset, pairing=pairing)
    turned[..., second] = -turned[..., second]
    return turned


def _check_apply_rotary(learner: ModuleType) -> None:
    for seed, (size, offset, pairing, dtype) in enumerate(ROTARY_CASES):
        x = torch.randn(*size, generator=generator(seed)).to(dtype)
        expected = rotary.apply_rotary(x, offset, pairing=pairing)
        other = "interleaved" if pairing == "half" else "half"
        mistakes = [
            (rotary.apply_rotary(x, offset, pairing=other), OTHER_PAIRING),
            (_turned_back(x, offset, pairing), WRONG_WAY),
        ]  # fmt: skip
        if offset:
            mistakes.append(
                (rotary.apply_rotary(x, 0, pairing=pairing), FROM_ZERO)
            )
        got = call_on_copies(learner.apply_rotary, x, offset, pairing=pairing)
        what = f"apply_rotary(x of shape {shape(x)}, {dtype}, offset={offset}, pairing={pairing!r})"
        expect_same(
            got,
            expected,
            what,
            mistakes,
            atol=1e-5
            if dtype == torch.float32
            else 1e-3
            if offset < 100
            else 1e-2,
        )


def _check_apply_rotary_base(learner: ModuleType) -> None:
    x = torch.randn(2, 5, 8, generator=generator(3))
    for base in (100.0, 500000.0):  # a short wavelength, and Llama 3's long one
        expected = rotary.apply_rotary(x, 2, base=base)
        got = call_on_copies(learner.apply_rotary, x, 2, base=base)
        mistakes = [
            (
                rotary.apply_rotary(x, 2),
                "use the base you are given: pass base on to rotary_angles",
            )
        ]
        expect_same(
            got,
            expected,
            f"apply_rotary(x of shape {shape(x)}, offset=2, base={base:g})",
            mistakes,
        )


def _check_apply_rotary_device(learner: ModuleType) -> None:
    x = torch.zeros(2, 4, 6, 8, device=META)
    expect_on_meta(
        lambda: learner.apply_rotary(x, 3),
        rotary.apply_rotary(x, 3),
        "apply_rotary of x on another device",
    )


def _check_apply_rotary_errors(learner: ModuleType) -> None:
    x = torch.randn(3, 8)
    expect_error(
        lambda: learner.apply_rotary(x, pairing="neighbours"),
        (ValueError,),
        "pairing='neighbours'",
    )
    expect_error(
        lambda: learner.apply_rotary(torch.randn(8)),
        (ValueError,),
        "x of one axis, shape (8,)",
    )


def _check_apply_rotary_gradients(learner: ModuleType) -> None:
    x = torch.randn(2, 3, 5, 8, generator=generator(5))
    expect_same_gradients(
        lambda x: rotary.apply_rotary(x, offset=3),
        lambda x: learner.apply_rotary(x, offset=3),
        (x,),
        "apply_rotary(x, offset=3)",
    )


APPLY_ROTARY: Grader = [
    ("both pairings, several shapes and offsets", _check_apply_rotary),
    ("another base", _check_apply_rotary_base),
    ("on the input's device", _check_apply_rotary_device),
    (
        "errors for an unknown pairing and a vector without positions",
        _check_apply_rotary_errors,
    ),
    (
        "gradients reach every input and weight, as the reference's",
        _check_apply_rotary_gradients,
    ),
]

# (d_model, d_ff, leading shape): the usual sizes; one sequence of other widths; wider than the docstring's
# SwiGLU(8, 24), with another batch size; a (T, d_model) matrix, without a batch axis.
SWIGLU_SIZES = [
    (8, 12, (2, 5)),
    (6, 10, (1, 7)),
    (16, 40, (3, 4)),
    (6, 14, (5,)),
]


def _check_swiglu(learner: ModuleType) -> None:
    for seed, (d_model, d_ff, leading) in enumerate(SWIGLU_SIZES):
        torch.manual_seed(seed)
        reference = perturbed(swiglu.SwiGLU(d_model, d_ff), seed)
        ours = twin(learner.SwiGLU, reference, d_model, d_ff)
        x = torch.randn(*leading, d_model, generator=generator(seed))
        with torch.no_grad():
            gate, up, down = reference.gate(x), reference.up(x), reference.down
            mistakes = [
                (down(gate * F.silu(up)), "SiLU goes on the gate, not on the up vector"),
                (down(gate * up), "pass the gate through SiLU (F.silu) before multiplying"),
                (down(torch.relu(gate) * up), "SwiGLU gates with SiLU (x * sigmoid(x)), not ReLU"),
                (down(torch.sigmoid(gate) * up), "a sigmoid gate is GLU's; SwiGLU's is SiLU, x * sigmoid(x)"),
                (down(F.silu(gate) + up), "multiply the gate and the up vector feature by feature, do not add them"),
            ]  # fmt: skip
            expected, got = reference(x), call_on_copies(ours, x)
        expect_same(
            got,
            expected,
            f"SwiGLU({d_model}, {d_ff}) of x of shape {shape(x)}",
            mistakes,
        )


def _check_swiglu_gradients(learner: ModuleType) -> None:
    reference = perturbed(swiglu.SwiGLU(8, 12), 5)
    ours = twin(learner.SwiGLU, reference, 8, 12)
    x = torch.randn(2, 5, 8, generator=generator(5))
    expect_same_gradients(reference, ours, (x,), "SwiGLU(8, 12)")


def _check_swiglu_device(learner: ModuleType) -> None:
    reference = swiglu.SwiGLU(8, 12)
    ours = twin(learner.SwiGLU, reference, 8, 12).to(META)
    x = torch.zeros(2, 5, 8, device=META)
    expect_on_meta(
        lambda: ours(x),
        reference.to(META)(x),
        "SwiGLU(8, 12) of x on another device",
    )


SWIGLU: Grader = [
    ("SwiGLU, for several sizes", _check_swiglu),
    ("on the input's device", _check_swiglu_device),
    (
        "gradients reach every input and weight, as the reference's",
        _check_swiglu_gradients,
    ),
]

# (B, h, h_kv, T, d_k, causal): grouped-query; multi-query with a causal mask; as many key/value heads as
# heads; an odd group size; more heads, positions and features than the docstring's.
GROUPED_CASES = [
    (2, 4, 2, 5, 8, False),
    (1, 4, 1, 6, 4, True),
    (2, 2, 2, 3, 6, True),
    (1, 6, 2, 4, 4, False),
    (3, 8, 2, 7, 16, True),
]
CYCLED = "query head i reads key/value head i // (h / h_kv): repeat_interleave each head, not .repeat (which " \
         "cycles through the heads)"  # fmt: skip


def _check_grouped_attention(learner: ModuleType) -> None:
    for seed, (batch, h, h_kv, length, d_k, causal) in enumerate(GROUPED_CASES):
        g = generator(seed)
        Q = torch.randn(batch, h, length, d_k, generator=g)
        K, V = (
            torch.randn(batch, h_kv, length, d_k, generator=g) for _ in range(2)
        )
        mask = causal_mask(length) if causal else None
        expected, weights = grouped_query.grouped_attention(Q, K, V, mask)
        group = h // h_kv
        cycled = scaled_dot_product_attention(
            Q, K.repeat(1, group, 1, 1), V.repeat(1, group, 1, 1), mask
        )
        unmasked = grouped_query.grouped_attention(Q, K, V)
        mistakes = [(cycled[0], CYCLED)]
        if causal:
            mistakes.append(
                (
                    unmasked[0],
                    "the mask is ignored: pass it on to the attention",
                )
            )
        what = f"the output for Q {shape(Q)} and K, V {shape(K)}" + (
            " with a causal mask" if causal else ""
        )
        got = call_on_copies(learner.grouped_attention, Q, K, V, mask)
        if not isinstance(got, tuple) or len(got) != 2:
            expect_same(got, expected, f"{what}: should be (output, weights)")
        expect_same(got[0], expected, what, mistakes)
        weight_mistakes = [(cycled[1], CYCLED)] + (
            [(unmasked[1], "the mask is ignored")] if causal else []
        )
        expect_same(
            got[1],
            weights,
            f"the weights for Q {shape(Q)} and K, V {shape(K)}",
            weight_mistakes,
        )


def _check_grouped_attention_errors(learner: ModuleType) -> None:
    Q, K = torch.randn(1, 4, 3, 8), torch.randn(1, 3, 3, 8)
    expect_error(
        lambda: learner.grouped_attention(Q, K, K),
        (ValueError,),
        "4 query heads and 3 key/value heads",
    )


def _check_grouped_attention_dropout(learner: ModuleType) -> None:
    p = 0.25
    g = generator(4)
    Q, K, V = (
        torch.randn(2, 4, 5, 8, generator=g),
        torch.randn(2, 2, 5, 8, generator=g),
        torch.randn(2, 2, 5, 8, generator=g),
    )
    mask = causal_mask(5)

    def ours(r: int) -> torch.Tensor:  # the inputs repeated r times
        inputs = (repeated(t, r) for t in (Q, K, V))
        return call_on_copies(
            learner.grouped_attention, *inputs, mask, dropout_p=p
        )[0]

    def reference(r: int) -> torch.Tensor:
        return grouped_query.grouped_attention(
            *(repeated(t, r) for t in (Q, K, V)), mask, dropout_p=p
        )[0]

    def mistakes() -> list:
        return [
            (
                grouped_query.grouped_attention(Q, K, V, mask)[0],
                "dropout_p is ignored: pass it on to the attention",
            )
        ]

    expect_same_dropout(
        ours,
        reference,
        f"the output for Q {shape(Q)} and K, V {shape(K)}, dropout_p = {p}",
        mistakes,
    )


def _check_grouped_attention_gradients(learner: ModuleType) -> None:
    g = generator(5)
    Q, K, V = (
        torch.randn(1, 6, 4, 4, generator=g),
        torch.randn(1, 2, 4, 4, generator=g),
        torch.randn(1, 2, 4, 4, generator=g),
    )
    expect_same_gradients(
        lambda Q, K, V: grouped_query.grouped_attention(Q, K, V)[0],
        lambda Q, K, V: learner.grouped_attention(Q, K, V)[0],
        (Q, K, V),
        "grouped_attention with 6 query heads and 2 key/value heads",
    )


def _check_grouped_attention_device(learner: ModuleType) -> None:
    Q, K = (
        torch.zeros(2, 4, 5, 8, device=META),
        torch.zeros(2, 2, 5, 8, device=META),
    )
    mask = causal_mask(5, device=META)
    expect_on_meta(
        lambda: learner.grouped_attention(Q, K, K, mask)[0],
        grouped_query.grouped_attention(Q, K, K, mask)[0],
        "grouped_attention of Q, K, V and a mask on another device",
    )
    expect_on_meta(
        lambda: learner.grouped_attention(Q, K, K)[0],
        grouped_query.grouped_attention(Q, K, K)[0],
        "grouped_attention of Q, K, V without a mask on another device",
    )


GROUPED_ATTENTION: Grader = [
    (
        "grouped-query, multi-query and multi-head attention",
        _check_grouped_attention,
    ),
    ("dropout_p in training", _check_grouped_attention_dropout),
    (
        "gradients reach Q, K and V, as the reference's",
        _check_grouped_attention_gradients,
    ),
    ("on the inputs' device", _check_grouped_attention_device),
    (
        "an error when the key/value heads do not divide the query heads",
        _check_grouped_attention_errors,
    ),
]
