"""Chapter "Feed-forward, residuals and LayerNorm": the feed-forward network and the encoder layer."""

from __future__ import annotations

import itertools
from functools import partial
from types import ModuleType

import torch
from torch import nn
from tutorial_code import encoder, feed_forward
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_tools.exercises.common import (
    PRE_NORM,
    Grader,
    call_on_copies,
    expect_layer_in_eval_mode,
    expect_same,
    expect_same_dropout,
    expect_same_gradients,
    expect_same_in_training,
    expect_same_on_meta,
    first_output,
    generator,
    layers,
    perturbed,
    repeated,
    seeded,
    shape,
    twin,
    with_parts,
)

NO_ACTIVATION = "with no activation the two layers make one linear map: put a ReLU between them"

# (d_model, d_ff, B, T): the usual sizes; one sequence of odd length with other widths; more sequences, positions
# and features than the docstring's FeedForward(8, 32) on (2, 5, 8).
FEED_FORWARD_SIZES = [(8, 32, 2, 5), (6, 10, 1, 7), (16, 48, 3, 9)]


def _check_feed_forward(learner: ModuleType) -> None:
    for seed, (d_model, d_ff, batch, length) in enumerate(FEED_FORWARD_SIZES):
        torch.manual_seed(seed)
        reference = perturbed(
            feed_forward.FeedForward(d_model, d_ff), seed
        ).eval()
        ours = twin(learner.FeedForward, reference, d_model, d_ff)
        x = torch.randn(batch, length, d_model, generator=generator(seed))
        with torch.no_grad():
            first, second = reference.linear1, reference.linear2
            mistakes = [
                (second(first(x)), NO_ACTIVATION),
                (torch.relu(second(first(x))), "ReLU goes between the two linear layers, not after the second"),
                (torch.relu(second(torch.relu(first(x)))), "ReLU goes between the two linear layers only: the output "
                                                           "keeps its negative values"),
                (second(nn.functional.gelu(first(x))), "the page's network uses ReLU (torch.relu), not GELU"),
            ]  # fmt: skip
            expected, got = reference(x), call_on_copies(ours, x)
        expect_same(
            got,
            expected,
            f"the output for x of shape {shape(x)}, d_ff = {d_ff}",
            mistakes,
        )


def _check_feed_forward_dropout(learner: ModuleType) -> None:
    p = 0.25
    for seed, (d_model, d_ff, batch, length) in enumerate(FEED_FORWARD_SIZES):
        torch.manual_seed(seed)
        reference = perturbed(
            feed_forward.FeedForward(d_model, d_ff, dropout=p), seed
        ).train()
        ours = twin(learner.FeedForward, reference, d_model, d_ff, dropout=p)
        x = torch.randn(batch, length, d_model, generator=generator(seed))
        what = (
            f"the output for x of shape {shape(x)} in training, dropout = {p}"
        )
        expect_same_dropout(
            lambda r, ours=ours, x=x: call_on_copies(ours, repeated(x, r)),
            lambda r, reference=reference, x=x: reference(repeated(x, r)),
            what,
            partial(_dropout_mistakes, reference, x, p),
        )


def _dropout_mistakes(reference: nn.Module, x: torch.Tensor, p: float) -> list:
    first, second = reference.linear1, reference.linear2
    without = seeded(lambda: second(torch.relu(first(x))))
    return [
        (without, "in training, self.dropout drops some of the hidden features: apply it after the ReLU"),
        (seeded(lambda: nn.functional.dropout(without, p)), "dropout goes on the hidden features, after the ReLU, "
                                                            "not on the output"),
        (seeded(lambda: second(torch.relu(first(nn.functional.dropout(x, p))))),
         "dropout goes on the hidden features, after the ReLU, not on the input"),
    ]  # fmt: skip


def _check_feed_forward_gradients(learner: ModuleType) -> None:
    reference = perturbed(feed_forward.FeedForward(8, 32), 5).eval()
    ours = twin(learner.FeedForward, reference, 8, 32)
    x = torch.randn(2, 5, 8, generator=generator(5))
    expect_same_gradients(reference, ours, (x,), "FeedForward(8, 32)")


def _check_feed_forward_eval(learner: ModuleType) -> None:
    # In eval mode dropout is off, whatever its rate: the output is the
    # network's, the same on every call.
    reference = perturbed(
        feed_forward.FeedForward(8, 32, dropout=0.5), 6
    ).eval()
    ours = twin(learner.FeedForward, reference, 8, 32, dropout=0.5)
    x = torch.randn(2, 5, 8, generator=generator(6))
    with torch.no_grad():
        expected, got = reference(x), call_on_copies(ours, x)
    expect_same(got, expected, "the output in eval mode, dropout = 0.5")


