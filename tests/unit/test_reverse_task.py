"""Beam search and sequence log-probabilities of the reversal model, on random weights (no training)."""

import itertools

import pytest
import torch
from torch import nn

from tutorial_code.reverse_task import (
    Seq2SeqModel,
    beam_search,
    greedy_decode,
    reversal_batch,
    sequence_log_prob,
    shift_right,
)


@pytest.fixture
def model() -> Seq2SeqModel:
    torch.manual_seed(0)
    return Seq2SeqModel().eval()


@pytest.fixture
def source() -> torch.Tensor:
    return reversal_batch(64, 8, torch.Generator().manual_seed(1))[0]


def test_beam_width_1_is_greedy_decoding(model, source):
    assert torch.equal(beam_search(model, source, 8, beam_width=1), greedy_decode(model, source, 8))


def test_sequence_log_prob_equals_the_cross_entropy_of_the_sequence(model, source):
    written = greedy_decode(model, source, 8)
    logits, _ = model(source, shift_right(written))
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), written.flatten(), reduction="none")
    expected = -loss.view(written.shape).sum(dim=1)
    torch.testing.assert_close(sequence_log_prob(model, source, written), expected)


@pytest.mark.parametrize("beam_width", [2, 3, 4, 11])
def test_a_wider_beam_is_never_below_greedy_on_two_tokens(model, source, beam_width):
    # On two tokens the guarantee holds: greedy's first token is the likeliest, so it stays in the beam,
    # and its best continuation is among the candidates of the last step.
    greedy = sequence_log_prob(model, source, greedy_decode(model, source, 2))
    beam = sequence_log_prob(model, source, beam_search(model, source, 2, beam_width))
    assert (beam >= greedy - 1e-5).all()


@pytest.mark.parametrize("beam_width", [2, 4])
def test_a_wider_beam_is_not_below_greedy_on_this_random_model(model, source, beam_width):
    greedy = sequence_log_prob(model, source, greedy_decode(model, source, 8))
    beam = sequence_log_prob(model, source, beam_search(model, source, 8, beam_width))
    assert (beam >= greedy - 1e-5).all()
    assert (beam > greedy + 1e-5).sum() >= 8


def test_a_beam_can_end_below_greedy_because_it_is_not_exhaustive(model):
    # Not a theorem for more than two tokens: greedy's draft can be dropped at one step and have had the
    # best continuation. On 512 sources this random model shows it for a few, and the beam wins on average.
    source = reversal_batch(512, 8, torch.Generator().manual_seed(1234))[0]
    greedy = sequence_log_prob(model, source, greedy_decode(model, source, 8))
    beam = sequence_log_prob(model, source, beam_search(model, source, 8, beam_width=2))
    assert 0 < (beam < greedy - 1e-5).sum() < (beam > greedy + 1e-5).sum()
    assert beam.mean() > greedy.mean()


def test_a_beam_as_wide_as_every_draft_finds_the_likeliest_sequence(model, source):
    source = source[:4]
    every = torch.tensor(list(itertools.product(range(11), repeat=3)))  # all 11**3 sequences of 3 tokens
    best = torch.stack([sequence_log_prob(model, s.expand(len(every), -1), every).max() for s in source])
    found = beam_search(model, source, 3, beam_width=11 * 11)  # keeps every draft of 2 tokens
    torch.testing.assert_close(sequence_log_prob(model, source, found), best)


def test_beam_search_returns_the_greedy_shape_and_accepts_length_zero(model, source):
    assert beam_search(model, source, 5, 3).shape == (64, 5)
    assert beam_search(model, source, 0, 3).shape == (64, 0)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ((8, 0), ValueError, "beam_width must be >= 1, got 0"),
        ((8, 2.0), TypeError, r"beam_width must be an int, got 2\.0"),
        ((-1, 2), ValueError, "length must be >= 0, got -1"),
    ],
)
def test_beam_search_refuses_bad_settings(model, source, arguments, error, message):
    with pytest.raises(error, match=message):
        beam_search(model, source, *arguments)


def test_sequence_log_prob_refuses_ids_outside_the_vocabulary(model, source):
    with pytest.raises(ValueError, match=r"token ids must lie in \[0, vocab_size=11\), got 11 in written"):
        sequence_log_prob(model, source[:1], torch.tensor([[1, 2, 11]]))


@pytest.mark.parametrize("decode", [greedy_decode, beam_search], ids=["greedy", "beam"])
def test_decoding_creates_its_tensors_on_the_source_device(decode):
    """On the meta device (shapes, no values: it stands in for a GPU), a tensor created on the CPU would fail."""
    torch.manual_seed(0)
    on_meta = Seq2SeqModel(d_model=8, num_heads=2, d_ff=16, max_len=12).to("meta")
    source = torch.zeros(2, 5, dtype=torch.long, device="meta")
    arguments = (3,) if decode is greedy_decode else (3, 2)
    written = decode(on_meta, source, *arguments)
    assert written.device.type == "meta" and written.shape == (2, 3) and written.dtype == torch.long
