"""The hand-written RMSNorm computes what torch.nn.RMSNorm computes, learned scale included."""

import pytest
import torch
from torch import nn

from tutorial_code.layer_norm import LayerNorm
from tutorial_code.rms_norm import RMSNorm


@pytest.mark.parametrize("shape", [(2, 5, 16), (7, 16), (16,)])
def test_equals_torch_rms_norm_with_the_same_weight(shape, assert_matches_torch):
    torch.manual_seed(0)
    reference = nn.RMSNorm(16, eps=1e-6)
    with torch.no_grad():
        reference.weight.normal_()  # a scale other than the initial ones
    mine = RMSNorm(16)
    mine.load_state_dict(reference.state_dict())  # same parameter name
    x = 3 * torch.randn(*shape) + 2
    assert_matches_torch("nn.RMSNorm", mine(x), reference(x))


def test_keeps_the_mean_that_layer_norm_removes():
    x = torch.randn(4, 16) + 5.0  # a large shared offset
    assert LayerNorm(16)(x).mean(dim=-1).abs().max() < 1e-5
    assert RMSNorm(16)(x).mean(dim=-1).min() > 0.9  # the offset survives, rescaled
    torch.testing.assert_close(RMSNorm(16)(x).pow(2).mean(dim=-1), torch.ones(4), atol=1e-4, rtol=0)


def test_has_no_bias_and_one_weight_per_feature():
    assert [name for name, _ in RMSNorm(8).named_parameters()] == ["weight"]


def test_eps_keeps_a_zero_vector_finite():
    assert torch.equal(RMSNorm(4)(torch.zeros(2, 4)), torch.zeros(2, 4))


def test_a_wrong_width_says_what_to_change():
    with pytest.raises(ValueError, match=r"x must end with d_model=8 features, got 6"):
        RMSNorm(8)(torch.randn(2, 3, 6))