def _check_feed_forward_device(learner: ModuleType) -> None:
    x = torch.randn(2, 5, 8, generator=generator(7))
    for dropout, mode in (
        (0.0, "in eval mode"),
        (0.25, "in training, dropout = 0.25"),
    ):
        torch.manual_seed(7)
        reference = feed_forward.FeedForward(8, 32, dropout=dropout).train(
            dropout > 0
        )
        ours = twin(learner.FeedForward, reference, 8, 32, dropout=dropout)
        expect_same_on_meta(
            reference,
            ours,
            (x,),
            f"FeedForward(8, 32) {mode}, x on another device",
        )


FEED_FORWARD: Grader = [
    ("FeedForward.forward against the reference", _check_feed_forward),
    (
        "on the input's device, in eval mode and in training",
        _check_feed_forward_device,
    ),
    ("dropout off in eval mode", _check_feed_forward_eval),
    (
        "dropout on the hidden features, in training",
        _check_feed_forward_dropout,
    ),
    (
        "gradients reach every input and weight, as the reference's",
        _check_feed_forward_gradients,
    ),
]

DROPOUT_ON_X = (
    "with both sub-layers outputting zeros, a training-mode pass zeroed or scaled parts of x itself: Dropout is "
    "applied to the residual stream. Drop only what a sub-layer adds: x + dropout(sublayer(x))"
)


def _encoder_cases() -> list[tuple[tuple, torch.Tensor, torch.Tensor]]:
    """(d_model, h, d_ff), x and its mask: two sequences, one padded; one of odd length, other widths, causal."""
    g = generator()
    return [
        (
            (16, 4, 32),
            torch.randn(2, 5, 16, generator=g),
            padding_mask(torch.tensor([5, 3])),
        ),
        ((12, 3, 20), torch.randn(1, 7, 12, generator=g), causal_mask(7)),
    ]


@torch.no_grad()
def _encoder_mistakes(
    reference: nn.Module, other: nn.Module, x: torch.Tensor, mask: torch.Tensor
) -> list:
    """What the usual slips give, from the reference's weights: `other` holds them in the other norm order."""
    return [
        (other(x, mask=mask)[0], PRE_NORM),
        (reference(x)[0], "the mask is ignored: pass it to the attention"),
        (with_parts(reference, norm2="norm1")(x, mask=mask)[0],
         "both sub-layers use norm1: the feed-forward network has its own LayerNorm, norm2"),
        (with_parts(reference, norm1="norm2")(x, mask=mask)[0],
         "both sub-layers use norm2: the attention has its own LayerNorm, norm1"),
    ]  # fmt: skip


def _larger_case() -> tuple[tuple, torch.Tensor, torch.Tensor]:
    """More sequences, positions, features and heads than the docstring's EncoderLayer(16, 4, 32) on (2, 5, 16),
    two of the sequences padded."""
    return (
        (24, 6, 40),
        torch.randn(3, 9, 24, generator=generator(3)),
        padding_mask(torch.tensor([9, 4, 6])),
    )


def _check_encoder_layer(learner: ModuleType, norm_first: bool) -> None:
    for seed, (sizes, x, mask) in enumerate(
        [*_encoder_cases(), _larger_case()]
    ):
        reference, ours, other = layers(
            learner.EncoderLayer,
            encoder.EncoderLayer,
            sizes,
            norm_first,
            seed=seed,
        )
        with torch.no_grad():
            expected, expected_weights = reference(x, mask=mask)
            output, weights = call_on_copies(ours, x, mask=mask)
        what = f"x of shape {shape(x)}, a mask of shape {shape(mask)}, norm_first={norm_first}"
        expect_same(
            output,
            expected,
            f"the output for {what}",
            partial(_encoder_mistakes, reference, other, x, mask),
        )
        expect_same(
            weights, expected_weights, f"the attention weights for {what}"
        )


def _check_encoder_dropout(learner: ModuleType) -> None:
    for seed, (sizes, x, mask) in enumerate(_encoder_cases()):
        for norm_first in (False, True):
            reference, ours, _ = layers(
                learner.EncoderLayer,
                encoder.EncoderLayer,
                sizes,
                norm_first,
                0.25,
                seed,
            )
            what = f"the output for x of shape {shape(x)} in training, dropout = 0.25, norm_first={norm_first}"

            def run(layer, r, x=x, mask=mask):  # the inputs repeated r times
                return first_output(
                    layer, x=repeated(x, r), mask=repeated(mask, r)
                )

            expect_same_in_training(
                reference, ours, run, what, ("dropout1", "dropout2")
            )


