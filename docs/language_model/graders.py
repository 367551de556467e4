"""Chapter "A language model that writes": the unigram and bigram baselines, in bits per character, and the
nucleus of top-p sampling."""

from __future__ import annotations

import math
from types import ModuleType

import torch
from tutorial_code import language_model
from tutorial_tools.exercises.checks import Wrong
from tutorial_tools.exercises.common import (
    META,
    Grader,
    call_on_copies,
    expect_on_meta,
    expect_same,
    generator,
    shape,
)

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
        raise Wrong(
            f"{what} should be a number, got {type(value).__name__}"
        ) from None


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
        got = _number(
            call_on_copies(learner.unigram_bpc, train, held_out, vocab_size),
            what,
        )
        expect_same(
            got,
            torch.tensor(expected, dtype=torch.float64),
            what,
            mistakes,
            atol=1e-6,
        )


def _check_bigram(learner: ModuleType) -> None:
    for train, held_out, vocab_size in _language_data():
        expected = language_model.bigram_bpc(train, held_out, vocab_size)
        pairs = train[:-1] * vocab_size + train[1:]
        counts = (
            torch.bincount(pairs, minlength=vocab_size**2)
            .double()
            .view(vocab_size, vocab_size)
            + 1
        )
        by_column = -torch.log2(counts / counts.sum(dim=0, keepdim=True))[
            held_out[:-1], held_out[1:]
        ].mean()
        mistakes = [
            (torch.tensor(expected * math.log(2)), NATS),
            (
                lambda got: bool(torch.isinf(got)),
                UNSMOOTHED.replace("character", "pair of characters"),
            ),
            (
                by_column,
                "normalize each row: P(next | previous) sums to 1 over the next character",
            ),
        ]
        what = f"the bigram bits per character ({len(train)} training ids, vocabulary of {vocab_size})"
        got = _number(
            call_on_copies(learner.bigram_bpc, train, held_out, vocab_size),
            what,
        )
        expect_same(
            got,
            torch.tensor(expected, dtype=torch.float64),
            what,
            mistakes,
            atol=1e-6,
        )


UNIGRAM: Grader = [("unigram bits per character", _check_unigram)]
BIGRAM: Grader = [("bigram bits per character", _check_bigram)]


def _cut(
    logits: torch.Tensor, outside: torch.Tensor, fill: float = float("-inf")
) -> torch.Tensor:
    return logits.masked_fill(outside, fill)


def _top_p_mistakes(logits: torch.Tensor, top_p: float) -> list:
    """What the usual slips give: each computed from the same logits."""
    probabilities = logits.softmax(dim=-1)
    sorted_p, order = probabilities.sort(dim=-1, descending=True)
    running = sorted_p.cumsum(dim=-1)
    ahead = running - sorted_p
    right = (ahead >= top_p).scatter(-1, order, ahead >= top_p)
    crossing = (running >= top_p).scatter(-1, order, running >= top_p)
    unsorted = probabilities.cumsum(dim=-1) - probabilities >= top_p
    ascending_p, ascending = probabilities.sort(dim=-1)
    smallest_first = (
        ascending_p.cumsum(dim=-1) - ascending_p >= top_p
    ).scatter(-1, ascending, ascending_p.cumsum(dim=-1) - ascending_p >= top_p)
    return [
        (_cut(logits, crossing), "the token whose probability makes the sum reach p belongs to the nucleus: "
                                 "compare p with the sum of the tokens before each token, not including it"),
        (_cut(logits, ahead >= top_p), "the mask is in sorted order: put it back in the tokens' own order, "
                                       "outside.scatter(-1, order, outside)"),
        (_cut(logits, unsorted), "sort the probabilities first, likeliest first: the nucleus is the likeliest "
                                 "tokens, not the first ones of the vocabulary"),
        (_cut(logits, smallest_first), "sort in descending order: the nucleus starts from the likeliest token"),
        (_cut(logits, right, 0.0), "a logit of 0 still has a probability: set the logits outside the nucleus "
                                   "to -inf"),
    ]  # fmt: skip


def _check_top_p(learner: ModuleType) -> None:
    g = generator()
    cases = [(torch.randn(3, 12, generator=g) * 2, 0.9), (torch.randn(3, 12, generator=g) * 2, 0.5),
             (torch.randn(7, generator=g) * 3, 0.75), (torch.randn(2, 4, 9, generator=g), 0.6)]  # fmt: skip
    for logits, top_p in cases:
        what = f"top_p_filter of logits of shape {shape(logits)} with top_p={top_p}"
        got = call_on_copies(learner.top_p_filter, logits, top_p)
        expected = language_model.top_p_filter(logits, top_p)
        expect_same(
            got,
            expected,
            what,
            lambda logits=logits, top_p=top_p: _top_p_mistakes(logits, top_p),
        )
    logits = torch.randn(2, 10, generator=g)
    got = call_on_copies(learner.top_p_filter, logits, 1.0)
    expect_same(
        got, logits, "top_p_filter with top_p=1.0, which keeps every token"
    )
    got = call_on_copies(learner.top_p_filter, logits, 1e-4)
    tiny = language_model.top_p_filter(logits, 1e-4)
    expect_same(got, tiny, "top_p_filter with top_p=1e-4, which keeps the likeliest token only",
                lambda: _top_p_mistakes(logits, 1e-4))  # fmt: skip


def _check_top_p_device(learner: ModuleType) -> None:
    logits = torch.zeros(3, 12, device=META)
    expect_on_meta(
        lambda: learner.top_p_filter(logits, 0.9),
        language_model.top_p_filter(logits, 0.9),
        "top_p_filter of logits on another device",
    )


TOP_P: Grader = [
    ("top_p_filter", _check_top_p),
    ("on the logits' device", _check_top_p_device),
]
