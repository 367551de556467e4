"""The measurements of the first chapter: timing rows and how far a gradient reaches."""

from tutorial_code.why_attention import Timing, gradient_reach, median_ms, time_layers


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
