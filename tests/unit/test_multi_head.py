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
            r"a 2-D mask is read as \(T_q, T_k\) = \(6, 6\), got shape \(3, 6\); "
            r"a \(B, T_k\) padding mask goes in key_is_real",
        ),
        (
            lambda: EfficientMultiHeadAttention(D, H)(torch.randn(B, T, D), mask=torch.ones(B, T, dtype=torch.bool)),
            ValueError,
            "padding mask goes in key_is_real",
        ),
        (
            lambda: MultiHeadAttention(D, H)(torch.randn(B, T, D), mask=torch.ones(1, 1, 7, T, dtype=torch.bool)),
            ValueError,
            r"mask of shape \(1, 1, 7, 6\) cannot broadcast to the attention scores of shape \(3, 4, 6, 6\)",
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


# key_is_real: a (B, T_k) argument of its own, True = a real token (PyTorch's is True = padding).
LENGTHS = torch.tensor([6, 3, 1])


@pytest.mark.parametrize("kind", [MultiHeadAttention, EfficientMultiHeadAttention])
def test_key_padding_mask_equals_the_four_axis_padding_mask(x, kind):
    torch.manual_seed(0)
    attention = kind(D, H).eval()
    mask = padding_mask(LENGTHS, max_len=T)  # (B, 1, 1, T)
    torch.testing.assert_close(attention(x, key_is_real=mask[:, 0, 0])[0], attention(x, mask=mask)[0])
    # combined with a causal mask, the two are and-ed
    both = attention(x, mask=causal_mask(T), key_is_real=mask[:, 0, 0])[0]
    torch.testing.assert_close(both, attention(x, mask=causal_mask(T) & mask)[0])


@pytest.mark.parametrize("attn_mask", ["none", "causal", "float"])
def test_key_padding_mask_matches_torch(x, attn_mask, assert_matches_torch):
    theirs = torch_attention()
    ours = multi_head_attention_from_torch(theirs)
    keep = padding_mask(LENGTHS, max_len=T)[:, 0, 0]  # (B, T), True = real token
    mask = {
        "none": None,
        "causal": causal_mask(T),
        "float": torch.randn(T, T, generator=torch.Generator().manual_seed(3)),
    }[attn_mask]
    their_mask = to_torch_multihead_mask(mask) if attn_mask == "causal" else mask
    their_padding = to_torch_multihead_mask(keep)  # True = padding
    if attn_mask == "float":  # PyTorch wants both masks of one type: -inf at the padding
        their_padding = torch.zeros(B, T).masked_fill(their_padding, float("-inf"))
    output, weights = ours(x, mask=mask, key_is_real=keep)
    expected, expected_weights = theirs(
        x, x, x, attn_mask=their_mask, key_padding_mask=their_padding, average_attn_weights=False
    )
    assert_matches_torch("nn.MultiheadAttention", output, expected)
    assert_matches_torch("nn.MultiheadAttention", weights, expected_weights)


def test_key_padding_mask_in_cross_attention_matches_torch(assert_matches_torch):
    theirs = torch_attention()
    ours = multi_head_attention_from_torch(theirs)
    g = torch.Generator().manual_seed(2)
    query, memory = torch.randn(2, 3, D, generator=g), torch.randn(2, 7, D, generator=g)
    keep = padding_mask(torch.tensor([7, 4]), max_len=7)[:, 0, 0]
    output, _ = ours(query, memory, memory, key_is_real=keep)
    expected, _ = theirs(query, memory, memory, key_padding_mask=to_torch_multihead_mask(keep))
    assert_matches_torch("nn.MultiheadAttention", output, expected)


def test_a_square_batch_keeps_the_two_masks_apart():
    """B == T: a (B, T) padding mask passed as `mask` would read as (T_q, T_k); key_is_real cannot."""
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2).eval()
    x = torch.randn(3, 3, 8)
    keep = torch.tensor([[True, True, True], [True, False, False], [True, True, False]])
    padded, weights = attention(x, key_is_real=keep)
    assert weights[1, :, :, 1:].abs().max() == 0  # sequence 1: only its first key is seen, by every query
    assert weights[2, :, :, 2].abs().max() == 0
    _, misread = attention(x, mask=keep)  # the other reading: query 1 of every sequence sees key 0 only
    assert misread[0, :, 1, 1:].abs().max() == 0 and not torch.equal(misread, weights)