def _check_zero_sublayers(learner: ModuleType) -> None:
    p = 0.5
    for seed, (sizes, x, _) in enumerate(_encoder_cases()):
        torch.manual_seed(seed)
        layer = learner.EncoderLayer(*sizes, dropout=p, norm_first=True).train()
        with torch.no_grad():
            for linear in (layer.attention.W_O, layer.feed_forward.linear2):
                linear.weight.zero_()
                linear.bias.zero_()
        output = seeded(partial(first_output, layer, x))
        dropped = partial(_dropped, x=x, p=p)
        what = f"a pre-norm layer whose sub-layers output zeros, x of shape {shape(x)}, in training"
        expect_same(output, x, what, [(dropped, DROPOUT_ON_X)])


def _dropped(got: torch.Tensor, x: torch.Tensor, p: float) -> bool:
    """Whether every element of `got` is 0 or x / (1 - p), and not all of x: x itself went through a Dropout."""
    return bool(
        ((got == 0) | torch.isclose(got, x / (1 - p))).all()
    ) and not torch.allclose(got, x)


def _check_encoder_key_is_real(learner: ModuleType) -> None:
    """key_is_real alone, then with a causal mask, in both orders."""
    ignored = "key_is_real is ignored: merge it with the mask, merge_masks(mask, key_is_real, x, x)"
    for seed, (sizes, x, _) in enumerate([*_encoder_cases(), _larger_case()]):
        batch, length = x.shape[:2]
        # (B, T): the first sequence one token of padding, each next one 2 tokens shorter
        key_is_real = (
            torch.arange(length) < torch.arange(length - 1, 0, -2)[:batch, None]
        )
        for norm_first, mask in itertools.product(
            (False, True), (None, causal_mask(length))
        ):
            reference, ours, _ = layers(
                learner.EncoderLayer,
                encoder.EncoderLayer,
                sizes,
                norm_first,
                seed=seed,
            )
            what = (
                f"x of shape {shape(x)}, key_is_real {shape(key_is_real)}, norm_first={norm_first}"
                if mask is None
                else f"x of shape {shape(x)}, key_is_real {shape(key_is_real)} and a mask of shape {shape(mask)}, "
                f"norm_first={norm_first}"
            )
            with torch.no_grad():
                expected = reference(x, mask=mask, key_is_real=key_is_real)[0]
                got = first_output(ours, x, mask=mask, key_is_real=key_is_real)
                mistakes = [(reference(x, mask=mask)[0], ignored)]
                if mask is not None:
                    mistakes.append((reference(x, key_is_real=key_is_real)[0],
                                     "the mask is ignored when key_is_real is given: apply both, merged by merge_masks"))  # fmt: skip
            expect_same(got, expected, f"the output for {what}", mistakes)


def _check_encoder_device_in_training(learner: ModuleType) -> None:
    sizes, x, mask = _encoder_cases()[0]
    for norm_first in (False, True):
        reference, ours, _ = layers(
            learner.EncoderLayer,
            encoder.EncoderLayer,
            sizes,
            norm_first,
            0.25,
            seed=8,
        )
        what = f"EncoderLayer in training, dropout = 0.25, norm_first={norm_first}, its inputs on another device"
        expect_same_on_meta(reference, ours, (x,), what, {"mask": mask})


def _check_encoder_eval_and_gradients(learner: ModuleType) -> None:
    sizes, x, mask = _encoder_cases()[0]
    expect_layer_in_eval_mode(
        learner.EncoderLayer,
        encoder.EncoderLayer,
        sizes,
        (x,),
        "EncoderLayer",
        {"mask": mask},
    )


ENCODER_LAYER: Grader = [
    (
        "post-norm (norm_first=False)",
        lambda learner: _check_encoder_layer(learner, False),
    ),
    (
        "pre-norm (norm_first=True)",
        lambda learner: _check_encoder_layer(learner, True),
    ),
    ("dropout in training, in both orders", _check_encoder_dropout),
    ("dropout touches only what a sub-layer adds", _check_zero_sublayers),
    ("key_is_real hides the padded keys", _check_encoder_key_is_real),
    ("on the inputs' device, in training", _check_encoder_device_in_training),
    (
        "no dropout in eval mode; gradients and device as the reference's",
        _check_encoder_eval_and_gradients,
    ),
]
