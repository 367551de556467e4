"""Chapter "A language model that writes": the unigram and bigram baselines, in bits per character."""

from __future__ import annotations

import math
from types import ModuleType

import torch

from tutorial_code import language_model
from tutorial_tools.exercises.checks import Wrong
from tutorial_tools.exercises.graders.common import Grader, call_on_copies, expect_same, generator

NATS = "that is in nats: divide by ln 2 (or use log2) to count bits"
UNSMOOTHED = "a character the training text never shows got probability 0 (infinite bits): add one to every count"


def _language_data() -> list[tuple[torch.Tensor, torch.Tensor, int]]:
    """(train, held out, vocabulary size): the last id of each vocabulary never occurs in training."""
    g = generator()
    return [
        (torch.randint(0, 5, (200,), generator=g), torch.cat([torch.randint(0, 5, (50,), generator=g),
                                                              torch.tensor([5, 2])]), 6),
        (torch.randint(0, 2, (31,), generator=g), torch.tensor([2, 0, 1, 2, 1]), 3),
    ]  # fmt: skip


def _number(value: object, what: str) -> torch.Tensor:
    try:
        return torch.tensor(float(value), dtype=torch.float64)
    except (TypeError, ValueError):
        raise Wrong(f"{what} should be a number, got {type(value).__name__}") from None


def _check_unigram(learner: ModuleType) -> None:
    for train, held_out, vocab_size in _language_data():
        expected = language_model.unigram_bpc(train, held_out, vocab_size)
        counts = torch.bincount(train, minlength=vocab_size).double() + 1
        mistakes = [
            (torch.tensor(expected * math.log(2)), NATS),
            (lambda got: bool(torch.isinf(got)), UNSMOOTHED),
            (-torch.log2(counts / len(train))[held_out].mean(),
             "after adding one to every count, divide by the new total, counts.sum(), so that the probabilities "
             "sum to 1"),
        ]  # fmt: skip
        what = f"the unigram bits per character ({len(train)} training ids, vocabulary of {vocab_size})"
        got = _number(call_on_copies(learner.unigram_bpc, train, held_out, vocab_size), what)
        expect_same(got, torch.tensor(expected, dtype=torch.float64), what, mistakes, atol=1e-6)


def _check_bigram(learner: ModuleType) -> None:
    for train, held_out, vocab_size in _language_data():
        expected = language_model.bigram_bpc(train, held_out, vocab_size)
        pairs = train[:-1] * vocab_size + train[1:]
        counts = torch.bincount(pairs, minlength=vocab_size**2).double().view(vocab_size, vocab_size) + 1
        by_column = -torch.log2(counts / counts.sum(dim=0, keepdim=True))[held_out[:-1], held_out[1:]].mean()
        mistakes = [
            (torch.tensor(expected * math.log(2)), NATS),
            (lambda got: bool(torch.isinf(got)), UNSMOOTHED.replace("character", "pair of characters")),
            (by_column, "normalize each row: P(next | previous) sums to 1 over the next character"),
        ]
        what = f"the bigram bits per character ({len(train)} training ids, vocabulary of {vocab_size})"
        got = _number(call_on_copies(learner.bigram_bpc, train, held_out, vocab_size), what)
        expect_same(got, torch.tensor(expected, dtype=torch.float64), what, mistakes, atol=1e-6)


UNIGRAM: Grader = [("unigram bits per character", _check_unigram)]
BIGRAM: Grader = [("bigram bits per character", _check_bigram)]
