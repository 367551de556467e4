"""Local attention: the band and dilated masks, what stacked layers reach, the blocked computation against
full attention under the band mask, and the sliding-window cache against full attention, step by step."""

import pytest
import torch
import torch.nn.functional as F

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.local_attention import (
    SlidingWindowCache,
    band_mask,
    blocked_local_attention,
    blocked_scores,
    dilated_mask,
    neighbour_blocks,
    reachable,
    sliding_window_step,
)
from tutorial_code.masks import causal_mask

SHAPES = [(), (1,), (2, 3)]  # leading axes: none, (B,), (B, h)


def qkv(shape, T, d_k=4, d_v=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(*shape, T, d_k, generator=g) for _ in range(2))
    return q, k, torch.randn(*shape, T, d_v, generator=g)


@pytest.mark.parametrize("causal", [True, False])
def test_band_mask_follows_its_definition(causal):
    T, w = 9, 3
    mask = band_mask(T, w, causal=causal)
    for t in range(T):
        for s in range(T):
            inside = 0 <= t - s < w if causal else abs(t - s) < w
            assert mask[t, s].item() == inside
    assert mask.dtype == torch.bool and mask.shape == (T, T)
    assert mask.diagonal().all(), "a query may always attend to itself"


def test_band_mask_keys_per_query():
    mask = band_mask(20, 4)
    assert mask.sum(dim=-1).tolist() == [1, 2, 3] + [4] * 17  # the first queries have fewer keys before them
    assert band_mask(20, 4, causal=False)[10].sum() == 7  # 2w - 1, centred


@pytest.mark.parametrize("T", [1, 5, 8])
def test_a_window_that_covers_the_sequence_is_the_causal_mask_or_no_mask(T):
    assert torch.equal(band_mask(T, T), causal_mask(T))
    assert torch.equal(band_mask(T, T + 3), causal_mask(T))
    assert band_mask(T, T, causal=False).all()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("T", [1, 6, 11])
def test_masked_attention_with_a_window_of_T_equals_causal_and_unmasked_attention(shape, T):
    q, k, v = qkv(shape, T)
    causal, _ = scaled_dot_product_attention(q, k, v, causal_mask(T))
    banded, _ = scaled_dot_product_attention(q, k, v, band_mask(T, T))
    assert torch.equal(banded, causal)
    unmasked, _ = scaled_dot_product_attention(q, k, v)
    both_sides, _ = scaled_dot_product_attention(q, k, v, band_mask(T, T, causal=False))
    assert torch.equal(both_sides, unmasked)
    reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(banded, reference, atol=1e-6, rtol=0)


def test_a_window_below_T_changes_the_output():
    q, k, v = qkv((2,), 10)
    full, _ = scaled_dot_product_attention(q, k, v, causal_mask(10))
    local, _ = scaled_dot_product_attention(q, k, v, band_mask(10, 3))
    assert torch.equal(local[..., :3, :], full[..., :3, :])  # the first 3 queries see everything they may
    assert (local[..., 3:, :] - full[..., 3:, :]).abs().max() > 1e-3


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("T", "window"), [(1, 1), (1, 4), (7, 1), (8, 2), (9, 2), (12, 4), (13, 4), (10, 16), (33, 5)])
def test_blocked_local_attention_equals_full_attention_under_the_band_mask(causal, shape, T, window):
    q, k, v = qkv(shape, T, seed=T * 31 + window)
    expected, _ = scaled_dot_product_attention(q, k, v, band_mask(T, window, causal=causal))
    got = blocked_local_attention(q, k, v, window, causal=causal)
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected, atol=1e-6, rtol=0)
    pytorch = F.scaled_dot_product_attention(q, k, v, attn_mask=band_mask(T, window, causal=causal))
    torch.testing.assert_close(got, pytorch, atol=1e-6, rtol=0)


