"""scaled_dot_product_attention and SelfAttention against PyTorch's fused kernel."""

import math

import pytest
import torch
import torch.nn.functional as F

from tutorial_code.attention import SelfAttention, scaled_dot_product_attention
from tutorial_code.masks import causal_mask, padding_mask

ATOL = 1e-6


@pytest.fixture
def qkv():
    g = torch.Generator().manual_seed(0)
    B, h, T, d_k = 3, 4, 7, 16
    return tuple(torch.randn(B, h, T, d_k, generator=g) for _ in range(3))


def test_matches_torch_without_mask(qkv, assert_matches_torch):
    output, weights = scaled_dot_product_attention(*qkv)
    assert_matches_torch("F.scaled_dot_product_attention", output, F.scaled_dot_product_attention(*qkv), atol=ATOL)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 4, 7))


def test_matches_torch_with_boolean_padding_mask(qkv, assert_matches_torch):
    mask = padding_mask(torch.tensor([7, 4, 1]), max_len=7)  # (B, 1, 1, T)
    output, weights = scaled_dot_product_attention(*qkv, mask=mask)
    expected = F.scaled_dot_product_attention(*qkv, attn_mask=mask)
    assert_matches_torch("F.scaled_dot_product_attention", output, expected, atol=ATOL)
    assert weights[1, :, :, 4:].abs().max() == 0  # padded keys get exactly zero weight


def test_matches_torch_with_float_mask(qkv, assert_matches_torch):
    bias = torch.randn(7, 7, generator=torch.Generator().manual_seed(1))
    output, _ = scaled_dot_product_attention(*qkv, mask=bias)
    assert_matches_torch(
        "F.scaled_dot_product_attention", output, F.scaled_dot_product_attention(*qkv, attn_mask=bias), atol=ATOL
    )


def test_matches_torch_causal(qkv, assert_matches_torch):
    output, weights = scaled_dot_product_attention(*qkv, mask=causal_mask(7))
    assert_matches_torch(
        "F.scaled_dot_product_attention", output, F.scaled_dot_product_attention(*qkv, is_causal=True), atol=ATOL
    )
    assert torch.equal(weights.triu(diagonal=1), torch.zeros_like(weights))


def test_cross_attention_lengths_differ(assert_matches_torch):
    q, k, v = torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 3, 6) and weights.shape == (2, 3, 5)
    assert_matches_torch("F.scaled_dot_product_attention", output, F.scaled_dot_product_attention(q, k, v), atol=ATOL)


def test_fully_masked_row_gives_zeros_like_torch_and_finite_gradients(qkv, assert_matches_torch):
    q, k, v = (t.clone().requires_grad_() for t in qkv)
    mask = torch.ones(7, 7, dtype=torch.bool)
    mask[2] = False  # query 2 may attend to nothing
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert torch.isfinite(output).all() and torch.isfinite(weights).all()
    assert output[:, :, 2].abs().max() == 0 and weights[:, :, 2].abs().max() == 0
    assert_matches_torch(
        "F.scaled_dot_product_attention", output, F.scaled_dot_product_attention(*qkv, attn_mask=mask), atol=ATOL
    )
    output.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))


def test_fully_masked_row_with_float_minus_inf_mask_is_finite(qkv):
    q = qkv[0].clone().requires_grad_()
    bias = torch.zeros(7, 7)
    bias[0] = float("-inf")
    output, _ = scaled_dot_product_attention(q, qkv[1], qkv[2], mask=bias)
    output.sum().backward()
    assert torch.isfinite(output).all() and torch.isfinite(q.grad).all()


def test_scaling_keeps_score_spread_near_one():
    g = torch.Generator().manual_seed(0)
    for d_k in (16, 64, 256):
        q, k = torch.randn(20000, d_k, generator=g), torch.randn(20000, d_k, generator=g)
        raw = (q * k).sum(-1)
        assert raw.std().item() == pytest.approx(math.sqrt(d_k), rel=0.05)
        assert (raw / math.sqrt(d_k)).std().item() == pytest.approx(1.0, rel=0.05)


def test_self_attention_shapes_and_values(assert_matches_torch):
    torch.manual_seed(0)
    attention = SelfAttention(d_model=8, d_k=4)
    x = torch.randn(2, 5, 8)
    output, weights = attention(x)
    expected = F.scaled_dot_product_attention(attention.W_Q(x), attention.W_K(x), attention.W_V(x))
    assert_matches_torch("F.scaled_dot_product_attention", output, expected, atol=ATOL)
    assert weights.shape == (2, 5, 5)


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        (torch.ones(7, 7, dtype=torch.long), TypeError, "for a 0/1 mask use mask.bool()"),
        (torch.ones(7, 6, dtype=torch.bool), ValueError, "cannot broadcast to the attention scores"),
        (torch.ones(5, 1, 1, 7, dtype=torch.bool), ValueError, "padding mask should be (B, 1, 1, T)"),
    ],
)
def test_bad_mask_is_explained(qkv, mask, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        scaled_dot_product_attention(*qkv, mask=mask)


def test_mismatched_widths_are_explained():
    with pytest.raises(ValueError, match="same last dimension d_k"):
        scaled_dot_product_attention(torch.randn(1, 3, 8), torch.randn(1, 3, 4), torch.randn(1, 3, 4))
    with pytest.raises(ValueError, match="same number of positions T_k"):
        scaled_dot_product_attention(torch.randn(1, 3, 8), torch.randn(1, 3, 8), torch.randn(1, 4, 8))


def test_self_attention_wrong_width_is_explained():
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"):
        SelfAttention(d_model=8)(torch.randn(2, 5, 6))


def test_dropout_drops_weights_and_mixes_values_with_what_is_left(qkv):
    torch.manual_seed(0)
    output, weights = scaled_dot_product_attention(*qkv, dropout_p=0.5)
    assert (weights == 0).float().mean() > 0.3  # about half the weights dropped
    torch.testing.assert_close(output, weights @ qkv[2])  # the output uses the dropped weights
    plain, _ = scaled_dot_product_attention(*qkv)
    torch.testing.assert_close(scaled_dot_product_attention(*qkv, dropout_p=0.0)[0], plain)
