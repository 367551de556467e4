"""Residual connections and LayerNorm keep gradients alive in a deep stack."""

import torch

from tutorial_code.residual import Block, gradient_norm_per_layer


def test_block_variants_compute_what_they_say():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8)
    block = Block(8, residual=True, norm=False)
    torch.testing.assert_close(block(x), x + block.feed_forward(x))
    plain = Block(8, residual=False, norm=False)
    torch.testing.assert_close(plain(x), plain.feed_forward(x))


def test_without_residual_and_norm_the_first_layers_get_no_gradient():
    both = gradient_norm_per_layer(num_layers=32, residual=True, norm=True)
    neither = gradient_norm_per_layer(num_layers=32, residual=False, norm=False)
    assert 0.5 < both[0] / both[-1] < 2  # even across depth
    assert neither[0] < 1e-10 * neither[-1]  # vanished
