"""The hand-written LayerNorm computes what nn.LayerNorm computes, learned scale and shift included."""

import pytest
import torch
from torch import nn

from tutorial_code.layer_norm import LayerNorm


@pytest.mark.parametrize("shape", [(2, 5, 16), (7, 16), (16,)])
def test_equals_nn_layer_norm_with_the_same_weights(shape):
    torch.manual_seed(0)
    reference = nn.LayerNorm(16)
    with torch.no_grad():  # weights other than the initial ones, so that scale and shift are tested too
        reference.weight.normal_()
        reference.bias.normal_()
    mine = LayerNorm(16)
    mine.load_state_dict(reference.state_dict())  # same parameter names
    x = 3 * torch.randn(*shape) + 2
    torch.testing.assert_close(mine(x), reference(x), atol=1e-6, rtol=1e-5)


def test_gradients_equal_nn_layer_norm():
    torch.manual_seed(1)
    reference, mine = nn.LayerNorm(8), LayerNorm(8)
    mine.load_state_dict(reference.state_dict())
    x = torch.randn(3, 4, 8)
    ours, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    (mine(ours) * torch.arange(8.0)).sum().backward()
    (reference(theirs) * torch.arange(8.0)).sum().backward()
    torch.testing.assert_close(ours.grad, theirs.grad, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(mine.weight.grad, reference.weight.grad)
    torch.testing.assert_close(mine.bias.grad, reference.bias.grad)


def test_eps_keeps_a_constant_vector_finite():
    norm = LayerNorm(4, eps=1e-5)
    out = norm(torch.full((1, 4), 3.0))
    assert torch.isfinite(out).all() and torch.equal(out, torch.zeros(1, 4))
    reference = nn.LayerNorm(4, eps=1e-3)
    mine = LayerNorm(4, eps=1e-3)
    x = torch.tensor([[0.0, 0.01, 0.02, 0.03]])  # variance close to eps: eps matters
    torch.testing.assert_close(mine(x), reference(x))


def test_a_wrong_width_says_what_to_change():
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., d_model=8\), got shape"):
        LayerNorm(8)(torch.randn(2, 3, 6))
