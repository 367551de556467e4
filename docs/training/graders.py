"""Chapter "The complete model, trained": the learning-rate schedules and the classifier's pooling."""

from __future__ import annotations

import copy
import math
from functools import partial
from types import ModuleType

import torch
from tutorial_code import digit_model, encoder
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    Grader,
    call_on_copies,
    expect_same,
    expect_same_gradients,
    expect_same_on_meta,
    perturbed,
    shape,
    twin,
)

# (steps, warmup_steps): the usual run; short runs with one warm-up step, none, nothing but warm-up, and one step
# after it.
SCHEDULE_RUNS = [(400, 100), (10, 3), (9, 1), (7, 0), (5, 5), (6, 5)]


def _steps(steps: int, warmup: int) -> list[int]:
    """Every seventh step, and the steps around the end of the warm-up and the last one."""
    around = {0, warmup - 1, warmup, warmup + 1, steps - 2, steps - 1}
    return sorted((set(range(0, steps, 7)) | around) & set(range(steps)))


def _number(value: object, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise Wrong(
            f"{what} should be a number, got {type(value).__name__}"
        ) from None


def _schedule_mistakes(
    schedule: str, steps: int, warmup: int, at: list[int], expected: list[float]
) -> list:
    """The factors of the usual slips, each differing from the reference's where the slip matters."""

    def changed(
        slip,
    ) -> (
        torch.Tensor
    ):  # the reference's factors, with `slip(step)` where it gives a number
        return torch.tensor(
            [
                v if slip(s) is None else slip(s)
                for s, v in zip(at, expected, strict=True)
            ]
        )

    def cosine(progress: float) -> float:
        return 0.5 * (1 + math.cos(math.pi * progress))

    mistakes = []
    if warmup > 0:
        mistakes += [
            (changed(lambda s: s / warmup if s < warmup else None),
             "at step 0 your factor is 0, so the first step leaves the weights unchanged: "
             "rise as (step + 1) / warmup_steps"),
            (changed(lambda s: (s + 1) / warmup if s == warmup else None),
             "the warm-up's last step is warmup_steps - 1 (steps count from 0): compare with step < warmup_steps"),
        ]  # fmt: skip
    if schedule == "inverse_sqrt":
        go_on = "after the warm-up the factor must go on from 1: sqrt(warmup_steps / (step + 1))"
        mistakes.append(
            (
                changed(
                    lambda s: 1 / math.sqrt(s + 1) if s >= warmup else None
                ),
                go_on,
            )
        )
    if schedule == "cosine":
        mistakes += [
            (changed(lambda s: cosine(s / (steps - 1)) if s >= warmup else None),
             "the cosine starts where the warm-up ends: progress = (step - warmup_steps) / (steps - 1 - warmup_steps)"),
            (changed(lambda s: cosine((s - warmup) / (steps - warmup)) if s >= warmup else None),
             "the cosine reaches 0 at the last step, steps - 1: divide by steps - 1 - warmup_steps"),
        ]  # fmt: skip
    return mistakes


def _check_schedule(learner: ModuleType) -> None:
    for schedule in digit_model.SCHEDULES:
        for steps, warmup in SCHEDULE_RUNS:
            at = _steps(steps, warmup)
            expected = [
                digit_model.learning_rate_factor(s, steps, warmup, schedule)
                for s in at
            ]
            what = f"the {schedule!r} factors with {warmup} warm-up steps of {steps}"
            got = [
                _number(
                    learner.learning_rate_factor(s, steps, warmup, schedule),
                    what,
                )
                for s in at
            ]
            wrong = [
                (s, g, e)
                for s, g, e in zip(at, got, expected, strict=True)
                if abs(g - e) > 1e-6
            ]
            if wrong:  # name the step, not its index among the steps checked
                step, yours, theirs = wrong[0]
                what += f", first wrong at step {step} (yours {yours:.6g}, the reference's {theirs:.6g})"
            mistakes = partial(
                _schedule_mistakes, schedule, steps, warmup, at, expected
            )
            expect_same(torch.tensor(got, dtype=torch.float64), torch.tensor(expected, dtype=torch.float64), what,
                        mistakes, atol=1e-6)  # fmt: skip


def _check_schedule_error(learner: ModuleType) -> None:
    expect_error(
        lambda: learner.learning_rate_factor(0, 10, 0, "linear"),
        (ValueError,),
        "an unknown schedule",
    )


SCHEDULE: Grader = [
    ("every schedule, at the ends of the warm-up", _check_schedule),
    ("an error for an unknown schedule", _check_schedule_error),
]


def _classifier_cases() -> list[tuple[int | None, torch.Tensor]]:
    """(pad_id, tokens): padding id 6, with 0 a real token; no padding id; the usual 0, one sequence."""
    return [
        (6, torch.tensor([[3, 0, 5, 6, 6], [1, 2, 0, 4, 5], [0, 6, 6, 6, 6]])),
        (None, torch.tensor([[3, 0, 5, 0], [1, 2, 7, 4]])),
        (0, torch.tensor([[8, 1, 2, 3, 4, 0, 0]])),
        (
            6,
            torch.tensor([[6, 6, 6, 6], [1, 2, 6, 6]]),
        ),  # a sequence of padding only: no NaN
    ]


def _classifiers(learner: ModuleType, pad_id: int | None, seed: int):
    """`(encoder, reference, the learner's twin)`: a one-layer encoder with `pad_id` and a classifier of 3 classes
    over it, in eval mode, the learner's holding the reference's weights."""
    torch.manual_seed(seed)
    body = encoder.Encoder(vocab_size=9, d_model=16, num_heads=4, d_ff=32, num_layers=1, dropout=0.0,
                           pad_id=pad_id)  # fmt: skip
    reference = perturbed(encoder.EncoderClassifier(body, 3), seed).eval()
    return (
        body,
        reference,
        twin(learner.EncoderClassifier, reference, copy.deepcopy(body), 3),
    )


def _check_classifier(learner: ModuleType) -> None:
    for seed, (pad_id, tokens) in enumerate(_classifier_cases()):
        body, reference, ours = _classifiers(learner, pad_id, seed)
        what = f"the logits of tokens {shape(tokens)} with pad_id={pad_id}"
        with torch.no_grad():
            expected, got = reference(tokens), call_on_copies(ours, tokens)
            encoded, _ = body(tokens)
            real = (
                (tokens != pad_id).unsqueeze(-1).float()
                if pad_id is not None
                else torch.ones_like(encoded[..., :1])
            )
            mistakes = [
                (reference.head(encoded.mean(dim=1)), "your mean counts the padding positions: average over the "
                                                      "real tokens only"),
                (reference.head((encoded * real).sum(dim=1)), "divide the sum by the number of real tokens"),
                (reference.head((encoded * real).sum(dim=1) / tokens.size(1)),
                 "divide by each sequence's number of real tokens, not by the padded length T"),
            ]  # fmt: skip
            if pad_id not in (0, None):
                not_zero = (tokens != 0).unsqueeze(-1).float()
                mistakes.append((reference.head((encoded * not_zero).sum(dim=1) / not_zero.sum(dim=1).clamp(min=1)),
                                 f"your mean leaves out the tokens with id 0, but the padding id is "
                                 f"self.encoder.pad_id (here {pad_id})"))  # fmt: skip
        expect_same(got, expected, what, mistakes)
        if pad_id is not None:
            longer = torch.cat(
                [tokens, torch.full((tokens.size(0), 3), pad_id)], dim=1
            )
            with torch.no_grad():
                got = call_on_copies(ours, longer)
            expect_same(
                got, expected, f"{what}, after three more padding tokens"
            )


def _check_classifier_gradients(learner: ModuleType) -> None:
    pad_id, tokens = _classifier_cases()[0]
    _, reference, ours = _classifiers(learner, pad_id, 3)
    expect_same_gradients(
        reference, ours, (tokens,), f"the logits of tokens {shape(tokens)}"
    )


def _check_classifier_device(learner: ModuleType) -> None:
    for seed, (pad_id, tokens) in enumerate(_classifier_cases()[:2]):
        _, reference, ours = _classifiers(learner, pad_id, seed)
        what = f"the logits of a model and tokens on another device, pad_id={pad_id}"
        expect_same_on_meta(reference, ours, (tokens,), what)


CLASSIFIER: Grader = [
    ("EncoderClassifier.forward against the reference", _check_classifier),
    (
        "gradients reach every input and weight, as the reference's",
        _check_classifier_gradients,
    ),
    ("on the inputs' device", _check_classifier_device),
]
