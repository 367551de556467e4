"""SwiGLU against its formula and against the ReLU feed-forward network at equal parameter count."""

import pytest
import torch
import torch.nn.functional as F

from tutorial_code.feed_forward import FeedForward
from tutorial_code.swiglu import SwiGLU, swiglu_hidden_size


def count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_computes_down_of_silu_gate_times_up():
    torch.manual_seed(0)
    ffn = SwiGLU(8, 12)
    x = torch.randn(2, 3, 8)
    gate, up, down = ffn.gate.weight, ffn.up.weight, ffn.down.weight
    expected = (F.silu(x @ gate.T) * (x @ up.T)) @ down.T
    torch.testing.assert_close(ffn(x), expected)


def test_silu_is_x_times_sigmoid_x_and_a_zero_gate_blocks_everything():
    x = torch.linspace(-4, 4, 9)
    torch.testing.assert_close(F.silu(x), x * torch.sigmoid(x))
    ffn = SwiGLU(4, 6)
    with torch.no_grad():
        ffn.gate.weight.zero_()  # silu(0) = 0: nothing passes
    assert torch.equal(ffn(torch.randn(3, 4)), torch.zeros(3, 4))


def test_has_three_matrices_and_no_bias():
    ffn = SwiGLU(8, 12)
    assert [name for name, _ in ffn.named_parameters()] == ["gate.weight", "up.weight", "down.weight"]
    assert count(ffn) == 3 * 8 * 12


@pytest.mark.parametrize(("d_model", "d_ff"), [(64, 256), (32, 128), (512, 2048), (48, 100)])
def test_the_hidden_size_matches_the_relu_network_parameter_count(d_model, d_ff):
    relu = count(FeedForward(d_model, d_ff))
    hidden = swiglu_hidden_size(d_model, d_ff)
    gap = abs(count(SwiGLU(d_model, hidden)) - relu)
    assert gap <= 3 * d_model / 2  # the nearest that whole hidden units allow
    assert gap <= min(abs(count(SwiGLU(d_model, h)) - relu) for h in (hidden - 1, hidden + 1))
    assert abs(hidden - 2 * d_ff / 3) <= 2  # about 2/3 of d_ff


def test_the_documented_example_and_bad_sizes():
    assert swiglu_hidden_size(64, 256) == 172
    assert count(FeedForward(64, 256)) == 33088 and count(SwiGLU(64, 172)) == 33024
    with pytest.raises(ValueError, match=r"d_ff must be >= 1, got 0"):
        swiglu_hidden_size(64, 0)


def test_a_wrong_width_says_what_to_change():
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., d_model=8\), got shape \(2, 6\)"):
        SwiGLU(8, 12)(torch.randn(2, 6))
