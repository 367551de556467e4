"""Mask helpers: the True = may attend convention and its conversion for nn.MultiheadAttention."""

import pytest
import torch

from tutorial_code.masks import (
    causal_mask,
    merge_masks,
    padding_mask,
    padding_mask_from_tokens,
    to_torch_multihead_mask,
)


def test_padding_mask_from_lengths():
    mask = padding_mask(torch.tensor([2, 0, 3]), max_len=3)
    assert mask.shape == (3, 1, 1, 3)
    assert mask[:, 0, 0].tolist() == [[True, True, False], [False, False, False], [True, True, True]]


def test_padding_mask_defaults_to_longest():
    assert padding_mask(torch.tensor([1, 4])).shape == (2, 1, 1, 4)


def test_padding_mask_from_tokens_matches_lengths():
    tokens = torch.tensor([[4, 5, 0, 0], [7, 7, 7, 0]])
    assert torch.equal(padding_mask_from_tokens(tokens), padding_mask(torch.tensor([2, 3]), max_len=4))


def test_causal_mask_keeps_diagonal_and_blocks_future():
    mask = causal_mask(4)
    for t in range(4):
        for s in range(4):
            assert mask[t, s].item() == (s <= t)


def test_merge_masks_keeps_a_lone_mask_and_combines_the_padding():
    x = torch.zeros(2, 3, 8)  # (B, T, d_model)
    keep = torch.tensor([[True, True, True], [True, False, False]])  # (B, T), True = a real token
    assert merge_masks(None, None, x, x) is None
    causal = causal_mask(3)
    assert merge_masks(causal, None, x, x) is causal
    assert torch.equal(merge_masks(None, keep, x, x), keep[:, None, None, :])
    assert torch.equal(merge_masks(causal, keep, x, x), causal & keep[:, None, None, :])
    bias = torch.arange(9.0).view(3, 3)  # a float mask: added to the scores
    merged = merge_masks(bias, keep, x, x)  # (B, 1, T, T): -inf at the padding, the bias elsewhere
    assert merged.shape == (2, 1, 3, 3) and torch.equal(merged[0, 0], bias)
    assert torch.isneginf(merged[1, 0, :, 1:]).all() and torch.equal(merged[1, 0, :, 0], bias[:, 0])


def test_conversion_for_torch_multihead_flips():
    mask = causal_mask(3)
    assert torch.equal(to_torch_multihead_mask(mask), ~mask)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: padding_mask(torch.tensor([1.0, 2.0])), TypeError, "integer tensor of shape"),
        (lambda: padding_mask(torch.tensor([[1, 2]])), ValueError, r"lengths must have shape \(B,\)"),
        (lambda: padding_mask(torch.tensor([-1, 2])), ValueError, "must be >= 0"),
        (lambda: padding_mask(torch.tensor([5]), max_len=3), ValueError, "exceeds max_len=3"),
        (lambda: padding_mask_from_tokens(torch.tensor([1, 2, 0])), ValueError, r"tokens must have shape \(B, T\)"),
        (lambda: causal_mask(0), ValueError, "seq_len must be >= 1"),
        (lambda: to_torch_multihead_mask(torch.ones(2, 2)), TypeError, "must be a boolean tensor"),
    ],
)
def test_bad_input_is_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()
