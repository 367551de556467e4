"""The measurements of the first chapter: timing rows and how far a gradient reaches."""

import pytest
import torch
from torch import nn

from tutorial_code.why_attention import Timing, gradient_reach, median_ms, recurrent_by_hand, time_layers


def test_time_layers_returns_one_positive_row_per_length():
    rows = time_layers(seq_lens=(8, 16), d_model=16, batch_size=2)
    assert [r.seq_len for r in rows] == [8, 16]
    assert all(isinstance(r, Timing) and r.recurrent_ms > 0 and r.attention_ms > 0 for r in rows)


def test_median_ms_calls_the_function_once_more_than_it_times():
    calls = []
    median_ms(lambda: calls.append(1), repeats=3)
    assert len(calls) == 4


def test_rnn_gradient_vanishes_with_distance_and_attention_gradient_does_not():
    recurrent, attention = gradient_reach(seq_len=64, d_model=32)
    assert len(recurrent) == len(attention) == 64
    assert recurrent[0] < 1e-6 * recurrent[-2]  # dozens of steps back: almost nothing arrives
    assert min(attention[:-1]) > 0.3 * max(attention[:-1])  # every earlier input is one step away


def test_the_recurrent_layer_by_hand_equals_nn_rnn_and_refuses_what_it_does_not_follow():
    torch.manual_seed(0)
    rnn = nn.RNN(4, 6, batch_first=True)
    x = torch.randn(3, 9, 4)
    assert torch.allclose(recurrent_by_hand(rnn, x), rnn(x)[0], atol=1e-6)
    with pytest.raises(ValueError, match="batch_first=True"):
        recurrent_by_hand(nn.RNN(4, 6), x)
