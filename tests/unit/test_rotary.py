"""Rotary position embeddings: relative positions, norms, chapter 5's rotation, and the two pairings."""

import pytest
import torch

from tutorial_code.multi_head import split_heads
from tutorial_code.positional import shift_rotation, sinusoidal_table
from tutorial_code.rotary import apply_rotary, half_to_interleaved, interleaved_to_half, rotary_angles

PAIRINGS = ["half", "interleaved"]


def rotated(vector: torch.Tensor, position: int, pairing: str) -> torch.Tensor:
    """One vector (d,) rotated as if it stood at `position`."""
    return apply_rotary(vector[None], offset=position, pairing=pairing)[0]


def test_the_angles_are_the_sinusoidal_table_frequencies():
    torch.testing.assert_close(rotary_angles(20, 8).sin(), sinusoidal_table(20, 8)[:, 0::2])
    torch.testing.assert_close(rotary_angles(5, 8, offset=15), rotary_angles(20, 8)[15:])


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_position_zero_is_not_rotated_and_norms_are_kept(pairing):
    x = torch.randn(2, 3, 10, 16)
    out = apply_rotary(x, pairing=pairing)
    assert torch.equal(out[..., 0, :], x[..., 0, :])
    assert not torch.allclose(out[..., 1:, :], x[..., 1:, :])
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize(("m", "n", "shift"), [(3, 1, 5), (0, 7, 20), (9, 9, 100), (2, 6, 1)])
def test_the_score_depends_on_the_positions_only_through_their_offset(pairing, m, n, shift):
    torch.manual_seed(0)
    q, k = torch.randn(2, 16)
    score = rotated(q, m, pairing) @ rotated(k, n, pairing)
    moved = rotated(q, m + shift, pairing) @ rotated(k, n + shift, pairing)
    torch.testing.assert_close(moved, score, atol=1e-4, rtol=1e-4)
    if m != n:  # another offset gives another score
        assert (rotated(q, m, pairing) @ rotated(k, m, pairing) - score).abs() > 1e-3
    other_q = torch.randn(16)  # the content of q still matters
    assert (rotated(other_q, m, pairing) @ rotated(k, n, pairing) - score).abs() > 1e-3


def test_interleaved_is_chapter_6s_rotation_applied_from_the_right():
    x = torch.randn(12, 8)  # (T, head_dim)
    out = apply_rotary(x, pairing="interleaved")
    for m in range(12):
        torch.testing.assert_close(out[m], x[m] @ shift_rotation(m, 8), atol=1e-5, rtol=1e-5)


def test_half_pairing_is_interleaved_on_permuted_features():
    x = torch.randn(2, 4, 7, 8)
    order = interleaved_to_half(torch.arange(8), head_dim=8)  # tensor([0, 2, 4, 6, 1, 3, 5, 7])
    assert order.tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    torch.testing.assert_close(apply_rotary(x[..., order]), apply_rotary(x, pairing="interleaved")[..., order])


def scores(x, W_Q, W_K, num_heads, pairing):
    Q = apply_rotary(split_heads(x @ W_Q.T, num_heads), pairing=pairing)  # (B, h, T, d_k)
    K = apply_rotary(split_heads(x @ W_K.T, num_heads), pairing=pairing)
    return Q @ K.transpose(-2, -1)  # (B, h, T, T)


def test_weights_moved_between_pairings_need_the_permutation():
    torch.manual_seed(0)
    num_heads, head_dim, d_model = 4, 8, 32
    x = torch.randn(2, 9, d_model)
    W_Q, W_K = torch.randn(2, num_heads * head_dim, d_model) / d_model**0.5
    interleaved = scores(x, W_Q, W_K, num_heads, "interleaved")  # trained with interleaved pairs
    ported = scores(x, interleaved_to_half(W_Q, head_dim), interleaved_to_half(W_K, head_dim), num_heads, "half")
    torch.testing.assert_close(ported, interleaved, atol=1e-4, rtol=1e-4)
    forgotten = scores(x, W_Q, W_K, num_heads, "half")  # the porting bug: same weights, other pairing
    assert (forgotten - interleaved).abs().max() > 0.1
    torch.testing.assert_close(forgotten[..., 0, 0], interleaved[..., 0, 0])  # position 0 hides it


def test_the_permutation_moves_biases_and_has_an_inverse():
    W = torch.randn(3 * 6, 5)
    assert torch.equal(half_to_interleaved(interleaved_to_half(W, 6), 6), W)
    assert torch.equal(interleaved_to_half(half_to_interleaved(W, 6), 6), W)
    b = torch.arange(12.0)
    assert interleaved_to_half(b, 6).tolist() == [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11]


def test_bad_input_says_what_to_change():
    with pytest.raises(ValueError, match=r"pairing must be 'half' or 'interleaved', got 'paired'"):
        apply_rotary(torch.randn(3, 4), pairing="paired")
    with pytest.raises(ValueError, match=r"head_dim must be even \(RoPE turns pairs\), got 5"):
        apply_rotary(torch.randn(3, 5))
    with pytest.raises(ValueError, match=r"must have shape \(\.\.\., T, head_dim\)"):
        apply_rotary(torch.randn(4))
    with pytest.raises(ValueError, match=r"head_dim must be even and divide the projection's 10 output features"):
        interleaved_to_half(torch.randn(10, 4), head_dim=4)
