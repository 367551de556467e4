"""Chapter "Classifying and tagging variable-length sequences": the tags of a padded batch."""

from __future__ import annotations

from types import ModuleType

import torch
from tutorial_code import padded_tasks
from tutorial_code.padded_tasks import PAD
from tutorial_tools.exercises.common import (
    Grader,
    call_on_copies,
    expect_same,
    expect_same_on_meta,
    generator,
)

ON_PADDING = "the padded positions get a tag: give them the label IGNORE (-100), which cross_entropy and accuracy skip"


def _check_token_labels(learner: ModuleType) -> None:
    # one batch written out, three drawn as the chapter draws them (lengths 3 to 12, padded to the longest), one
    # larger than the chapter's (40 sequences of up to 30 digits), one sequence of one digit, and a batch without
    # padding
    batches = [torch.tensor([[1, 2, 6, PAD], [9, PAD, PAD, PAD]])]
    batches += [
        padded_tasks.padded_batch(8, generator=generator(seed))
        for seed in range(3)
    ]
    batches += [
        padded_tasks.padded_batch(40, 1, 30, generator=generator(3)),
        torch.tensor([[7]]),
        torch.tensor([[4, 4, 4], [0, 9, 5]]),
    ]
    for tokens in batches:
        expected = padded_tasks.token_labels(tokens)
        real = tokens != PAD
        mistakes = [
            (expected.masked_fill(~real, 0), ON_PADDING),
            (expected.masked_fill(~real, 1), ON_PADDING),
        ]
        what = f"token_labels of a batch of shape {tuple(tokens.shape)} with {int((~real).sum())} padded positions"
        expect_same(
            call_on_copies(learner.token_labels, tokens),
            expected,
            what,
            mistakes,
        )


def _check_token_labels_device(learner: ModuleType) -> None:
    tokens = padded_tasks.padded_batch(4, generator=generator(4))
    expect_same_on_meta(padded_tasks.token_labels, learner.token_labels, (tokens,),
                        "token_labels of a batch on another device")  # fmt: skip


TOKEN_LABELS: Grader = [
    ("token_labels on padded batches", _check_token_labels),
    ("on the inputs' device", _check_token_labels_device),
]
