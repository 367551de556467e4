"""Grouped-query attention: multi-head attention when every head has its own K/V, PyTorch's GQA otherwise."""

import pytest
import torch
import torch.nn.functional as F

from tutorial_code.grouped_query import GroupedQueryAttention, KVCache, grouped_attention
from tutorial_code.masks import causal_mask
from tutorial_code.multi_head import MultiHeadAttention, combine_heads, split_heads
from tutorial_code.rotary import apply_rotary, interleaved_to_half

B, T, D = 2, 7, 32


@pytest.fixture
def x():
    return torch.randn(B, T, D, generator=torch.Generator().manual_seed(0))


def attention(num_heads=4, num_kv_heads=2, **options) -> GroupedQueryAttention:
    torch.manual_seed(0)
    return GroupedQueryAttention(D, num_heads, num_kv_heads, **options).eval()


def reference(module: GroupedQueryAttention, x: torch.Tensor, rotate_values: bool = False) -> torch.Tensor:
    """The same attention through PyTorch's fused kernel with its own grouped-query option."""
    Q = apply_rotary(split_heads(module.W_Q(x), module.num_heads))
    K = apply_rotary(split_heads(module.W_K(x), module.num_kv_heads))
    V = split_heads(module.W_V(x), module.num_kv_heads)
    V = apply_rotary(V) if rotate_values else V
    heads = F.scaled_dot_product_attention(Q, K, V, is_causal=True, enable_gqa=True)
    return module.W_O(combine_heads(heads))


def test_with_every_head_its_own_keys_and_no_rotation_it_is_multi_head_attention(x, assert_matches_torch):
    ours = attention(4, 4, rope_base=None, bias=True)
    theirs = MultiHeadAttention(D, 4, bias=True).eval()
    theirs.load_state_dict(ours.state_dict())  # the same parameter names
    expected, _ = theirs(x, mask=causal_mask(T))
    assert_matches_torch("MultiHeadAttention (grouped-query, h_kv = h)", ours(x), expected)


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
def test_equals_torch_scaled_dot_product_attention_with_grouped_keys(x, num_kv_heads, assert_matches_torch):
    ours = attention(4, num_kv_heads)
    assert_matches_torch("F.scaled_dot_product_attention(enable_gqa=True)", ours(x), reference(ours, x))


@pytest.mark.parametrize("num_kv_heads", [1, 2, 4])
def test_grouped_attention_equals_torch_with_enable_gqa(num_kv_heads, assert_matches_torch):
    Q = torch.randn(2, 4, 5, 8)
    K, V = torch.randn(2, 2, num_kv_heads, 6, 8)
    mask = torch.rand(2, 1, 5, 6) > 0.3
    mask[..., 0] = True  # every query sees at least one key
    output, weights = grouped_attention(Q, K, V, mask)
    expected = F.scaled_dot_product_attention(Q, K, V, mask, enable_gqa=True)
    assert_matches_torch("F.scaled_dot_product_attention(enable_gqa=True)", output, expected)
    group = 4 // num_kv_heads  # heads of one group give equal weights where their queries are equal
    same = grouped_attention(Q[:, :1].expand(2, group, 5, 8), K[:, :1], V[:, :1])[1]
    assert torch.allclose(same[:, 0], same[:, -1])
    with pytest.raises(ValueError, match=r"need h_kv dividing h, got shapes \(2, 4, 5, 8\) and \(2, 3, 6, 8\)"):
        grouped_attention(Q, torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8))


def test_values_are_not_rotated(x):
    ours = attention()
    assert (ours(x) - reference(ours, x, rotate_values=True)).abs().max() > 1e-3


def test_fewer_key_value_heads_mean_smaller_projections():
    for num_kv_heads in (4, 2, 1):
        module = attention(4, num_kv_heads)
        assert module.W_K.weight.shape == module.W_V.weight.shape == (num_kv_heads * 8, D)
        assert module.W_Q.weight.shape == (32, D) and module.W_O.weight.shape == (D, 32)


@pytest.mark.parametrize("rope_base", [10000.0, None])
def test_step_by_step_with_a_cache_equals_the_full_forward(x, rope_base, assert_matches_torch):
    ours = attention(4, 2, rope_base=rope_base)
    cache = KVCache()
    prompt = ours(x[:, :3], cache=cache)  # three positions at once, then one at a time
    steps = [ours(x[:, t : t + 1], cache=cache) for t in range(3, T)]
    assert cache.length == T
    assert_matches_torch("grouped-query attention, cached", torch.cat([prompt, *steps], dim=1), ours(x))


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
def test_the_cache_holds_two_floats_per_key_value_head_position_and_feature(x, num_kv_heads):
    cache = KVCache()
    attention(4, num_kv_heads)(x, cache=cache)
    assert cache.keys.shape == cache.values.shape == (B, num_kv_heads, T, 8)
    assert cache.nbytes == 2 * B * num_kv_heads * T * 8 * 4  # float32


def test_a_padded_sequence_gives_at_its_real_positions_what_it_gives_alone(x):
    ours = attention()
    keep = torch.ones(B, T, dtype=torch.bool)
    keep[1, 4:] = False  # the second sequence has 4 real tokens, then padding
    padded = ours(x, padding_mask=keep)
    torch.testing.assert_close(padded[1, :4], ours(x[1:, :4])[0], atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(padded[0], ours(x[:1])[0], atol=1e-6, rtol=1e-5)


def test_head_dim_can_differ_from_d_model_over_heads(x):
    module = GroupedQueryAttention(D, 4, 2, head_dim=6)
    assert module(x).shape == (B, T, D) and module.W_Q.weight.shape == (24, D)


def test_bad_settings_and_masks_say_what_to_change(x):
    with pytest.raises(ValueError, match=r"num_kv_heads=3 must divide num_heads=4"):
        GroupedQueryAttention(D, 4, 3)
    with pytest.raises(ValueError, match=r"d_model=30 is not divisible by num_heads=4; give head_dim"):
        GroupedQueryAttention(30, 4)
    with pytest.raises(ValueError, match=r"rope_pairing must be 'half' or 'interleaved'"):
        GroupedQueryAttention(D, 4, rope_pairing="paired")
    boolean = r"padding_mask must be boolean \(True = a real token\).*attention_mask.bool\(\)"
    with pytest.raises(TypeError, match=boolean):
        attention()(x, padding_mask=torch.ones(B, T, dtype=torch.long))
    with pytest.raises(ValueError, match=r"padding_mask must have shape \(B, 7\)"):
        attention()(x, padding_mask=torch.ones(B, 5, dtype=torch.bool))


def test_a_model_moved_between_pairings_needs_its_query_and_key_weights_permuted(x):
    interleaved = attention(rope_pairing="interleaved")
    half = attention(rope_pairing="half")
    half.load_state_dict(interleaved.state_dict())  # the porting bug: copied as they are
    assert (half(x) - interleaved(x)).abs().max() > 1e-3
    state = interleaved.state_dict()
    for name in ("W_Q.weight", "W_K.weight"):
        state[name] = interleaved_to_half(state[name], head_dim=8)
    half.load_state_dict(state)
    torch.testing.assert_close(half(x), interleaved(x), atol=1e-5, rtol=1e-5)
