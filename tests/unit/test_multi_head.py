"""MultiHeadAttention and its fused variant against nn.MultiheadAttention."""

import pytest
import torch
from torch import nn

from tutorial_code.from_torch import multi_head_attention_from_torch
from tutorial_code.masks import causal_mask, padding_mask, to_torch_multihead_mask
from tutorial_code.multi_head import EfficientMultiHeadAttention, MultiHeadAttention, combine_heads, split_heads

B, T, D, H = 3, 6, 32, 4


@pytest.fixture
def x():
    return torch.randn(B, T, D, generator=torch.Generator().manual_seed(0))


def torch_attention(bias: bool = True) -> nn.MultiheadAttention:
    torch.manual_seed(0)
    return nn.MultiheadAttention(D, H, bias=bias, batch_first=True).eval()


@pytest.mark.parametrize("bias", [True, False])
def test_matches_torch_self_attention(x, bias, assert_matches_torch):
    theirs = torch_attention(bias)
    ours = multi_head_attention_from_torch(theirs)
    output, weights = ours(x)
    expected, expected_weights = theirs(x, x, x, average_attn_weights=False)
    assert_matches_torch("nn.MultiheadAttention", output, expected)
    assert_matches_torch("nn.MultiheadAttention", weights, expected_weights)


def test_matches_torch_with_key_padding_mask(x, assert_matches_torch):
    theirs = torch_attention()
    ours = multi_head_attention_from_torch(theirs)
    mask = padding_mask(torch.tensor([6, 3, 1]), max_len=T)  # (B, 1, 1, T), True = attend
    key_padding_mask = to_torch_multihead_mask(mask[:, 0, 0])  # (B, T), True = blocked
    output, _ = ours(x, mask=mask)
    expected, _ = theirs(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)
    assert_matches_torch("nn.MultiheadAttention", output, expected)


def test_matches_torch_with_attn_mask(x, assert_matches_torch):
    theirs = torch_attention()
    ours = multi_head_attention_from_torch(theirs)
    mask = causal_mask(T)
    output, _ = ours(x, mask=mask)
    expected, _ = theirs(x, x, x, attn_mask=to_torch_multihead_mask(mask), need_weights=False)
    assert_matches_torch("nn.MultiheadAttention", output, expected)


def test_matches_torch_cross_attention(assert_matches_torch):
    theirs = torch_attention()
    ours = multi_head_attention_from_torch(theirs)
    g = torch.Generator().manual_seed(1)
    query, memory = torch.randn(2, 3, D, generator=g), torch.randn(2, 7, D, generator=g)
    output, weights = ours(query, memory, memory)
    assert weights.shape == (2, H, 3, 7)
    assert_matches_torch("nn.MultiheadAttention", output, theirs(query, memory, memory)[0])


@pytest.mark.parametrize("mask", [None, causal_mask(T), padding_mask(torch.tensor([6, 2, 4]), max_len=T)])
def test_efficient_variant_gives_the_same_results(x, mask, assert_matches_torch):
    torch.manual_seed(0)
    ours = MultiHeadAttention(D, H).eval()
    efficient = EfficientMultiHeadAttention(D, H).eval()
    efficient.load_state_dict(ours.state_dict())
    output, weights = efficient(x, mask=mask)
    assert weights is None
    assert_matches_torch("F.scaled_dot_product_attention", output, ours(x, mask=mask)[0])


def test_split_and_combine_are_inverse(x):
    heads = split_heads(x, H)
    assert heads.shape == (B, H, T, D // H)
    # head i holds features i*d_k .. (i+1)*d_k of every token
    assert torch.equal(heads[:, 1], x[:, :, D // H : 2 * D // H])
    assert torch.equal(combine_heads(heads), x)


def test_parameter_count_matches_torch():
    ours, theirs = MultiHeadAttention(512, 8), nn.MultiheadAttention(512, 8)
    count = sum(p.numel() for p in ours.parameters())
    assert count == sum(p.numel() for p in theirs.parameters()) == 4 * (512 * 512 + 512)


def test_w_o_mixes_heads():
    """Before W_O each feature comes from one head; after it, from all of them."""
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2).eval()
    seen = {}
    attention.W_O.register_forward_hook(lambda module, inputs, output: seen.update(concat=inputs[0]))
    output, _ = attention(torch.randn(1, 4, 8))
    # Feature 0 of the concatenation belongs to head 0: rows 0-3 of W_V feed it, rows 4-7 do not.
    grad = torch.autograd.grad(seen["concat"][0, 0, 0], attention.W_V.weight, retain_graph=True)[0]
    assert grad[:4].abs().max() > 0 and grad[4:].abs().max() == 0
    # Feature 0 of the output, after W_O, draws on both heads.
    grad = torch.autograd.grad(output[0, 0, 0], attention.W_V.weight)[0]
    assert grad[:4].abs().max() > 0 and grad[4:].abs().max() > 0


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: MultiHeadAttention(30, 4), ValueError, "d_model=30 must be divisible by num_heads=4"),
        (
            lambda: MultiHeadAttention(D, H)(torch.randn(B, T, 16)),
            ValueError,
            r"query must have shape \(B, T, d_model=32\)",
        ),
        (lambda: MultiHeadAttention(D, H)(torch.randn(T, D)), ValueError, r"got shape \(6, 32\)"),
        (
            lambda: MultiHeadAttention(D, H)(torch.randn(B, T, D), mask=torch.ones(B, T, dtype=torch.bool)),
            ValueError,
            r"mask of shape \(3, 6\) cannot broadcast to the attention scores of shape \(3, 4, 6, 6\)",
        ),
        (
            lambda: EfficientMultiHeadAttention(D, H)(torch.randn(B, T, D), mask=torch.ones(B, T, dtype=torch.bool)),
            ValueError,
            "cannot broadcast",
        ),
        (
            lambda: MultiHeadAttention(D, H)(torch.randn(B, T, D), mask=torch.ones(T, T, dtype=torch.int64)),
            TypeError,
            "got dtype torch.int64",
        ),
    ],
)
def test_bad_input_is_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()
