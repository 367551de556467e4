"""Positional encodings and the feed-forward network."""

import math

import pytest
import torch

from tutorial_code.feed_forward import FeedForward
from tutorial_code.positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding, sinusoidal_table


def test_sinusoidal_table_follows_the_paper_formula():
    table = sinusoidal_table(50, 16)
    for pos in (0, 7, 49):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-5)
            assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-5)


def test_sinusoidal_encoding_has_no_parameters_and_adds_the_table():
    encoding = SinusoidalPositionalEncoding(8, max_len=10)
    assert list(encoding.parameters()) == []
    torch.testing.assert_close(encoding(torch.zeros(2, 4, 8))[1], sinusoidal_table(10, 8)[:4])


def test_learned_encoding_is_trainable():
    encoding = LearnedPositionalEncoding(8, max_len=10)
    encoding(torch.zeros(1, 3, 8)).sum().backward()
    assert encoding.table.grad[:3].abs().min() > 0 and encoding.table.grad[3:].abs().max() == 0


def test_feed_forward_acts_on_each_position_alone():
    torch.manual_seed(0)
    ffn = FeedForward(8, 32)
    x = torch.randn(2, 5, 8)
    torch.testing.assert_close(ffn(x)[:, 2], ffn(x[:, 2:3])[:, 0])


@pytest.mark.parametrize("encoding", [SinusoidalPositionalEncoding, LearnedPositionalEncoding])
def test_too_long_or_wrong_width_is_explained(encoding):
    module = encoding(8, max_len=4)
    with pytest.raises(ValueError, match="sequence length 5 exceeds max_len=4 of the position table"):
        module(torch.zeros(1, 5, 8))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, d_model=8\)"):
        module(torch.zeros(1, 3, 6))


def test_odd_width_is_explained():
    with pytest.raises(ValueError, match=r"d_model must be even \(sines and cosines in pairs\)"):
        sinusoidal_table(4, 7)