def test_blocked_attention_keeps_float64():
    q, k, v = (x.double() for x in qkv((2,), 10))
    got = blocked_local_attention(q, k, v, 3)
    expected, _ = scaled_dot_product_attention(q, k, v, band_mask(10, 3))
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("causal", [True, False])
def test_blocked_scores_are_the_band_entries_of_the_full_scores(causal):
    T, w = 10, 3
    q, k, _ = qkv((2,), T)
    scores, allowed = blocked_scores(q, k, w, causal=causal)
    blocks, keys = -(-T // w), (2 if causal else 3) * w
    assert scores.shape == (2, blocks, w, keys) and allowed.shape == (blocks, w, keys)
    full = q @ k.transpose(-2, -1) / 2.0  # sqrt(d_k = 4)
    band = band_mask(T, w, causal=causal)
    real = allowed.flatten(0, 1)[:T]  # the rows of the real queries (the last block is padded)
    assert real.sum() == band.sum(), "each entry of the band is computed exactly once"
    for i in range(blocks):
        for a in range(w):
            t = i * w + a
            for b in range(keys):
                s = (i - 1) * w + b
                if t < T and allowed[i, a, b]:
                    assert band[t, s]
                    torch.testing.assert_close(scores[:, i, a, b], full[:, t, s])


def test_blocked_scores_count_about_two_windows_per_query():
    q, k, _ = qkv((), 256)
    scores, _ = blocked_scores(q, k, 32)
    assert scores.numel() == 2 * 32 * 256  # against 256 * 256 for the masked version


def test_neighbour_blocks_puts_the_block_before_beside_each_block():
    x = torch.arange(1.0, 6.0)[:, None]  # positions 1..5, T = 5: blocks [1, 2], [3, 4], [5, pad]
    assert neighbour_blocks(x, 2, after=0)[..., 0].tolist() == [[0, 0, 1, 2], [1, 2, 3, 4], [3, 4, 5, 0]]
    assert neighbour_blocks(x, 2, after=1)[..., 0].tolist() == [
        [0, 0, 1, 2, 3, 4],
        [1, 2, 3, 4, 5, 0],
        [3, 4, 5, 0, 0, 0],
    ]


def test_dilated_mask_with_dilation_one_is_the_band():
    for causal in (True, False):
        assert torch.equal(dilated_mask(11, 3, 1, causal=causal), band_mask(11, 3, causal=causal))


@pytest.mark.parametrize("causal", [True, False])
def test_dilated_mask_keeps_window_keys_on_a_grid(causal):
    T, w, r = 20, 3, 4
    mask = dilated_mask(T, w, r, causal=causal)
    for t in range(T):
        keys = mask[t].nonzero().flatten().tolist()
        offsets = range(0, w) if causal else range(-w + 1, w)
        assert keys == sorted(t - i * r for i in offsets if 0 <= t - i * r < T)
        assert all((t - s) % r == 0 for s in keys)
    assert mask.diagonal().all()
    assert mask[T - 1].sum() == w  # a late query sees exactly w keys, spanning (w - 1) * r + 1 positions
    assert torch.equal(mask, mask.T) != causal  # the two-sided one is symmetric


def test_reachable_grows_by_window_minus_one_per_layer_for_the_causal_band():
    T, w = 40, 5
    mask = band_mask(T, w)
    for layers in range(1, 6):
        reach = reachable(mask, layers)
        span = layers * (w - 1) + 1
        assert torch.equal(reach, band_mask(T, span)), layers
        assert reach[T - 1].sum() == span


def test_reachable_is_the_boolean_matrix_power():
    mask = dilated_mask(12, 2, 3) | band_mask(12, 2)
    power = torch.linalg.matrix_power(mask.double(), 3) > 0
    assert torch.equal(reachable(mask, 3), power)
    assert torch.equal(reachable(mask, 1), mask)


def test_stacked_dilated_layers_reach_only_their_grid():
    reach = reachable(dilated_mask(30, 3, 4), layers=3)
    keys = reach[29].nonzero().flatten()
    assert ((29 - keys) % 4 == 0).all() and len(keys) == 7  # 29, 25, ..., 5: three layers of 2 steps back


@pytest.mark.parametrize("shape", [(1, 1), (2, 3)])
@pytest.mark.parametrize(("T", "window"), [(12, 4), (9, 1), (7, 10)])
def test_the_sliding_window_cache_gives_full_attentions_rows_step_by_step(shape, T, window):
    q, k, v = qkv(shape, T, seed=window)
    full, _ = scaled_dot_product_attention(q, k, v, band_mask(T, window))
    cache = SlidingWindowCache(window)
    for t in range(T):
        step = slice(t, t + 1)
        out = sliding_window_step(q[..., step, :], k[..., step, :], v[..., step, :], cache)
        torch.testing.assert_close(out, full[..., step, :], atol=1e-6, rtol=0)
        assert cache.keys.size(-2) == min(t + 1, window) == cache.values.size(-2)
        assert cache.length == t + 1
        torch.testing.assert_close(cache.keys, k[..., max(0, t + 1 - window) : t + 1, :], atol=0, rtol=0)


def test_the_sliding_window_cache_takes_several_positions_at_once():
    T, window = 13, 4
    q, k, v = qkv((2, 2), T)
    full, _ = scaled_dot_product_attention(q, k, v, band_mask(T, window))
    cache, start, outputs = SlidingWindowCache(window), 0, []
    for n in (5, 1, 3, 1, 1, 2):
        part = slice(start, start + n)
        outputs.append(sliding_window_step(q[..., part, :], k[..., part, :], v[..., part, :], cache))
        start += n
        assert cache.keys.size(-2) == min(start, window)
    torch.testing.assert_close(torch.cat(outputs, dim=-2), full, atol=1e-6, rtol=0)


def test_append_returns_what_the_new_queries_need_and_keeps_the_last_window():
    cache = SlidingWindowCache(3)
    first = torch.arange(2.0).view(1, 1, 2, 1)
    keys, values = cache.append(first, first)
    assert keys.flatten().tolist() == [0, 1] and cache.keys.flatten().tolist() == [0, 1]
    keys, _ = cache.append(torch.arange(2.0, 6.0).view(1, 1, 4, 1), torch.zeros(1, 1, 4, 1))
    assert keys.flatten().tolist() == [0, 1, 2, 3, 4, 5]
    assert cache.keys.flatten().tolist() == [3, 4, 5] and cache.length == 6


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: band_mask(5, 0), ValueError, "window must be >= 1, got 0"),
        (lambda: band_mask(5, -2, causal=False), ValueError, "window must be >= 1"),
        (lambda: band_mask(0, 2), ValueError, "length must be >= 1"),
        (lambda: band_mask(5, 2.5), TypeError, r"window must be an int, got 2.5 \(float\)"),
        (lambda: band_mask(5, 2.0), TypeError, "window must be an int"),
        (lambda: band_mask(5.0, 2), TypeError, "length must be an int"),
        (lambda: band_mask(5, True), TypeError, "window must be an int"),
        (lambda: dilated_mask(5, 2, 0), ValueError, "dilation must be >= 1, got 0"),
        (lambda: dilated_mask(5, 0, 2), ValueError, "window must be >= 1"),
        (lambda: dilated_mask(5, 2, 1.5), TypeError, "dilation must be an int"),
        (lambda: reachable(band_mask(4, 2), 0), ValueError, "layers must be >= 1"),
        (lambda: reachable(band_mask(4, 2).int(), 2), TypeError, "boolean tensor"),
        (lambda: reachable(torch.ones(3, 4, dtype=torch.bool), 2), ValueError, r"\(T, T\)"),
        (lambda: blocked_local_attention(*qkv((), 6), 0), ValueError, "window must be >= 1"),
        (lambda: blocked_local_attention(*qkv((), 6), 2.0), TypeError, "window must be an int"),
        (lambda: blocked_local_attention(*qkv((), 6)[:2], torch.zeros(5, 3), 2), ValueError, "one value per key"),
        (lambda: blocked_local_attention(torch.zeros(6, 4), torch.zeros(5, 4), torch.zeros(5, 3), 2), ValueError,
         "of one shape"),
        (lambda: blocked_local_attention(*(x.long() for x in qkv((), 6)), 2), TypeError, "floating"),
        (lambda: SlidingWindowCache(0), ValueError, "window must be >= 1"),
        (lambda: SlidingWindowCache(3.0), TypeError, "window must be an int"),
        (lambda: sliding_window_step(torch.zeros(1, 1, 2, 4), torch.zeros(1, 1, 1, 4), torch.zeros(1, 1, 1, 4),
                                     SlidingWindowCache(2)), ValueError, "same new positions"),
    ],
)  # fmt: skip
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
