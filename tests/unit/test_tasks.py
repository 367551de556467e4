"""The extra digit tasks: order and sharp attention."""

import pytest
import torch

from tutorial_code.digit_model import DigitModel
from tutorial_code.tasks import accuracy, argmax_batch, first_minus_last_batch, train_argmax


def test_argmax_batch_has_distinct_digits():
    numbers, targets = argmax_batch(100, 8, torch.Generator().manual_seed(0))
    assert all(len(set(row.tolist())) == 8 for row in numbers)
    assert torch.equal(targets, numbers.argmax(dim=1))


def test_first_minus_last_depends_on_order():
    numbers, targets = first_minus_last_batch(50, 6, torch.Generator().manual_seed(0))
    flipped = numbers.flip(1)
    assert torch.equal(flipped[:, 0] - flipped[:, -1], -targets)


@pytest.mark.integration
def test_argmax_model_learns_to_find_the_largest_digit():
    result = train_argmax(steps=500, seed=0)  # cached: the build trains the same model once
    assert accuracy(result.model) > 0.95


def test_untrained_argmax_model_is_near_chance():
    torch.manual_seed(0)
    assert accuracy(DigitModel(num_outputs=8, positional="sinusoidal")) < 0.4


def test_argmax_batch_refuses_more_than_ten_positions():
    with pytest.raises(ValueError, match="seq_len must be <= 10"):
        argmax_batch(2, 11)


def test_unknown_positional_encoding_is_explained():
    with pytest.raises(ValueError, match="positional must be 'sinusoidal', 'learned' or 'none'"):
        DigitModel(positional="rotary")
